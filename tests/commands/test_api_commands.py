"""Each command that reads or rewrites a finished run is one API call with a typed result (issue 31):
``score_run``, ``load_run``, ``report_run``, ``compare``, ``merge``, ``rescore_outputs``. Views write
nothing; the calls that write go through ``run/outputs.py`` under its one rule for results.json;
and each works from a notebook cell, where an event loop is already running.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval.core.errors import ConfigError, DataError


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes: what a view must leave exactly as it was."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Two runs of the bundled sample (random and frequent) and two shards of a third."""
    root = tmp_path_factory.mktemp("runs")
    common = dict(benchmark="mmmu", split="validation", data="sample")
    mmmu_eval.evaluate(model="random", out=str(root / "random"), **common)
    mmmu_eval.evaluate(model="frequent", out=str(root / "frequent"), **common)
    for k in (1, 2):
        mmmu_eval.evaluate(model="random", shard=(k, 2), out=str(root / f"shard{k}"), **common)
    return root


def copy_run(runs: Path, name: str, to: Path) -> Path:
    import shutil

    return Path(shutil.copytree(runs / name, to / name))


def test_score_run_is_a_view_unless_saved(runs, tmp_path):
    run = copy_run(runs, "random", tmp_path)
    before = files(run)
    view = mmmu_eval.score_run(run, parsers=["strict", "official"], fallback="none")
    assert files(run) == before  # a view: not one byte written
    assert isinstance(view, mmmu_eval.RunScore) and not view.saved and view.replaced is None
    assert view.spec.parsers == ("strict", "official") and view.recorded.parsers == ("official",)
    assert list(view.results["parsers"]) == ["strict", "official"] and len(view.items) == 40
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.saved_scoring = None  # type: ignore[misc]

    saved = mmmu_eval.score_run(run, parsers=["strict", "official"], fallback="none", save=True)
    assert saved.saved and saved.saved_scoring.recorded
    assert saved.replaced == json.loads(before["results.json"])  # what it replaced, kept
    assert [p.name for p in saved.saved_scoring.written] == ["predictions.jsonl", "results.json"]
    assert list(json.loads((run / "results.json").read_text())["parsers"]) == ["strict", "official"]
    assert json.loads((run / "manifest.json").read_text())["scoring"]["parsers"] == ["strict", "official"]
    assert saved.accuracy == saved.results["overall"]["accuracy"]
    # saving the run's own scoring again records nothing new
    assert not mmmu_eval.score_run(run, save=True).saved_scoring.recorded


def test_load_run_rebuilds_in_memory_and_writes_nothing(runs, tmp_path):
    run = copy_run(runs, "random", tmp_path)
    (run / "results.json").unlink()
    before = files(run)
    loaded = mmmu_eval.load_run(run, details=True)
    assert isinstance(loaded, mmmu_eval.LoadedRun) and loaded.rebuilt
    assert loaded.results["overall"]["n"] == len(loaded.items) == 40
    assert files(run) == before


def test_report_run_saves_the_recorded_scoring_only(runs, tmp_path):
    """One rule for results.json: a rebuilt one is saved when it is the run's recorded scoring,
    never when a one-off answer dict scored it."""
    run = copy_run(runs, "random", tmp_path)
    (run / "results.json").unlink()
    answers = tmp_path / "answer_dict_val.json"
    loaded = mmmu_eval.load_run(run, details=True)
    answers.write_text(json.dumps({it.id: {"question_type": it.question_type, "ground_truth": it.answer}
                                   for it in loaded.items}))
    one_off = mmmu_eval.report_run(run, answers=answers)
    assert one_off.run.rebuilt and one_off.saved_results is None and not (run / "results.json").exists()

    page = mmmu_eval.report_run(run, html=True, images=False, submission=True)
    assert isinstance(page, mmmu_eval.RunReport)
    assert page.saved_results == run / "results.json" and page.html == run / "report.html"
    assert json.loads(page.saved_results.read_text()) == json.loads(json.dumps(page.results))
    assert page.submission is None and page.submitted == 0  # validation is not submitted to EvalAI
    again = mmmu_eval.report_run(run)
    assert not again.run.rebuilt and again.saved_results is None  # read back, not written again
    with pytest.raises(ConfigError, match="--image-budget-mb"):
        mmmu_eval.report_run(run, html=True, image_budget_mb=-1)


def test_compare_takes_paths_or_loaded_runs(runs):
    by_path = mmmu_eval.compare(runs / "random", runs / "frequent", bootstrap=200)
    loaded = [mmmu_eval.load_run(runs / name) for name in ("random", "frequent")]
    by_run = mmmu_eval.compare(*loaded, bootstrap=200, labels=("r", "f"))
    assert isinstance(by_path, mmmu_eval.Comparison)
    assert by_path.label_a == str(runs / "random") and (by_run.label_a, by_run.label_b) == ("r", "f")
    assert (by_path.difference, by_path.ci95, by_path.p_value) == (by_run.difference, by_run.ci95, by_run.p_value)
    assert by_path.shared == 40 and by_path.difference == pytest.approx(by_path.acc_a - by_path.acc_b)


