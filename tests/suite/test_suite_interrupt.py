"""Ctrl-C in the middle of a suite: every run keeps what it stored, and the same call finishes it."""

from __future__ import annotations

import asyncio
import json
import signal
from collections import Counter
from typing import AsyncIterator, Sequence

import pytest

from mmmu_eval.core.records import Request, Response
from mmmu_eval.suite.execute import SuiteInterrupted, evaluate_suite

from .conftest import quiet


class InterruptingBackend:
    """Answers "A"; after ``after`` answers over all runs, delivers a real SIGINT (Ctrl-C)."""

    spec = "interrupting"

    def __init__(self, after: int | None) -> None:
        self.after, self.answered = after, 0

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            if self.after is not None and self.answered == self.after:
                signal.raise_signal(signal.SIGINT)
                await asyncio.sleep(5)  # the loop's SIGINT handler cancels us here
            await asyncio.sleep(0.001)
            self.answered += 1
            yield Response(request.item_id, "ok", text="The answer is (A).")

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, object]:
        return {"backend": "interrupting"}


def test_ctrl_c_keeps_every_runs_answers_and_the_same_call_finishes_the_suite(tmp_path):
    args = dict(data="sample", prompts="direct", out=tmp_path / "s", display=quiet(), bootstrap=20, html=False)
    with pytest.raises(SuiteInterrupted, match="run the same command again"):
        evaluate_suite(model=InterruptingBackend(after=30), **args)
    manifests = {p.name: json.loads((p / "manifest.json").read_text()) for p in (tmp_path / "s").iterdir() if p.is_dir()}
    assert manifests and all(m["status"] == "interrupted" for m in manifests.values())
    stored_before = sum(m["counts"]["ok"] for m in manifests.values())
    assert stored_before == 30

    again = InterruptingBackend(after=None)
    result = evaluate_suite(model=again, **args)
    assert result.exit_status == 0 and again.answered == 3 * 24 + 40 - 30
    for name in result.summary["runs"]:
        lines = [json.loads(x) for x in (tmp_path / "s" / name / "responses.jsonl").read_text().splitlines()]
        assert max(Counter(x["item_id"] for x in lines).values()) == 1, name
