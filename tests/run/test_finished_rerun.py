"""Issue 17: a finished run, run again, sends no request at all and reports the same result.

The preflight (a model listing and one probe per endpoint) used to go out on every session, so
a finished suite or filter run again still reached the server once per run.
"""

from __future__ import annotations

from fakes.fault_server import FaultServer

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.run.resume import preflight_needed


def sent(server: FaultServer) -> tuple[int, int]:
    return server.received, server.listings


def test_a_finished_run_run_again_sends_nothing_and_says_the_same(tmp_path):
    with FaultServer(fault_rate=0.0) as server:
        args = dict(model="openai:fake-model", base_urls=[server.url], data="sample", benchmark="mmmu",
                    split="validation", out=tmp_path / "run", resume=True)
        first = evaluate(**args)
        before = sent(server)
        again = evaluate(**args)
        assert sent(server) == before, "no listing, no probe, no item asked"
    assert first.counts == again.counts and first.counts["missing"] == first.counts["error"] == 0
    assert again.results["overall"] == first.results["overall"]
    assert again.manifest["status"] == "complete" and again.manifest["backend"] == first.manifest["backend"]


def test_a_run_with_items_left_probes_then_asks_only_those(tmp_path):
    with FaultServer(fault_rate=0.0) as server:
        args = dict(model="openai:fake-model", base_urls=[server.url], data="sample", benchmark="mmmu",
                    split="validation", out=tmp_path / "run", resume=True)
        first = evaluate(**args, limit=3)
        received, listings = sent(server)
        evaluate(**args, limit=5)
        # One probe and the two new items; one listing.
        assert sent(server) == (received + 1 + 2, listings + 1)
    assert first.counts["items"] == 3


def test_the_preflight_rule():
    assert preflight_needed([object()]) and not preflight_needed([])
