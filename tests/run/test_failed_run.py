"""A run an exception the runner does not take as an item's failure ends: its manifest says
``failed`` with the exception (bounded), the exception reaches the caller unchanged, and
``report``, ``read_run``, the doctor and the same command again each say what happened.

Before: the manifest kept ``status: "running"`` and every reader took the dead run for a live one.
"""

from __future__ import annotations

import json

import pytest

from fakes.scripted_backend import Raise, ScriptedBackend
from mmmu_eval.cli.main import main
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.results.finished_run import read_run
from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.run.progress import NullDisplay

QUIET = {"display": NullDisplay(), "html": False}
DEV = {"benchmark": "mmmu", "split": "dev", "data": "sample"}
IDS = [it.id for it in load_benchmark("mmmu", split="dev", data="sample").items][:5]


class PluginBug(RuntimeError):
    """What a plug-in's own bug raises: no error the runner knows."""


class ClosingFails(ScriptedBackend):
    """Answers everything, then raises from ``aclose`` (a custom backend's cleanup bug)."""

    async def aclose(self) -> None:
        raise OSError("the model server's socket could not be closed")


def manifest(out) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_a_run_an_unexpected_exception_ends_says_failed_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    bug = PluginBug("pipeline step exploded \x1b[2J" + "x" * 5000)
    with pytest.raises(PluginBug) as raised:
        evaluate(model=ScriptedBackend(["A", "B", Raise(bug)]), ids=IDS, out=out, **QUIET, **DEV)
    assert raised.value is bug, "the caller gets the exception itself"
    written = manifest(out)
    assert written["status"] == "failed" and written["ended_at"]
    assert written["failure"]["type"] == f"{__name__}.PluginBug"
    assert written["failure"]["message"].startswith("pipeline step exploded \x1b[2Jxxx") and len(written["failure"]["message"]) < 1100
    assert written["counts"] == {"items": 5, "ok": 2, "truncated": 0, "error": 0, "missing": 3}

    lacking, problem = read_run(out, rebuild=False).lacking, read_run(out, rebuild=False).problem
    assert lacking == 5 and problem.startswith("has no results.json (the run did not finish): the run failed (")
    assert "PluginBug: pipeline step exploded" in problem and "run the same command again (or add --resume)" in problem

    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr()
    assert "the run failed (" in printed.err and "PluginBug: pipeline step exploded" in printed.err
    assert "\x1b" not in printed.err + printed.out, "the message is outside text: escaped"
    assert main(["doctor", str(out)]) == 0
    printed = capsys.readouterr()
    assert "the run failed (" in printed.err and "\x1b" not in printed.err + printed.out

    rest = ScriptedBackend(["C", "D", "E"])
    result = evaluate(model=rest, ids=IDS, out=out, resume=True, **QUIET, **DEV)
    assert [r.item_id for r in rest.asked] == IDS[2:] and result.counts["ok"] == 5
    resumed = manifest(out)
    assert resumed["status"] == "complete" and "failure" not in resumed and resumed["sessions"] == 2
    assert read_run(out).problem is None


def test_a_backend_that_fails_to_close_leaves_a_failed_run_not_a_running_one(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(OSError, match="socket could not be closed"):
        evaluate(model=ClosingFails(["A", "B", "C"]), ids=IDS[:3], out=out, **QUIET, **DEV)
    written = manifest(out)
    assert written["status"] == "failed" and written["failure"] == {
        "type": "OSError", "message": "the model server's socket could not be closed"}
    assert written["counts"]["ok"] == 3


def test_system_exit_in_a_model_function_is_recorded_and_still_exits(tmp_path):
    """A custom model function's ``Exception`` is its item's error; ``SystemExit`` is not one."""
    out = tmp_path / "run"

    def model(messages):
        raise SystemExit(3)

    with pytest.raises(SystemExit) as raised:
        evaluate(model=model, ids=IDS[:2], out=out, **QUIET, **DEV)
    assert raised.value.code == 3
    written = manifest(out)
    assert written["status"] == "failed" and written["failure"] == {"type": "SystemExit", "message": "3"}


def test_a_bug_while_writing_the_results_fails_the_run(tmp_path, monkeypatch):
    import mmmu_eval.run.pipeline as pipeline

    def broken(*args, **kwargs):
        raise KeyError("coverage")

    monkeypatch.setattr(pipeline, "report", broken)
    out = tmp_path / "run"
    with pytest.raises(KeyError):
        evaluate(model=ScriptedBackend(["A", "B"]), ids=IDS[:2], out=out, **QUIET, **DEV)
    written = manifest(out)
    assert written["status"] == "failed" and written["failure"] == {"type": "KeyError", "message": "'coverage'"}
