"""On resume, a truncated answer is an answer: it is scored and never asked again (api.FINISHED).

A model that ran out of tokens answered; asking it again with the same settings would spend the
same tokens for the same cut-off text. Only errors and items never asked are asked again.
"""

from __future__ import annotations

from fakes.scripted_backend import ScriptedBackend
from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import BackendError
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore

RUN = {"benchmark": "mmmu", "split": "dev", "data": "sample", "display": NullDisplay(), "html": False}
IDS = [it.id for it in load_benchmark("mmmu", split="dev", data="sample").items][:4]


def test_resume_asks_the_errors_again_but_not_the_truncated_answers(tmp_path):
    out = tmp_path / "run"
    cut = Response("x", "truncated", text="The answer is (A", finish_reason="length")
    first = evaluate(model=ScriptedBackend(["A", cut, BackendError("HTTP 503"), cut]), ids=IDS, out=out, **RUN)
    assert first.counts == {"items": 4, "ok": 1, "truncated": 2, "error": 1, "missing": 0}

    second = ScriptedBackend(["B"])
    again = evaluate(model=second, ids=IDS, out=out, resume=True, **RUN)
    assert [r.item_id for r in second.asked] == [IDS[2]], "only the error is asked again, never a truncated answer"
    assert again.counts == {"items": 4, "ok": 2, "truncated": 2, "error": 0, "missing": 0}
    stored = RunStore.read(out).responses()
    assert [stored[i].status for i in IDS] == ["ok", "truncated", "ok", "truncated"]
