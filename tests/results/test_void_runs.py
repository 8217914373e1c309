"""Void is null everywhere (issue 42): a run with no scored item has no figure, never 0.0.

Both kinds, through the API and the command line as a user meets them:

- a model that always raises (and, on the command line, a real server answering HTTP 500):
  every request failed, so no item could be scored;
- the MMMU test split without gold answers.

Each gives ``null`` accuracies in results.json (overall and every row with n 0, and no interval),
``None`` from the API, "no score" in every table and page, and exit status 3 with a line that says
why. Before, results.json held ``overall.accuracy: 0.0`` with ``ci95 [0, 1]`` and
``RunResult.accuracy`` was 0.0 for a model that never answered.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from fakes.fault_server import FaultServer
from fakes.parquet_rows import mmmu_row, write_mmmu
from fakes.processes import offline_environment
from fakes.scripted_backend import ScriptedBackend
from mmmu_eval import evaluate, evaluate_suite
from mmmu_eval.cli.main import main
from mmmu_eval.commands.diagnose import diagnose
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.published.figures import expert_levels
from mmmu_eval.results.comparison import compare_runs
from mmmu_eval.results.results_json import read_results
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.run.result import NO_SCORE_STATUS

QUIET = {"display": NullDisplay()}
SAMPLE = {"benchmark": "mmmu", "split": "validation", "data": "sample"}
#: Items of the MMMU validation data written for the failed run (a subset, so the experts apply).
ITEMS = 10


def _raises(messages):
    raise RuntimeError("the model is down")


def _direct_down(messages):
    """Fails every direct prompt, answers every chain-of-thought one."""
    if "step by step" not in json.dumps(messages):
        raise RuntimeError("the direct endpoint is down")
    return "Answer: A"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("void")
    test_data, val_data = root / "test-data", root / "val-data"
    write_mmmu(test_data, "Art", "test", [mmmu_row(f"test_Art_{i}", answer="?") for i in range(1, 6)])
    for subject in ("Art", "Math"):
        write_mmmu(val_data, subject, "validation", [mmmu_row(f"validation_{subject}_{i}") for i in range(1, 6)])
    failed = evaluate(model=_raises, out=root / "failed", concurrency=2, benchmark="mmmu", split="validation",
                      data=str(val_data), **QUIET)
    ungraded = evaluate(model=ScriptedBackend(["(B)"] * 4 + ["no idea"]), benchmark="mmmu", split="test",
                        data=str(test_data), out=root / "ungraded", **QUIET)
    scored = evaluate(model="random", out=root / "scored", **SAMPLE, **QUIET)
    return {"failed": failed, "ungraded": ungraded, "scored": scored}


def _no_figure_anywhere(results) -> None:
    """Every accuracy of the file null, and no interval: nothing reads as 0.0."""
    overall = results["overall"]
    assert (overall["n"], overall["accuracy"], overall["ci95"]) == (0, None, None)
    for name in ("by_discipline", "by_subject", "by_img_type", "by_topic_difficulty", "by_question_type", "by_option_count"):
        for row in results[name].values():
            assert row["n"] > 0 or row["accuracy"] is None
    assert all(p["accuracy"] is None for p in results["parsers"].values())
    parse = results["parse"]
    assert (parse["fallback_rate"], parse["deterministic_accuracy"], parse["expected_accuracy"]) == (None, None, None)


def test_a_model_that_always_raises_has_no_figure_in_the_api_and_results_json(runs):
    result = runs["failed"]
    assert result.accuracy is None
    said = f"no score (no item could be scored: {ITEMS} failed, see responses.jsonl)"
    assert said in repr(result) and said in result._repr_html_() and "95% interval" not in result._repr_html_()
    assert result.counts["error"] == ITEMS
    _no_figure_anywhere(result.results)
    _no_figure_anywhere(read_results(result.run_dir))
    assert result.exit_status == NO_SCORE_STATUS == 3
    assert result.message().splitlines()[0] == f"no item could be scored: {ITEMS} failed, see responses.jsonl"


def test_the_test_split_without_gold_answers_has_no_figure_either(runs):
    result = runs["ungraded"]
    assert result.accuracy is None and result.results["gold_available"] is False
    _no_figure_anywhere(result.results)
    assert result.exit_status == 3
    assert result.message().startswith("no gold answers: score it with --answers")
    assert (result.run_dir / "submission.json").is_file()  # what a test run is for, written all the same


def test_a_run_with_a_figure_is_unchanged(runs):
    result = runs["scored"]
    assert result.accuracy == result.results["overall"]["accuracy"] == 0.1 and result.exit_status == 0
    assert result.results["overall"]["ci95"] is not None


@pytest.mark.parametrize("kind", ["failed", "ungraded"])
def test_every_table_says_no_score_never_zero(runs, kind, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["report", str(runs[kind].run_dir)]) == 0
    out = capsys.readouterr().out
    assert "accuracy, fallbacks counted wrong" in out and "no score" in out
    assert "0.0%" not in out and "95% CI" not in out and "%" not in out.split("Parsing and coverage")[1]
    if kind == "failed":
        assert f"no score (no item could be scored: {ITEMS} failed, see responses.jsonl)" in out
    page = (runs[kind].run_dir / "report.html").read_text()
    assert "0.0%" not in page and "95% CI" not in page and 'id="experts"' not in page
    headline = re.search(r'id="headline">([^<]*)<', page).group(1)
    assert headline == ("no score" if kind == "failed" else "no gold answers")
    if kind == "failed":  # a subset of MMMU validation: the experts' line would apply to a figure
        assert "human experts" not in out
        assert f"no score (no item could be scored: {ITEMS} failed, see responses.jsonl): nothing to chart" in page


def test_the_doctor_compare_and_score_name_the_void_run(runs, capsys):
    failed = runs["failed"].run_dir
    d = diagnose(failed, published=40)
    assert d.figure["accuracy"] is None and d.figure["ci95"] is None and d.causes == ()
    assert "no figure (no item could be scored" in repr(d)
    assert "no score (no item could be scored" in d.lines()[0] and "refused" in d.published
    with pytest.raises(ConfigError, match="has no score .no item could be scored.*nothing to compare"):
        compare_runs(read_results(runs["scored"].run_dir), read_results(failed), label_b="failed")
    capsys.readouterr()
    assert main(["score", str(failed)]) == 0
    assert f"no score: no item could be scored: {ITEMS} failed, see responses.jsonl" in capsys.readouterr().out
    with pytest.raises(ValueError, match="needs an accuracy"):
        expert_levels(None, None)


def test_score_save_over_a_void_run_says_what_it_replaced(runs, tmp_path, capsys):
    import shutil

    copy = tmp_path / "failed"
    shutil.copytree(runs["failed"].run_dir, copy)
    capsys.readouterr()
    assert main(["score", str(copy), "--parser", "boxed", "--save"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"replacing results.json: it said no score (no item could be scored: {ITEMS} failed, see responses.jsonl)" in out


def test_a_results_json_written_before_void_was_null_still_reads_as_no_score(runs, tmp_path, capsys, monkeypatch):
    """Files of earlier versions hold 0.0 and [0, 1] for a void run: they print as no score too."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(runs["failed"].run_dir, old)
    results = json.loads((old / "results.json").read_text())
    results["overall"].update(accuracy=0.0, ci95=[0.0, 1.0], ci_method="wilson")
    results["parse"].update(fallback_rate=0.0, deterministic_accuracy=0.0, expected_accuracy=0.0)
    (old / "results.json").write_text(json.dumps(results))
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["report", str(old)]) == 0
    out = capsys.readouterr().out
    assert "no score" in out and "0.0%" not in out