def test_merge_joins_and_scores_through_the_one_writer(runs, tmp_path):
    merged = mmmu_eval.merge([runs / "shard2", runs / "shard1"], tmp_path / "merged")
    assert isinstance(merged, mmmu_eval.MergedRun) and merged.complete and merged.shards == 2
    assert merged.score is not None and merged.score.saved
    assert json.loads((tmp_path / "merged" / "results.json").read_text())["overall"]["n"] == 40
    joined_only = mmmu_eval.merge([runs / "shard1", runs / "shard2"], tmp_path / "joined", score=False)
    assert joined_only.score is None and not (tmp_path / "joined" / "results.json").exists()


def test_rescore_outputs_writes_only_what_is_asked_and_nothing_for_an_unscored_file(tmp_path):
    rows = [{"id": "validation_Accounting_2", "response": "The answer is (B)."},
            {"id": "validation_Art_3", "response": "C"}]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(row) + "\n" for row in rows))
    view = mmmu_eval.rescore_outputs(answers, data="sample", benchmark="mmmu")
    assert isinstance(view, mmmu_eval.Rescored) and view.json_file is None and view.run is None
    assert view.document["overall"]["total"] == 2 and view.ci95 is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.jsonl"]

    found = mmmu_eval.rescore_outputs(answers, data="sample", benchmark="mmmu", json_file=tmp_path / "s.json",
                                      out=tmp_path / "run", html=False)
    assert json.loads(found.json_file.read_text()) == json.loads(json.dumps(found.document))
    assert found.run.run_dir == tmp_path / "run" and (tmp_path / "run" / "results.json").is_file()

    unscored = tmp_path / "page.html"  # a file of the wrong kind: no row of it can be scored
    unscored.write_text("<!doctype html>\n<html><body>not JSONL</body></html>\n")
    assert mmmu_eval.rescore_outputs(unscored, format="official-mmmu-pro").accuracy is None  # a view: no error
    with pytest.raises(DataError, match="no row could be scored"):
        mmmu_eval.rescore_outputs(unscored, format="official-mmmu-pro", json_file=tmp_path / "u.json",
                                  out=tmp_path / "u")
    assert not (tmp_path / "u.json").exists() and not (tmp_path / "u").exists()


def test_every_command_call_works_inside_a_running_event_loop(runs, tmp_path):
    """A notebook cell runs inside an event loop: the calls must not start one of their own there."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "validation_Art_3", "response": "C"}) + "\n")

    async def cell() -> list[object]:
        assert asyncio.get_running_loop() is not None
        return [
            mmmu_eval.score_run(runs / "random"),
            mmmu_eval.load_run(runs / "random"),
            mmmu_eval.report_run(runs / "random"),
            mmmu_eval.compare(runs / "random", runs / "frequent", bootstrap=50),
            mmmu_eval.merge([runs / "shard1", runs / "shard2"], tmp_path / "m"),
            mmmu_eval.rescore_outputs(rows, data="sample", benchmark="mmmu"),
            mmmu_eval.diagnose(runs / "random", published=58.6),
        ]

    results = asyncio.run(cell())
    assert [type(r).__name__ for r in results] == [
        "RunScore", "FinishedRun", "RunReport", "Comparison", "MergedRun", "Rescored", "Diagnosis"]


def test_the_writers_the_cli_calls_name_the_flag_when_they_cannot_write(runs, tmp_path):
    from mmmu_eval.doctor.save_diagnosis import save_diagnosis

    nowhere = tmp_path / "no-such-folder" / "doctor.json"
    with pytest.raises(ConfigError, match="--json .*cannot write"):
        save_diagnosis(mmmu_eval.diagnose(runs / "random"), nowhere)
    written = save_diagnosis(mmmu_eval.diagnose(runs / "random"), tmp_path / "doctor.json")
    assert json.loads(written.read_text())["run"]


def test_the_audit_writer_names_the_flag_and_writes_both_files(runs, tmp_path):
    from mmmu_eval.auditing.save_audit import save_audit

    found = mmmu_eval.audit([runs / "random", runs / "frequent"], data="sample", irt=False)
    with pytest.raises(ConfigError, match="--html .*cannot write"):
        save_audit(found, html_file=tmp_path / "no-such-folder" / "audit.html")
    written = save_audit(found, json_file=tmp_path / "audit.json", html_file=tmp_path / "audit.html")
    assert [p.name for p in written] == ["audit.json", "audit.html"]
    assert json.loads(written[0].read_text()) == json.loads(json.dumps(found.to_json()))
    assert written[1].read_text().lower().startswith("<!doctype html>")
