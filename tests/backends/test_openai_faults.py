"""The OpenAI backend against a real HTTP server on loopback that fails at a high rate.

Every item must come back exactly once with its own answer; an item the server never answers
must come back as an ``error`` record, never as answer text.

Nothing here depends on how fast a loaded machine answers: every step is driven by what the
server has received. A stalled request is held until the server has finished another request
since, or holds nothing but stalls, and then closed without an answer (``FaultServer(stall=None)``),
so no attempt waits on a clock; the attempt timeout (``ATTEMPT_TIMEOUT``) only guards against a
hang and is never reached. Where the test needs one endpoint stuck, the server holds its
requests (``hold_after``) until the test releases them. (The timeout itself is tested in
``test_retry_loop.py``, on a call that never returns.)
"""

from __future__ import annotations

import asyncio
import json
import time

from fakes.fault_server import FAULTS, FaultServer, expected_answer, key_of, sample_requests

from mmmu_eval.run.pipeline import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.core.records import Request, TextPart

#: Seconds before an attempt is given up: a guard against a hang, never what ends a stall.
ATTEMPT_TIMEOUT = 300.0
FAST = RetryPolicy(max_attempts=6, base_delay=0.001, max_delay=0.01, timeout=ATTEMPT_TIMEOUT)


async def collect(backend: OpenAIBackend, requests: list[Request]) -> list:
    try:
        await backend.preflight(requests)
        return [r async for r in backend.generate(requests)]
    finally:
        await backend.aclose()


async def test_every_sample_item_answered_exactly_once_through_every_fault():
    requests = sample_requests()
    assert len({key_of(r) for r in requests}) == len(requests), "keys must tell items apart"
    with FaultServer(fault_rate=0.7, max_faults=3) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=16, policy=FAST)
        responses = await collect(backend, requests)
        stats = dict(server.stats)
        attempts = dict(server.attempts)
    ids = [r.item_id for r in responses]
    assert sorted(ids) == sorted(r.item_id for r in requests) and len(set(ids)) == len(ids)
    by_id = {r.item_id: r for r in responses}
    for request in requests:
        response = by_id[request.item_id]
        assert response.status == "ok", response
        assert response.text == expected_answer(key_of(request))
        assert response.attempts == attempts[key_of(request)], "each attempt the server saw is counted"
    injected = {kind for kind in FAULTS if stats.get(kind)}
    assert injected == set(FAULTS), f"every fault kind was exercised: {stats}"
    assert sum(stats.get(k, 0) for k in FAULTS) >= len(requests) // 2, "faults at a high rate"


async def test_items_the_server_never_answers_are_errors_not_answers():
    requests = [Request(f"validation_Math_{n}", parts=(TextPart(f"question {n}"),)) for n in range(1, 21)]
    doomed = {key_of(requests[3]), key_of(requests[11])}
    with FaultServer(fault_rate=0.5, always_fail=frozenset(doomed)) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=8, policy=FAST)
        responses = {r.item_id: r async for r in backend.generate(requests)}
        await backend.aclose()
    assert len(responses) == 20
    errors = {i for i, r in responses.items() if r.status == "error"}
    assert errors == {"validation_Math_4", "validation_Math_12"}
    for item_id in errors:
        r = responses[item_id]
        assert (r.text, r.attempts, r.error) == ("", FAST.max_attempts, "HTTP 500: injected 500")
    assert all(r.text == expected_answer(key_of(q)) for q in requests
               if (r := responses[q.item_id]).status == "ok")


