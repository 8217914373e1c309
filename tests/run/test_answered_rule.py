"""Every count of "answered already" follows run/resume.py's one rule (FINISHED).

A run's resume, an interrupted run's message and harden's trial progress all once wrote the
rule themselves (two of them as "not an error"); here each is asked about the same directory
(ok, truncated, error, and one item never asked), so a change to the rule shows in all of them.
"""

from __future__ import annotations

from mmmu_eval.core.config import RunConfig
from mmmu_eval.harden.trials import _answered_before
from mmmu_eval.core.records import Item, Response
from mmmu_eval.run.pipeline import _stored_count
from mmmu_eval.run.resume import answered_before
from mmmu_eval.store.rundir import RunStore

IDS = ["a", "b", "c", "d"]


def _run_dir(tmp_path):
    out = tmp_path / "run"
    with RunStore.open(out, {"item_ids": IDS, "status": "interrupted"}, resume=False) as store:
        store.append(Response("a", "ok", text="A"))
        store.append(Response("b", "truncated", text="The answer is (B", finish_reason="length"))
        store.append(Response("c", "error", error="HTTP 503"))
    return out


def test_each_count_of_answered_items_keeps_truncated_answers_and_asks_errors_again(tmp_path):
    out = _run_dir(tmp_path)
    items = [Item(id=i, benchmark="mmmu", split="validation", setting=None, subject="Art", discipline="Art & Design",
                  question="?", options=("x", "y"), answer="A", question_type="multiple-choice", images=())
             for i in IDS]
    counts = {
        "resume": sorted(answered_before(out)),
        "interrupted": _stored_count(RunConfig(model="random", out=out)),
        "harden trials": _answered_before(out, items),
    }
    assert counts == {"resume": ["a", "b"], "interrupted": (2, 4), "harden trials": 2}
