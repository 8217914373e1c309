"""``log_to="wandb"``: runs and a suite logged by the real W&B SDK in offline mode (no network) and
read back from the files it wrote, with W&B's own reader (``wandb leet inspect``)."""

from __future__ import annotations

import json

import pytest

from mmmu_eval import LogTo, evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.run.progress import NullDisplay

from .conftest import wandb_artifacts, wandb_runs

pytestmark = pytest.mark.slow  # each logged run starts W&B's service process


def test_a_run_is_logged_offline_with_its_configuration_figures_files_and_items(wandb_home, tmp_path):
    result = evaluate(model="random", benchmark="mmmu-pro", setting="vision", data="sample", out=tmp_path / "pro-run",
                      display=NullDisplay(), log_to=LogTo(("wandb",), items=True, experiment="offline-test"))
    (run,) = wandb_runs(wandb_home)
    results, manifest = result.results, result.manifest
    assert (run["name"], run["project"], run["state"]) == ("pro-run", "offline-test", "finished")
    assert run["notes"] == results["scope"]["text"]
    assert {"mmmu-eval-run", "scope:sample", "benchmark:mmmu-pro", "setting:vision", "status:complete"} <= set(run["tags"])

    summary = run["summary"]
    assert summary["sample/overall/accuracy"] == results["overall"]["accuracy"]
    assert [summary["sample/overall/ci95_low"], summary["sample/overall/ci95_high"]] == results["overall"]["ci95"]
    for subject, row in results["by_subject"].items():
        assert summary[f"sample/subject/{subject}/accuracy"] == row["accuracy"], subject
        assert [summary[f"sample/subject/{subject}/ci95_low"], summary[f"sample/subject/{subject}/ci95_high"]] == row["ci95"]
    config = run["config"]
    assert config["config.setting"] == "vision" and config["protocol.fingerprint"] == manifest["protocol"]["fingerprint"]
    assert config["mmmu_eval.scope"] == "sample" and config["scoring.fallback_seed"] == 42

    files = wandb_artifacts(run)["pro-run"]
    assert files["type"] == "mmmu-eval-run" and set(files["files"]) == {"results.json", "manifest.json", "report.html"}
    for name, staged in files["files"].items():
        assert staged.read_bytes() == (result.run_dir / name).read_bytes(), name

    (table_file,) = (run["folder"] / "files" / "media" / "table").glob("items_*.table.json")
    table = json.loads(table_file.read_text())
    rows = [dict(zip(table["columns"], row)) for row in table["data"]]
    assert table["columns"] == ["id", "subject", "gold", "parsed", "correct", "fallback", "status", "answer"]
    assert [row["id"] for row in rows] == list(results["verdicts"]) and len(rows) == results["overall"]["n"]
    assert [row["correct"] for row in rows] == [v["correct"] for v in results["verdicts"].values()]


def test_a_suite_logs_offline_and_its_json_document_on_stdout_stays_a_document(wandb_home, tmp_path, capsys):
    out = tmp_path / "suite"
    status = main(["suite", "--model", "frequent", "--data", "sample", "--settings", "vision", "--no-mmmu",
                   "--out", str(out), "--json", "--log-to", "wandb"])
    document = json.loads(capsys.readouterr().out)  # W&B printed nothing there, and captured nothing
    assert status == 0
    (run,) = wandb_runs(wandb_home)
    assert (run["name"], run["project"]) == ("suite", "mmmu-eval")
    assert run["summary"]["sample/table1/vision/value"] == document["table1"]["vision"]["value"]
    assert run["summary"]["sample/cot_effect/vision/difference"] == document["cot_effect"]["vision"]["difference"]["value"]
    assert "sample/table1/overall/value" not in run["summary"]  # null without standard-10: left out, not 0
    files = wandb_artifacts(run)["suite"]["files"]
    assert {"suite.json", "report.html", "runs/vision-direct/results.json", "runs/vision-cot/manifest.json"} <= set(files)
    assert files["suite.json"].read_bytes() == (out / "suite.json").read_bytes()


async def test_a_run_inside_a_running_event_loop_logs_from_its_worker_thread(wandb_home, tmp_path):
    """A notebook's ``evaluate`` runs in a worker thread with a loop of its own; it logs from there."""
    evaluate(model="random", split="dev", data="sample", out=tmp_path / "in-a-loop", display=NullDisplay(), log_to="wandb")
    (run,) = wandb_runs(wandb_home)
    assert run["name"] == "in-a-loop" and "sample/overall/accuracy" in run["summary"]