async def test_a_stuck_endpoint_holds_only_its_own_requests_and_the_other_takes_the_rest():
    """Two endpoints share one queue of work: while one holds every request after its first
    answer, the other answers everything else, and the stuck one keeps at most its concurrency."""
    requests = [Request(f"dev_Art_{n}", parts=(TextPart(f"q{n}"),)) for n in range(60)]
    concurrency = 4
    # A held request must outlive the wait below, so this test's attempts never time out.
    patient = RetryPolicy(max_attempts=6, base_delay=0.001, max_delay=0.01, timeout=120.0)
    # The stuck endpoint answers its probe and one item (its first two requests), then holds.
    with FaultServer(hold_after=2, fault_rate=0.0) as stuck, \
            FaultServer(fault_rate=0.3, latency=0.01, faults=("500", "drop", "429", "not-json")) as free:
        backend = OpenAIBackend("fake-model", base_urls=[stuck.url, free.url], api_key="k",
                                concurrency=concurrency, policy=patient)
        await backend.preflight(requests)  # one probe each: the stuck server's first request
        got: list = []

        async def consume() -> None:
            async for response in backend.generate(requests):
                got.append(response)

        consumer = asyncio.create_task(consume())
        deadline = time.monotonic() + 60
        while len(got) + stuck.holding < len(requests):
            assert time.monotonic() < deadline, f"{len(got)} answers and {stuck.holding} held after 60 s"
            assert not consumer.done(), consumer
            await asyncio.sleep(0.01)
        held = stuck.holding
        stuck.release()
        await asyncio.wait_for(consumer, 60)
        await backend.aclose()
        answered = {"stuck": set(stuck.answered), "free": set(free.answered)}
    by_id = {r.item_id: r for r in got}
    assert len(got) == len(by_id) == len(requests)
    assert all((by_id[q.item_id].status, by_id[q.item_id].text) == ("ok", expected_answer(key_of(q))) for q in requests)
    keys = {key_of(r) for r in requests}
    on_stuck, on_free = answered["stuck"] & keys, answered["free"] & keys
    assert 1 <= held <= concurrency, "the stuck endpoint's workers each held one request"
    assert len(on_stuck) <= 1 + concurrency, "one answer before the hold, then only what it held"
    assert on_stuck | on_free == keys and not on_stuck & on_free, "every item answered by one endpoint"


async def test_preflight_retries_through_faults_and_sends_one_probe():
    """The probe asks whether the server takes the request; any 200 says it does, so the faults
    here are the ones that are no 200 (a malformed 200 is the items' problem, retried there)."""
    requests = sample_requests()
    with FaultServer(fault_rate=0.9, max_faults=2, faults=("429", "500", "503", "drop", "stall")) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", policy=FAST)
        await backend.preflight(requests)
        await backend.aclose()
        attempts = dict(server.attempts)
    (probe_key,) = attempts  # one probe, asked again after each fault; never an item's request
    assert probe_key not in {key_of(r) for r in requests}
    planned = [server.plan(probe_key, n) for n in range(attempts[probe_key])]
    assert planned[-1] is None and all(planned[:-1]), f"retried exactly through its faults: {planned}"
    assert len(planned) > 1, "the seed gives the probe at least one fault, or this proves nothing"


async def test_run_through_the_runner_stores_each_item_once_and_scores_no_error(tmp_path):
    """The whole pipeline (``evaluate_async``: store, runner, scorer) over the faulty server."""
    requests = sample_requests()
    doomed_ids = {requests[0].item_id, requests[7].item_id}
    doomed = frozenset(key_of(r) for r in requests if r.item_id in doomed_ids)
    with FaultServer(fault_rate=0.7, max_faults=3, always_fail=doomed) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=16,
                                policy=FAST)
        result = await evaluate_async(model=backend, benchmark="mmmu", split="validation", data="sample",
                                      out=tmp_path / "run", display=NullDisplay())
    lines = [json.loads(line) for line in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()]
    ids = [line["item_id"] for line in lines]
    assert sorted(ids) == sorted(r.item_id for r in requests), "every item stored exactly once"
    by_id = {line["item_id"]: line for line in lines}
    for request in requests:
        line = by_id[request.item_id]
        if request.item_id in doomed_ids:
            assert (line["status"], line["text"]) == ("error", "") and line["error"].startswith("HTTP 500")
        else:
            assert (line["status"], line["text"]) == ("ok", expected_answer(key_of(request)))
    assert result.counts["error"] == 2 and result.counts["missing"] == 0
    assert result.exit_status == 1, "errors remain for --resume"
    assert result.results["overall"]["n"] == len(requests) - 2, "errors are never scored"
