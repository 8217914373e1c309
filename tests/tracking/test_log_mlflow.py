"""``log_to="mlflow"``: a finished run, a void run, a subset, a suite and a rescore, logged to a real
MLflow sqlite store and read back through ``MlflowClient``."""

from __future__ import annotations

import json

import pytest

from fakes.harness_outputs import write_jsonl
from fakes.parquet_rows import mmmu_row, write_mmmu
from fakes.scripted_backend import ScriptedBackend
from mmmu_eval import ConfigError, LogTo, evaluate, evaluate_suite, rescore
from mmmu_eval.cli.main import main
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.suite.suite_progress import SuiteDisplay
from mmmu_eval.tracking import log_run

from .conftest import mlflow_file, mlflow_files, mlflow_runs

pytestmark = pytest.mark.slow  # MLflow builds its sqlite tables (seconds)

QUIET = {"display": NullDisplay()}


def test_a_run_is_logged_with_its_configuration_figures_intervals_files_and_items(mlflow_client, tmp_path):
    result = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=tmp_path / "sample-run",
                      log_to=LogTo(("mlflow",), items=True, experiment="one-run"), **QUIET)
    (run,) = mlflow_runs(mlflow_client, "one-run")
    results, manifest = result.results, result.manifest
    assert run.info.run_name == "sample-run" and run.info.status == "FINISHED"

    metrics = run.data.metrics  # the bundled sample is no benchmark: its figures say "sample", never "full"
    assert metrics["sample/overall/accuracy"] == results["overall"]["accuracy"]
    assert [metrics["sample/overall/ci95_low"], metrics["sample/overall/ci95_high"]] == results["overall"]["ci95"]
    assert metrics["sample/overall/n"] == results["overall"]["n"] == 40
    for discipline, row in results["by_discipline"].items():
        name = "sample/discipline/" + discipline.replace(" ", "_")
        assert (metrics[f"{name}/accuracy"], [metrics[f"{name}/ci95_low"], metrics[f"{name}/ci95_high"]]) == \
               (row["accuracy"], row["ci95"]), discipline
    for subject, row in results["by_subject"].items():
        assert metrics[f"sample/subject/{subject}/accuracy"] == row["accuracy"], subject
    assert metrics["sample/overall/deterministic_accuracy"] == results["parse"]["deterministic_accuracy"]
    assert metrics["sample/coverage/items"] == 40
    assert all(name.startswith("sample/") for name in metrics)

    params = run.data.params
    assert params["config.model"] == "random" and params["config.split"] == "validation"
    assert params["protocol.fingerprint"] == manifest["protocol"]["fingerprint"]
    assert params["protocol.official"] == "true" and params["scoring.fallback_seed"] == "42"
    assert params["dataset.digest"] == manifest["dataset"]["digest"]
    tags = run.data.tags
    assert tags["mmmu_eval.scope"] == "sample" and tags["mmmu_eval.scope_text"] == results["scope"]["text"]
    assert (tags["mmmu_eval.kind"], tags["mmmu_eval.benchmark"], tags["mmmu_eval.status"]) == ("run", "mmmu", "complete")
    assert "mmmu_eval.void" not in tags and "mmmu_eval.not_logged" not in tags

    run_id = run.info.run_id
    assert mlflow_files(mlflow_client, run_id) == ["items.json", "manifest.json", "report.html", "results.json"]
    for name in ("results.json", "manifest.json", "report.html"):
        assert mlflow_file(mlflow_client, run_id, name, tmp_path / "got") == (result.run_dir / name).read_bytes(), name

    table = json.loads(mlflow_file(mlflow_client, run_id, "items.json", tmp_path / "got"))
    rows = [dict(zip(table["columns"], row)) for row in table["data"]]
    gold = {item.id: item.answer for item in load_benchmark("mmmu", split="validation", data="sample").items}
    responses = {row["id"]: row["response"] for row in map(json.loads, (result.run_dir / "predictions.jsonl").open())}
    assert [row["id"] for row in rows] == list(results["verdicts"])
    for row in rows:
        verdict = results["verdicts"][row["id"]]
        assert (row["subject"], row["parsed"], row["correct"], row["fallback"], row["status"]) == \
               (verdict["subject"], verdict["pred"], verdict["correct"], verdict["fallback"], "ok"), row["id"]
        expected_gold = gold[row["id"]]
        assert row["gold"] == (expected_gold if isinstance(expected_gold, str) else " | ".join(expected_gold))
        assert row["answer"] == responses[row["id"]][:200]


@pytest.fixture(scope="module")
def made_runs(tmp_path_factory):
    """A run of the test split without gold answers (void), and a subset (one subject of two)."""
    root = tmp_path_factory.mktemp("runs")
    test_data, val_data = root / "test-data", root / "val-data"
    for subject in ("Art", "Math"):
        write_mmmu(test_data, subject, "test", [mmmu_row(f"test_{subject}_{i}", answer="?") for i in range(1, 6)])
        write_mmmu(val_data, subject, "validation", [mmmu_row(f"validation_{subject}_{i}") for i in range(1, 6)])
    evaluate(model=ScriptedBackend(["(B)"] * 6 + ["no idea"] * 4), benchmark="mmmu", split="test", data=str(test_data),
             out=root / "void", **QUIET)
    evaluate(model=ScriptedBackend(["(B)"] * 3 + ["(C)"] * 2), benchmark="mmmu", split="validation", data=str(val_data),
             subjects="Art", out=root / "subset", **QUIET)
    return root


