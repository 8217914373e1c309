"""usage_summary (results/usage.py): requests, retries, tokens, latency percentiles, cost."""

from __future__ import annotations

import pytest

from mmmu_eval.core.records import NOT_SENT, Response
from mmmu_eval.results.usage import percentile, usage_summary


def answers() -> list[Response]:
    return [
        Response("a", "ok", text="A", prompt_tokens=100, completion_tokens=10, latency_s=1.0, attempts=1),
        Response("b", "ok", text="B", prompt_tokens=200, completion_tokens=30, reasoning_tokens=20, latency_s=3.0, attempts=3),
        Response("c", "truncated", text="", prompt_tokens=50, completion_tokens=60, latency_s=2.0, attempts=1),
        Response("d", "error", error="HTTP 500", latency_s=9.0, attempts=6),
        Response("e", "error", error="e: the question refers to <image 2> but the item has 1 image", notes=(NOT_SENT,)),
    ]


def test_counts_tokens_and_latency_of_the_sent_requests():
    usage = usage_summary(answers())
    assert (usage["requests"], usage["attempts"], usage["retries"], usage["errors"], usage["not_sent"]) == (4, 11, 7, 2, 1)
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["reasoning_tokens"]) == (350, 100, 20)
    assert usage["responses_with_usage"] == 3
    # answered requests only (a, b, c); nearest rank
    assert usage["latency_s"] == {"p50": 2.0, "p95": 3.0, "max": 3.0}
    assert usage["cost"] is None


def test_cost_at_per_million_prices():
    usage = usage_summary(answers(), price_input=2.5, price_output=10.0)
    assert usage["cost"] == {
        "price_input_per_million": 2.5,
        "price_output_per_million": 10.0,
        "input_usd": pytest.approx(350 * 2.5 / 1e6),
        "output_usd": pytest.approx(100 * 10.0 / 1e6),
        "total_usd": pytest.approx(350 * 2.5 / 1e6 + 100 * 10.0 / 1e6),
    }


def test_one_price_gives_its_part_and_no_total():
    cost = usage_summary(answers(), price_input=1.0)["cost"]
    assert cost["input_usd"] == pytest.approx(350e-6) and cost["output_usd"] is None and cost["total_usd"] is None


def test_counts_no_server_reported_are_none_not_zero():
    usage = usage_summary([Response("a", "ok", text="A", latency_s=0.5)], price_input=1.0, price_output=1.0)
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["reasoning_tokens"]) == (None, None, None)
    assert usage["cost"]["input_usd"] is None and usage["cost"]["total_usd"] is None
    assert usage["latency_s"] == {"p50": 0.5, "p95": 0.5, "max": 0.5}


def test_nothing_answered_has_no_latency():
    usage = usage_summary([])
    assert usage["requests"] == 0 and usage["latency_s"] is None and usage["prompt_tokens"] is None


def test_a_generator_of_several_runs_responses_is_summed_once():
    """The suite passes the responses of all its runs together, as one iterable."""
    runs = [answers(), answers()]
    usage = usage_summary(r for run in runs for r in run)
    assert usage["requests"] == 8 and usage["prompt_tokens"] == 700


@pytest.mark.parametrize(("p", "expected"), [(0, 1.0), (50, 2.0), (95, 20.0), (100, 20.0)])
def test_percentile_is_nearest_rank(p, expected):
    assert percentile([1.0, 2.0, 3.0, 20.0], p) == expected
