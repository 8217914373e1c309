"""What a run (or a suite of runs) cost: requests, retries, tokens, latency, and dollars.

``usage_summary`` reads nothing but Response records, so a run sums its own responses and a
suite sums the responses of all its runs together. Token counts are what the servers reported
(``usage`` of each completion); a server that reports none leaves the count None rather than a
guessed zero. Reasoning tokens are part of the completion tokens (OpenAI's
``completion_tokens_details.reasoning_tokens``), so they are shown, never added again.

The preflight's probe requests (one per endpoint each time a run starts, before its first
request) are counted apart (``preflight``: probes, attempts, bytes) and their reported tokens
are added to the token totals and so to the cost: a paid API charges for them too. The run
records them in its manifest's ``preflight`` (``add_probes``).

An item whose request could not be built (a missing image) is stored as an ``error`` response
with the note ``records.NOT_SENT``: it is counted among the errors, but no request went out for it.

>>> responses = [Response("a", "ok", text="A", prompt_tokens=1000, completion_tokens=10),
...              Response("b", "ok", text="B", prompt_tokens=3000, completion_tokens=30)]
>>> usage_summary(responses, price_input=2.5, price_output=10.0)["cost"]["total_usd"]   # USD per million tokens
0.0104
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from mmmu_eval.core.config import PRICE_PER_TOKENS
from mmmu_eval.core.records import NOT_SENT, Response

__all__ = ["Cost", "Latency", "Preflight", "Usage", "add_probes", "cost", "percentile", "summed_probes", "usage_rows",
           "usage_summary"]


class Latency(TypedDict):
    """Seconds from a request's first attempt to its final answer, over the answered requests."""

    p50: float
    p95: float
    max: float


class Cost(TypedDict):
    """Dollars at the prices the user gave; a part is None when its price or its tokens are unknown."""

    price_input_per_million: float | None
    price_output_per_million: float | None
    input_usd: float | None
    """prompt_tokens x price_input / 1e6."""
    output_usd: float | None
    """completion_tokens (reasoning included) x price_output / 1e6."""
    total_usd: float | None
    """input_usd + output_usd, when both are known."""


class Preflight(TypedDict):
    """The probe requests a run's preflight sent, over all its sessions (manifest ``preflight``)."""

    probes: int
    attempts: int
    bytes: int
    """Their JSON bodies, once per probe (as the dry run counts them)."""
    prompt_tokens: int | None
    completion_tokens: int | None


class Usage(TypedDict):
    """The ``usage`` section of results.json (and, summed over runs, of suite.json)."""

    requests: int
    """Requests sent: one per response, less those never sent (``not_sent``)."""
    attempts: int
    """Tries over those requests (a request retried twice counts 3)."""
    retries: int
    """attempts - requests."""
    errors: int
    """Responses with status ``error`` (never sent ones included)."""
    not_sent: int
    """Items whose request could not be built, so nothing was sent."""
    prompt_tokens: int | None
    """Sum over the responses (and preflight probes) that reported it; None when none did."""
    completion_tokens: int | None
    reasoning_tokens: int | None
    """Part of completion_tokens; None when no server reported it."""
    responses_with_usage: int
    """Responses that reported prompt or completion tokens (the sums cover only these)."""
    latency_s: Latency | None
    """None when no request was answered."""
    cost: Cost | None
    """None when no price was given."""
    preflight: Preflight | None
    """The preflight's probes (their tokens are in the totals above); None when none were recorded."""


def add_probes(earlier: Mapping[str, Any] | None, sent: Iterable[Mapping[str, Any]]) -> Preflight:
    """``earlier`` (a manifest's ``preflight``, or None) with the probes of one more preflight added."""
    return summed_probes(([earlier] if earlier else []) + [{"probes": 1, **probe} for probe in sent])


def summed_probes(parts: Iterable[Mapping[str, Any]]) -> Preflight:
    """Preflight records added up (a merged run's shards': ``run/merge_totals.py``)."""
    total: Preflight = {"probes": 0, "attempts": 0, "bytes": 0, "prompt_tokens": None, "completion_tokens": None}
    for part in parts:
        for key in ("probes", "attempts", "bytes"):
            total[key] += int(part.get(key) or 0)  # type: ignore[literal-required]
        for key in ("prompt_tokens", "completion_tokens"):
            if part.get(key) is not None:
                total[key] = (total[key] or 0) + int(part[key])  # type: ignore[literal-required]
    return total