def test_a_run_without_gold_answers_logs_no_accuracy_at_all_and_says_why(mlflow_client, made_runs):
    log_run(LogTo(("mlflow",), experiment="void"), made_runs / "void")
    (run,) = mlflow_runs(mlflow_client, "void")
    metrics, tags = run.data.metrics, run.data.tags
    assert not [name for name in metrics if "accuracy" in name or "ci95" in name or name.endswith("/correct")
                or "fallback" in name]
    assert metrics["subset/coverage/ungraded"] == 10 and metrics["subset/parse/unparsed"] == 4  # what holds without gold
    assert "no gold answers" in tags["mmmu_eval.void"]
    assert "every accuracy" in tags["mmmu_eval.not_logged"] and "answers=" in tags["mmmu_eval.not_logged"]


def test_a_subset_s_figures_are_named_subset_never_full(mlflow_client, made_runs):
    log_run(LogTo(("mlflow",), experiment="subset"), made_runs / "subset")
    (run,) = mlflow_runs(mlflow_client, "subset")
    assert run.data.metrics["subset/overall/accuracy"] == 0.6
    assert run.data.metrics["subset/subject/Art/n"] == 5 and "subset/subject/Math/n" not in run.data.metrics
    assert not [name for name in run.data.metrics if not name.startswith("subset/")]
    assert run.data.tags["mmmu_eval.scope"] == "subset" and "subjects Art" in run.data.tags["mmmu_eval.scope_text"]


def test_a_suite_is_one_logged_run_with_table1_the_effects_and_every_run_s_figures_and_files(mlflow_client, tmp_path):
    suite = evaluate_suite(model="frequent", data="sample", out=tmp_path / "suite", display=SuiteDisplay(plain=True),
                           log_to=LogTo(("mlflow",), experiment="suite"))
    (run,) = mlflow_runs(mlflow_client, "suite")
    metrics, table1 = run.data.metrics, suite.summary["table1"]
    assert run.info.run_name == "suite" and run.data.tags["mmmu_eval.kind"] == "suite"
    for cell in ("standard_4", "standard_10", "vision", "overall", "mmmu_val", "delta_1", "delta_2", "delta_3"):
        assert metrics[f"sample/table1/{cell}/value"] == table1[cell]["value"], cell
        assert [metrics[f"sample/table1/{cell}/ci95_low"], metrics[f"sample/table1/{cell}/ci95_high"]] == table1[cell]["ci95"]
    effect = suite.summary["cot_effect"]["vision"]["difference"]
    assert metrics["sample/cot_effect/vision/difference"] == effect["value"]
    for name, result in suite.runs.items():
        assert metrics[f"sample/{name}/overall/accuracy"] == result.results["overall"]["accuracy"], name
    assert "ocr_effect/vision" in run.data.tags["mmmu_eval.not_logged"]  # null in suite.json: left out, said
    files = mlflow_files(mlflow_client, run.info.run_id)
    assert {"suite.json", "report.html", "runs/vision-cot/results.json", "runs/vision-cot/manifest.json",
            "runs/mmmu-validation-direct/report.html"} <= set(files)
    assert mlflow_file(mlflow_client, run.info.run_id, "suite.json", tmp_path / "got") == \
           (tmp_path / "suite" / "suite.json").read_bytes()


def test_a_rescored_run_is_logged_as_such_and_needs_its_run_directory(mlflow_client, tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "validation_Art_1", "response": "(A)"}) + "\n"
                       + json.dumps({"id": "validation_Math_1", "response": "B"}) + "\n")
    with pytest.raises(ConfigError, match="add out="):  # refused before the file is read
        rescore(tmp_path / "not-there.jsonl", data="sample", benchmark="mmmu", log_to="mlflow")
    found = rescore(answers, data="sample", benchmark="mmmu", out=tmp_path / "rescored",
                    log_to=LogTo(("mlflow",), experiment="rescore"))
    (run,) = mlflow_runs(mlflow_client, "rescore")
    assert run.data.tags["mmmu_eval.kind"] == "rescore" and run.data.tags["mmmu_eval.rescored_from"] == "jsonl"
    assert run.data.metrics["sample/overall/n"] == 2 == found.document["overall"]["total"]


def test_mmmu_eval_rescore_logs_the_harness_s_own_verdicts_beside_the_official_ones(mlflow_client, tmp_path):
    # The harness's own verdicts, one of which the official parser does not share (item 3 is right).
    log = write_jsonl(tmp_path / "harness.jsonl", [
        {"id": "validation_Accounting_2", "response": "The answer is B.", "pred": "B", "correct": True},
        {"id": "validation_Accounting_3", "response": "A", "pred": "C", "correct": False},
        {"id": "validation_Public_Health_1", "response": "see note E.", "pred": "E", "correct": False},
    ])
    assert main(["rescore", str(log), "--data", "sample", "--benchmark", "mmmu", "--partial", "--out",
                 str(tmp_path / "rescored"), "--log-to", "mlflow", "--log-experiment", "harness", "--log-items"]) == 0
    results = json.loads((tmp_path / "rescored" / "results.json").read_text())
    (run,) = mlflow_runs(mlflow_client, "harness")
    metrics = run.data.metrics
    assert metrics["sample/harness/jsonl/own_accuracy"] == pytest.approx(1 / 3) == results["harness"]["accuracy"]
    assert metrics["sample/harness/jsonl/official_accuracy"] == metrics["sample/overall/accuracy"] == pytest.approx(2 / 3)
    assert metrics["sample/harness/jsonl/differing"] == 1
    assert run.data.tags["mmmu_eval.rescored_from"] == "jsonl" and run.data.tags["mmmu_eval.kind"] == "rescore"
    assert "items.json" in mlflow_files(mlflow_client, run.info.run_id)
