"""Issue 17, item 8: every file is written with the user's umask, like any other program's.

The atomic writes went through ``tempfile.mkstemp``, which makes 0600 files; the rename kept
that mode, so manifest.json, results.json, report.html, predictions.jsonl and suite.json were
unreadable to the group whatever the umask.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.harden.record import Record
from mmmu_eval.store.rundir import RunStore


@pytest.fixture(params=[0o022, 0o077, 0o002])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir() if p.is_file()}


def test_a_runs_files_follow_the_umask(tmp_path, umask):
    evaluate(model="random", data="sample", benchmark="mmmu", split="validation", out=tmp_path / "run", limit=4)
    found = modes(tmp_path / "run")
    assert {"manifest.json", "results.json", "predictions.jsonl", "report.html", "responses.jsonl"} <= set(found)
    assert found == dict.fromkeys(found, 0o666 & ~umask), found


def test_suite_and_harden_records_follow_the_umask(tmp_path, umask):
    RunStore(tmp_path, writable=True).write_json("suite.json", {"status": "complete"})
    Record({"steps": {}}).save(tmp_path)
    found = modes(tmp_path)
    assert found == {"suite.json": 0o666 & ~umask, "harden.json": 0o666 & ~umask}
