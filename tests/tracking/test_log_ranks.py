"""Under a launcher (torchrun's variables, two real rank processes) the merged run is logged once,
by rank 0, after the merge; the other rank logs nothing."""

from __future__ import annotations

import pytest

from fakes.ranks import start_rank
from fakes.served_model import free_port

from .conftest import mlflow_runs

pytestmark = [pytest.mark.hf, pytest.mark.slow]  # the ranks meet in torch's store


def test_rank_0_logs_the_merged_run_once(hf_extra, mlflow_client, tmp_path):
    out = tmp_path / "run"
    port = free_port()
    command = ["run", "--data", "sample", "--benchmark", "mmmu", "--split", "dev", "--model", "random", "--out", str(out),
               "--log-to", "mlflow", "--log-experiment", "ranks"]
    ranks = [start_rank(0, 2, port, command), start_rank(1, 2, port, command)]
    outputs = [r.communicate(timeout=240) for r in ranks]
    assert [r.returncode for r in ranks] == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    assert "logged to mlflow" in outputs[0][1] and "logged to mlflow" not in outputs[1][1]
    (run,) = mlflow_runs(mlflow_client, "ranks")
    assert run.info.run_name == "run" and run.data.tags["mmmu_eval.run_dir"] == str(out.resolve())
    assert run.data.metrics["sample/overall/n"] == 20  # both shards, merged


def test_rank_0_logs_the_merged_suite_once(hf_extra, mlflow_client, tmp_path):
    out = tmp_path / "suite"
    port = free_port()
    command = ["suite", "--data", "sample", "--model", "frequent", "--settings", "vision", "--prompts", "direct",
               "--no-mmmu", "--out", str(out), "--log-to", "mlflow", "--log-experiment", "suite-ranks"]
    ranks = [start_rank(0, 2, port, command), start_rank(1, 2, port, command)]
    outputs = [r.communicate(timeout=240) for r in ranks]
    assert [r.returncode for r in ranks] == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    (run,) = mlflow_runs(mlflow_client, "suite-ranks")
    assert run.data.tags["mmmu_eval.kind"] == "suite" and run.data.metrics["sample/vision-direct/overall/n"] == 24
