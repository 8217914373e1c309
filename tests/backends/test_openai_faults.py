"""The OpenAI backend against a real HTTP server on loopback that fails at a high rate.

Every item must come back exactly once with its own answer; an item the server never answers
must come back as an ``error`` record, never as answer text.
"""

from __future__ import annotations

import json

import pytest
from fakes.fault_server import FAULTS, FaultServer, expected_answer, request_key

from mmmu_eval.backends.openai_api import OpenAIBackend, build_messages
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.config import RunConfig
from mmmu_eval.dataset.load import load_dataset
from mmmu_eval.prompt.protocol import EvalProtocol, build_request
from mmmu_eval.records import Request, TextPart

# Fast retries; an attempt that stalls is cut at 0.4 s.
FAST = RetryPolicy(max_attempts=6, base_delay=0.001, max_delay=0.01, timeout=0.4)


def key_of(request: Request) -> str:
    """The fault server's key for a request, computed from the body the backend builds."""
    messages, _ = build_messages(request)
    return request_key({"messages": messages})


def sample_requests() -> list[Request]:
    config = RunConfig(model="openai:fake-model", benchmark="mmmu", data="sample")
    dataset = load_dataset("mmmu", split="validation", data="sample")
    protocol = EvalProtocol.from_config(config)
    return [build_request(item, protocol) for item in dataset.items]


async def collect(backend: OpenAIBackend, requests: list[Request]) -> list:
    try:
        await backend.preflight(requests)
        return [r async for r in backend.generate(requests)]
    finally:
        await backend.aclose()


async def test_every_sample_item_answered_exactly_once_through_every_fault():
    requests = sample_requests()
    assert len({key_of(r) for r in requests}) == len(requests), "keys must tell items apart"
    with FaultServer(fault_rate=0.7, max_faults=3, stall=2.0) as server:
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
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=8,
                                policy=RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01, timeout=0.4))
        responses = {r.item_id: r async for r in backend.generate(requests)}
        await backend.aclose()
    assert len(responses) == 20
    errors = {i for i, r in responses.items() if r.status == "error"}
    assert errors == {"validation_Math_4", "validation_Math_12"}
    for item_id in errors:
        r = responses[item_id]
        assert (r.text, r.attempts, r.error) == ("", 4, "HTTP 500: injected 500")
    assert all(r.text == expected_answer(key_of(q)) for q in requests
               if (r := responses[q.item_id]).status == "ok")


async def test_several_endpoints_share_the_work():
    requests = [Request(f"dev_Art_{n}", parts=(TextPart(f"q{n}"),)) for n in range(60)]
    with FaultServer(fault_rate=0.3, latency=0.01, faults=("500", "drop")) as one, \
            FaultServer(fault_rate=0.3, latency=0.01, faults=("429", "not-json")) as two:
        backend = OpenAIBackend("fake-model", base_urls=[one.url, two.url], api_key="k", concurrency=4, policy=FAST)
        responses = await collect(backend, requests)
        served = (one.stats["answered"], two.stats["answered"])
    assert len(responses) == 60 and all(r.status == "ok" for r in responses)
    assert sum(served) - 2 == 60, "one preflight probe each, then every item answered once"
    assert min(served) >= 15, f"both endpoints took work: {served}"


async def test_preflight_retries_through_faults_and_sends_one_probe():
    with FaultServer(fault_rate=0.9, max_faults=2) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", policy=FAST)
        await backend.preflight(sample_requests())
        await backend.aclose()
        assert server.stats["answered"] == 1


async def test_run_through_the_runner_stores_each_item_once_and_scores_no_error(tmp_path):
    """The whole pipeline (``evaluate_async``: store, runner, scorer) over the faulty server."""
    api = pytest.importorskip("mmmu_eval.api", reason="the runner's evaluate API has not landed yet")
    from mmmu_eval.progress import NullDisplay

    requests = sample_requests()
    doomed_ids = {requests[0].item_id, requests[7].item_id}
    doomed = frozenset(key_of(r) for r in requests if r.item_id in doomed_ids)
    with FaultServer(fault_rate=0.7, max_faults=3, stall=2.0, always_fail=doomed) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=16,
                                policy=FAST)
        result = await api.evaluate_async(model=backend, benchmark="mmmu", split="validation", data="sample",
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
