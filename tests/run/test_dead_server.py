"""A server that breaks down mid-run: the run stops early, keeps what was answered, and resumes.

The server breaks after a fixed number of requests (``break_after``), not after a time, so what
the first session answers is the same on an idle laptop and on a loaded CI machine.
"""

from __future__ import annotations

import json
from collections import Counter

from fakes.fault_server import FaultServer

from mmmu_eval.run.pipeline import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.run.runner import STOP_AFTER_FAILED_IN_A_ROW

# Two tries per item; no request here ever stalls, so the timeout only guards against a hang.
QUICK = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.01, timeout=60.0)
ANSWERED_BEFORE_THE_BREAK = 5


def backend(url: str) -> OpenAIBackend:
    return OpenAIBackend("fake-model", base_urls=[url], api_key="k", concurrency=2, policy=QUICK)


async def test_a_server_that_breaks_down_stops_the_run_and_the_same_command_finishes_it(tmp_path):
    """Before, every remaining item spent its full retries on the broken server before the run ended."""
    out = tmp_path / "run"
    settings = dict(benchmark="mmmu", split="validation", data="sample", out=out, display=NullDisplay(), html=False)
    # The preflight probe and five items are answered; every chat request after them gets HTTP 500.
    with FaultServer(fault_rate=0.0, break_after=1 + ANSWERED_BEFORE_THE_BREAK) as server:
        first = await evaluate_async(model=backend(server.url), **settings)
    assert first.exit_status == 1
    total = first.counts["items"]
    assert first.counts["ok"] == ANSWERED_BEFORE_THE_BREAK
    assert first.counts["error"] >= STOP_AFTER_FAILED_IN_A_ROW
    assert first.counts["missing"] > 0, "the items after the stop were left unasked"
    assert first.counts["ok"] + first.counts["error"] + first.counts["missing"] == total
    assert total - ANSWERED_BEFORE_THE_BREAK > STOP_AFTER_FAILED_IN_A_ROW, "the sample must outlast the stop"

    with FaultServer(fault_rate=0.0) as revived:
        second = await evaluate_async(model=backend(revived.url), resume=True, **settings)
    assert second.exit_status == 0 and second.counts["ok"] == total
    lines = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    ok_lines = Counter(line["item_id"] for line in lines if line["status"] == "ok")
    assert set(ok_lines) == set(first.manifest["item_ids"]) and set(ok_lines.values()) == {1}, \
        "every item answered once: the five answered before the break were not asked again"
    assert revived.received == 1 + total - ANSWERED_BEFORE_THE_BREAK, "one probe, then each unanswered item once"