def test_a_suite_whose_every_request_fails_says_no_score_and_exits_3(tmp_path, capsys, monkeypatch):
    suite = evaluate_suite(model=_raises, data="sample", out=tmp_path / "suite", settings=["standard-10"],
                           prompts=["direct"], mmmu=False, display=None)
    run = suite.summary["runs"]["standard-10-direct"]
    assert (run["accuracy"], run["percent"], run["ci95"]) == (None, None, None)
    assert run["problem"].startswith("has no score (no item could be scored: 24 failed")
    assert suite.exit_status == 3 and suite.overall is None
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["report", str(suite.suite_dir)]) == 0
    runs_table = capsys.readouterr().out.split("Runs")[-1]
    assert re.search(r"standard-10-direct\s+│\s+no score\s+│\s+0 / 24", runs_table)
    page = (suite.suite_dir / "report.html").read_text()
    assert "<td class=n>no score</td>" in page and "0.0%" not in page
    # the run's results.json as earlier versions wrote it (0.0, [0, 1]): the suite reads it as no score too
    path = suite.suite_dir / "standard-10-direct" / "results.json"
    results = json.loads(path.read_text())
    results["overall"].update(accuracy=0.0, ci95=[0.0, 1.0], ci_method="wilson")
    path.write_text(json.dumps(results))
    assert main(["report", str(suite.suite_dir)]) == 0
    assert re.search(r"standard-10-direct\s+│\s+no score\s+│", capsys.readouterr().out.split("Runs")[-1])


