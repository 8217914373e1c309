"""A run's usage section: what the fault server reported and how often it had to be asked."""

from __future__ import annotations

import json

from fakes.fault_server import FaultServer
from fakes.parquet_rows import mmmu_row, write_mmmu

from mmmu_eval.api import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.progress import NullDisplay


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
    usage = json.loads((out / "results.json").read_text())["usage"]
    stored = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    sent = [r for r in stored if r["item_id"] != "validation_Art_13"]
    assert (usage["requests"], usage["errors"], usage["not_sent"]) == (12, 1, 1)
    assert usage["attempts"] == sum(r["attempts"] for r in sent) == posts
    assert usage["retries"] == usage["attempts"] - 12 > 0
    assert usage["prompt_tokens"] == sum(r["prompt_tokens"] for r in sent)
    assert usage["completion_tokens"] == 6 * 12 and usage["reasoning_tokens"] is None
    assert usage["latency_s"]["p50"] <= usage["latency_s"]["p95"] <= usage["latency_s"]["max"]
    cost = usage["cost"]
    assert cost["total_usd"] == usage["prompt_tokens"] * 3.0 / 1e6 + 72 * 15.0 / 1e6
    assert result.manifest["config"]["price_input"] == 3.0 and result.manifest["config"]["price_output"] == 15.0
