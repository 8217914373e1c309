"""A server that breaks down mid-run: the run stops early, keeps what was answered, and resumes."""

from __future__ import annotations

import asyncio

from fakes.fault_server import FaultServer

from mmmu_eval.api import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.progress import NullDisplay
from mmmu_eval.runner import STOP_AFTER_FAILED_IN_A_ROW

QUICK = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.01, timeout=0.5)


def backend(url: str) -> OpenAIBackend:
    return OpenAIBackend("fake-model", base_urls=[url], api_key="k", concurrency=2, policy=QUICK)


async def test_a_server_that_breaks_down_stops_the_run_and_the_same_command_finishes_it(tmp_path):
    """Before, every remaining item spent its full retries on the broken server before the run ended."""
    out = tmp_path / "run"
    settings = dict(benchmark="mmmu", split="validation", data="sample", out=out, display=NullDisplay(), html=False)
    with FaultServer(fault_rate=0.0, latency=0.01) as server:

        async def break_after_some_answers() -> None:
            while server.stats["answered"] < 6:  # the preflight probe, then five items
                await asyncio.sleep(0.002)
            server.break_down()

        breaker = asyncio.create_task(break_after_some_answers())
        first = await evaluate_async(model=backend(server.url), **settings)
        await breaker
    assert first.exit_status == 1
    total = first.counts["items"]
    assert first.counts["error"] >= STOP_AFTER_FAILED_IN_A_ROW
    assert first.counts["missing"] > 0, "the items after the stop were left unasked"
    assert first.counts["ok"] + first.counts["error"] + first.counts["missing"] == total

    with FaultServer(fault_rate=0.0) as revived:
        second = await evaluate_async(model=backend(revived.url), resume=True, **settings)
    assert second.exit_status == 0 and second.counts["ok"] == total
    assert revived.stats["answered"] == 1 + total - first.counts["ok"], "only failed and unasked items asked again"