def test_a_void_run_is_left_out_of_the_mmmu_pro_headline_and_its_twin_s_best_of(tmp_path, capsys):
    suite = evaluate_suite(model=_direct_down, data="sample", out=tmp_path / "suite", settings=["standard-10"],
                           prompts=["direct", "cot"], mmmu=False, display=None)
    direct, cot = (suite.suite_dir / f"standard-10-{p}" for p in ("direct", "cot"))
    assert suite.summary["runs"]["standard-10-direct"]["accuracy"] is None
    assert suite.summary["runs"]["standard-10-cot"]["accuracy"] is not None
    vision = evaluate(model="random", benchmark="mmmu-pro", setting="vision", data="sample", out=tmp_path / "vision",
                      **QUIET)
    capsys.readouterr()
    assert main(["report", str(direct), str(vision.run_dir)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "no score (no item could be scored: 24 failed, see responses.jsonl); not part of the MMMU-Pro headline" in err
    # the doctor sizes best_of from the other prompt's run only where that run has a figure
    d = diagnose(suite.suite_dir, published="GPT-4o (0513)")
    by_run = {r.run.rsplit("/", 1)[1]: r for r in d.runs}
    assert by_run["standard-10-direct"].figure["accuracy"] is None
    assert by_run["standard-10-cot"].figure["accuracy"] is not None and cot.is_dir()


def test_the_cli_run_of_the_test_split_exits_3_saying_no_gold_answers(tmp_path, capsys):
    data = tmp_path / "data"
    write_mmmu(data, "Art", "test", [mmmu_row(f"test_Art_{i}", answer="?") for i in range(1, 4)])
    capsys.readouterr()
    status = main(["run", "--model", "random", "--benchmark", "mmmu", "--split", "test", "--data", str(data),
                   "--out", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert status == 3
    assert "no gold answers" in out and "no gold answers: score it with --answers" in err
    assert json.loads((tmp_path / "run" / "results.json").read_text())["overall"]["accuracy"] is None


@pytest.mark.slow
def test_the_cli_run_against_a_server_answering_500_exits_3_saying_why(tmp_path):
    """A real HTTP server whose every chat answer after the start-up probe is a 500: the run stops
    after 32 failures in a row, and the rest are never asked."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, break_after=1) as server:
        command = [sys.executable, "-m", "mmmu_eval", "run", "--model", "openai:fake-model", "--base-url", server.url,
                   "--out", str(out), "--max-attempts", "1", "--benchmark", "mmmu", "--split", "validation",
                   "--data", "sample"]
        done = subprocess.run(command, env=offline_environment(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert "no item could be scored: 32 failed and 8 never answered, see responses.jsonl" in done.stderr
    assert "no score (no item could be scored" in " ".join(done.stdout.split()) and "0.0%" not in done.stdout
    results = json.loads((out / "results.json").read_text())
    assert (results["overall"]["accuracy"], results["overall"]["ci95"]) == (None, None)


def test_a_rescored_file_with_no_scorable_row_has_no_figure(tmp_path):
    from mmmu_eval.commands.rescore import rescore_outputs

    rows = [{"id": f"validation_Art_{i}", "error": "HTTP 500"} for i in range(1, 5)]
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = rescore_outputs(path, data="sample", benchmark="mmmu")
    overall = found.document["overall"]
    assert found.accuracy is None and (overall["total"], overall["accuracy"]) == (0, None)
    assert (found.document["deterministic_accuracy"], found.document["fallback_rate"]) == (None, None)
    harness = found.document["harness"]  # no verdict of the harness's own either: null, not 0.0
    assert (harness["n"], harness["accuracy"], harness["official_accuracy"], harness["difference"]) == (0, None, None, None)
