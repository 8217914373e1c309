"""A run's usage section: what the fault server reported and how often it had to be asked."""

from __future__ import annotations

import json

from fakes.fault_server import FaultServer
from fakes.parquet_rows import mmmu_row, write_mmmu

from mmmu_eval.run.pipeline import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.run.progress import NullDisplay


async def test_results_json_sums_tokens_retries_and_prices_them(tmp_path):
    root = tmp_path / "snap"
    rows = [mmmu_row(f"validation_Art_{k}", question=f"Question {k} <image 1>") for k in range(1, 13)]
    rows.append(mmmu_row("validation_Art_13", question="See <image 5>."))  # cannot be built: never sent
    write_mmmu(root, "Art", "validation", rows)
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.5, faults=("500", "503"), max_faults=2) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=4,
                                policy=RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01))
        result = await evaluate_async(model=backend, benchmark="mmmu", data=str(root), subjects=("Art",), out=out,
                                      display=NullDisplay(), html=False, price_input=3.0, price_output=15.0)
        posts = sum(n for key, n in server.attempts.items() if "Question " in key)  # not the preflight probe
        probe_keys = [key for key in server.attempts if "Question " not in key]
        probe_attempts = sum(server.attempts[key] for key in probe_keys)
        probe_bytes = server.chat_bytes - sum(len(json.dumps(b, separators=(",", ":")).encode())
                                              for b in server.bodies if "Question " in json.dumps(b))
    usage = json.loads((out / "results.json").read_text())["usage"]
    stored = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    sent = [r for r in stored if r["item_id"] != "validation_Art_13"]
    assert (usage["requests"], usage["errors"], usage["not_sent"]) == (12, 1, 1)
    assert usage["attempts"] == sum(r["attempts"] for r in sent) == posts
    assert usage["retries"] == usage["attempts"] - 12 > 0
    # The preflight's one probe is counted apart, and its tokens (as the server reported them) are in the totals.
    assert len(probe_keys) == 1
    probe_tokens = len(probe_keys[0]) // 4 + 1
    assert usage["preflight"] == {"probes": 1, "attempts": probe_attempts, "bytes": probe_bytes // probe_attempts,
                                  "prompt_tokens": probe_tokens, "completion_tokens": 6}
    assert result.manifest["preflight"] == usage["preflight"]
    assert usage["prompt_tokens"] == sum(r["prompt_tokens"] for r in sent) + probe_tokens
    assert usage["completion_tokens"] == 6 * 12 + 6 and usage["reasoning_tokens"] is None
    assert usage["latency_s"]["p50"] <= usage["latency_s"]["p95"] <= usage["latency_s"]["max"]
    cost = usage["cost"]
    assert cost["total_usd"] == usage["prompt_tokens"] * 3.0 / 1e6 + 78 * 15.0 / 1e6
    assert result.manifest["config"]["price_input"] == 3.0 and result.manifest["config"]["price_output"] == 15.0


async def test_a_resumed_run_adds_its_sessions_probe_to_the_first(tmp_path):
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "validation", [mmmu_row(f"validation_Art_{k}", question=f"Q{k} <image 1>") for k in range(1, 7)])
    out = tmp_path / "run"
    options = dict(benchmark="mmmu", data=str(root), subjects=("Art",), out=out, display=NullDisplay(), html=False)
    policy = RetryPolicy(max_attempts=1, base_delay=0.001, max_delay=0.01)
    with FaultServer(fault_rate=0.0, break_after=4) as broken:  # the probe and 3 items, then HTTP 500
        await evaluate_async(model=OpenAIBackend("fake-model", base_urls=[broken.url], api_key="k", concurrency=1,
                                                 policy=policy), **options)
        first = broken.chat_bytes - sum(len(json.dumps(b, separators=(",", ":")).encode()) for b in broken.bodies[1:])
    with FaultServer(fault_rate=0.0) as healthy:
        await evaluate_async(model=OpenAIBackend("fake-model", base_urls=[healthy.url], api_key="k", policy=policy),
                             resume=True, **options)
        second = len(json.dumps(healthy.bodies[0], separators=(",", ":")).encode())
    preflight = json.loads((out / "results.json").read_text())["usage"]["preflight"]
    assert preflight["probes"] == 2 and preflight["attempts"] == 2 and preflight["bytes"] == first + second
