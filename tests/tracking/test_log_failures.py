"""A logging failure warns in one line and loses nothing; a sink that cannot work is refused first.

Each failure is a real one of the real SDK: an MLflow server that is not there, a W&B setting it
refuses. The run is complete on disk and its exit status is the run's, whatever the logging did.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys

import pytest

from mmmu_eval import ConfigError, evaluate, evaluate_suite, rescore_outputs
from mmmu_eval.cli.main import main
from mmmu_eval.run.progress import NullDisplay

from .conftest import mlflow_runs, wandb_runs


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_an_mlflow_server_that_is_down_is_one_warning_line_and_the_next_sink_still_logs(mlflow_store, wandb_home, tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "MLFLOW_TRACKING_URI": f"http://127.0.0.1:{_closed_port()}",
           "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0", "MLFLOW_HTTP_REQUEST_TIMEOUT": "5", "COLUMNS": "300"}
    done = subprocess.run([sys.executable, "-m", "mmmu_eval", "run", "--model", "random", "--split", "dev", "--data",
                           "sample", "--out", str(out), "--log-to", "mlflow", "--log-to", "wandb"],
                          capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    failed = [line for line in done.stderr.splitlines() if "could not log" in line]
    assert len(failed) == 1 and "could not log to mlflow: MlflowException: API request to http://127.0.0.1:" in failed[0]
    assert f"(the run is kept in {out})" in failed[0]
    assert "logged to wandb: W&B offline run" in done.stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert {"results.json", "report.html", "predictions.jsonl"} <= {p.name for p in out.iterdir()}
    (run,) = wandb_runs(wandb_home)
    assert run["name"] == "run" and run["summary"]["sample/overall/n"] == 20


@pytest.mark.slow
def test_a_setting_w_and_b_refuses_warns_and_the_run_is_returned_as_it_is(wandb_home, monkeypatch, tmp_path, caplog):
    monkeypatch.setenv("WANDB_MODE", "offline-please\x1b[31m")
    with caplog.at_level(logging.WARNING, logger="mmmu_eval.tracking"):
        result = evaluate(model="random", split="dev", data="sample", out=tmp_path / "run", display=NullDisplay(),
                          log_to="wandb")
    assert result.exit_status == 0 and result.results["overall"]["n"] == 20
    (warning,) = [r.getMessage() for r in caplog.records if r.name.startswith("mmmu_eval.tracking")]
    assert warning.startswith("could not log to wandb: ") and str(tmp_path / "run") in warning
    assert "\n" not in warning and "\x1b" not in warning
    assert (tmp_path / "run" / "results.json").is_file()


@pytest.fixture
def no_mlflow(monkeypatch, tmp_path):
    """This venv as if mlflow were not installed: its module is not found. (Were the check broken,
    what the real mlflow then logs goes under the test's folder.)"""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mlflow" else found(name, *a))


def test_a_missing_sdk_is_refused_before_the_run_starts_naming_the_extra(no_mlflow, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--model", "random", "--data", "sample", "--out", str(out), "--log-to", "mlflow"]) == 2
    assert "pip install 'mmmu-eval[mlflow]'" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(ConfigError, match=r"mmmu-eval\[mlflow\]"):
        evaluate(model="random", data="sample", out=out, log_to=["mlflow"])
    with pytest.raises(ConfigError, match=r"mmmu-eval\[mlflow\]"):
        evaluate_suite(model="random", data="sample", out=tmp_path / "suite", log_to="mlflow")
    with pytest.raises(ConfigError, match=r"mmmu-eval\[mlflow\]"):
        rescore_outputs(tmp_path / "nothing.jsonl", data="sample", out=tmp_path / "rescored", log_to="mlflow")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("words, message", [
    (["run", "--model", "random", "--log-items"], "--log-items applies with --log-to"),
    (["suite", "--model", "random", "--log-experiment", "x"], "--log-experiment applies with --log-to"),
    (["run", "--model", "random", "--dry-run", "--log-to", "wandb"], "--dry-run runs nothing"),
    (["suite", "--model", "random", "--dry-run", "--log-to", "wandb"], "--dry-run runs nothing"),
    (["run", "--model", "random", "--log-to", "wandb", "--log-to", "wandb"], "names a sink twice"),
    (["rescore", "nothing.jsonl", "--log-to", "wandb"], "add --out RUN_DIR"),
])
def test_logging_flags_that_cannot_work_are_refused_before_anything_runs(words, message, sdks_installed, tmp_path,
                                                                           monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(words) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_finished_run_run_again_with_log_to_is_logged_without_asking_anything(mlflow_client, tmp_path, capsys):
    """The way to log a run made before: the same command with --log-to answers from the files."""
    words = ["run", "--model", "random", "--split", "dev", "--data", "sample", "--out", str(tmp_path / "old")]
    assert main(words) == 0
    assert main(words + ["--log-to", "mlflow", "--log-experiment", "later"]) == 0
    assert "finished already: nothing asked" in capsys.readouterr().out
    (run,) = mlflow_runs(mlflow_client, "later")
    assert run.data.metrics["sample/overall/n"] == 20
