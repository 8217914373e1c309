"""Issue 17, item 4: a finished filter run again confirms it from the trial runs' manifests,
and writes nothing; a changed setting or a trial run that lacks answers goes the full way."""

from __future__ import annotations

import json

from mmmu_eval.harden import FilterSettings, harden_filter


def test_a_finished_filter_run_again_touches_nothing_and_says_the_same(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    settings = FilterSettings(models="frequent,random", trials=2, per_subject=0)
    first = harden_filter(mmmu_set, out, settings, display=quiet)
    written = {p.name: p.stat().st_mtime_ns for p in (out / "harden.json", out / "report.html")}
    again = harden_filter(mmmu_set, out, settings, display=quiet)
    assert {p.name: p.stat().st_mtime_ns for p in (out / "harden.json", out / "report.html")} == written
    assert (again.status, again.exit_status, again.problems) == (first.status, first.exit_status, first.problems)
    assert again.record.data == first.record.data


def test_a_changed_setting_or_a_cut_trial_run_is_not_taken_as_finished(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=2, per_subject=0), display=quiet)
    more = harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=3, per_subject=0), display=quiet)
    assert more.record.step("filter")["trials"] == 3 and len(more.record.step("filter")["runs"]) == 3
    responses = out / "runs" / "filter" / "m1-frequent" / "trial-03" / "responses.jsonl"
    lines = responses.read_text().splitlines(keepends=True)
    responses.write_text("".join(lines[:-2]))  # a kill before the last two answers were stored
    resumed = harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=3, per_subject=0), display=quiet)
    assert resumed.status == "complete"
    assert len(responses.read_text().splitlines()) == len(lines), "the two missing answers asked again"
    assert json.loads((out / "runs" / "filter" / "m1-frequent" / "trial-03" / "manifest.json").read_text())["status"] == "complete"