def usage_summary(
    responses: Iterable[Response], *, price_input: float | None = None, price_output: float | None = None,
    preflight: Iterable[Mapping[str, Any] | None] = (),
) -> Usage:
    """Sum the usage of ``responses`` and, when prices are given, their cost.

    Args:
        responses: the stored responses (one per item: the last record of each).
        price_input: USD per million prompt tokens, or None.
        price_output: USD per million completion tokens (reasoning included), or None.
        preflight: each run's manifest ``preflight`` (None for a run that recorded none); a
            suite passes all its runs'.

    Returns:
        The Usage dict (see its fields). Latency percentiles are nearest-rank over the answered
        (``ok`` and ``truncated``) responses, so each is a latency that really occurred.
    """
    requests = attempts = errors = not_sent = reported = 0
    prompt: list[int] = []
    completion: list[int] = []
    reasoning: list[int] = []
    latencies: list[float] = []
    for r in responses:
        if r.status == "error":
            errors += 1
        if NOT_SENT in r.notes:
            not_sent += 1
            continue
        requests += 1
        attempts += r.attempts
        if r.prompt_tokens is not None or r.completion_tokens is not None:
            reported += 1
        if r.prompt_tokens is not None:
            prompt.append(r.prompt_tokens)
        if r.completion_tokens is not None:
            completion.append(r.completion_tokens)
        if r.reasoning_tokens is not None:
            reasoning.append(r.reasoning_tokens)
        if r.status != "error":
            latencies.append(r.latency_s)
    records = [record for record in preflight if record]
    probes = summed_probes(records) if records else None
    if probes is not None:
        if probes["prompt_tokens"] is not None:
            prompt.append(probes["prompt_tokens"])
        if probes["completion_tokens"] is not None:
            completion.append(probes["completion_tokens"])
    prompt_tokens = sum(prompt) if prompt else None
    completion_tokens = sum(completion) if completion else None
    latencies.sort()
    latency: Latency | None = None
    if latencies:
        latency = {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95), "max": latencies[-1]}
    return {
        "requests": requests,
        "attempts": attempts,
        "retries": attempts - requests,
        "errors": errors,
        "not_sent": not_sent,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "reasoning_tokens": sum(reasoning) if reasoning else None,
        "responses_with_usage": reported,
        "latency_s": latency,
        "cost": cost(prompt_tokens, completion_tokens, price_input=price_input, price_output=price_output),
        "preflight": probes,
    }


def cost(
    prompt_tokens: int | None, completion_tokens: int | None, *, price_input: float | None, price_output: float | None
) -> Cost | None:
    """Dollars for token counts at per-million prices; None when neither price is given."""
    if price_input is None and price_output is None:
        return None
    input_usd = None if price_input is None or prompt_tokens is None else prompt_tokens * price_input / PRICE_PER_TOKENS
    output_usd = None if price_output is None or completion_tokens is None else completion_tokens * price_output / PRICE_PER_TOKENS
    return {
        "price_input_per_million": price_input,
        "price_output_per_million": price_output,
        "input_usd": input_usd,
        "output_usd": output_usd,
        "total_usd": None if input_usd is None or output_usd is None else input_usd + output_usd,
    }


def usage_rows(usage: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) lines of a usage section, shared by the terminal and the HTML report."""

    def count(value: object) -> str:
        return "not reported" if value is None else f"{value:,}"

    rows = [
        ("requests", f"{usage['requests']:,}"),
        ("attempts (retries)", f"{usage['attempts']:,} ({usage['retries']:,})"),
        ("errors", f"{usage['errors']:,}" + (f", {usage['not_sent']} never sent" if usage.get("not_sent") else "")),
        ("prompt tokens", count(usage["prompt_tokens"])),
        ("completion tokens", count(usage["completion_tokens"])),
        ("of which reasoning", count(usage["reasoning_tokens"])),
    ]
    probes = usage.get("preflight")
    if probes:
        rows.insert(1, ("preflight probes (tokens in the totals)",
                        f"{probes['probes']:,} ({probes['attempts']:,} attempts, {probes['bytes']:,} B)"))
    latency = usage.get("latency_s")
    if latency:
        rows.append(("latency p50 / p95 / max", f"{latency['p50']:.2f} / {latency['p95']:.2f} / {latency['max']:.2f} s"))
    cost = usage.get("cost")
    if cost:
        prices = f"${_price(cost['price_input_per_million'])} in, ${_price(cost['price_output_per_million'])} out per million"
        rows.append(("cost", f"{_usd(cost['total_usd'])} ({_usd(cost['input_usd'])} in + {_usd(cost['output_usd'])} out; {prices})"))
    return rows


def percentile(ordered: list[float], p: float) -> float:
    """The nearest-rank p-th percentile of an ascending, non-empty list.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.0
    """
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _price(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"
