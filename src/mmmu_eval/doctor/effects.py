"""Expected effects of the causes found in a run: how far each moved the figure, not how far it could.

``doctor.causes`` counts what a cause concerns and bounds it (every concerned wrong answer right).
A bound blames a cause for the whole gap whenever it is large enough, which is rarely what
happened. An effect here is the expected change of the figure, in points, had the cause not been
there, with a plausible range (a 95% normal range of the counterfactual answers, clipped to the
bound):

- ``unparsed``: each random fallback scored at its expected value (1/options) instead of its draw;
- ``truncated`` and ``refusal``: each such answer scored at the run's own accuracy on the
  answers that finished;
- ``sampling``: a token limit moves the figure only through the answers it cut (the truncated
  ones, so it shares their items); other sampling settings have no known direction (expected 0,
  range one re-sample's spread);
- ``errors`` and ``coverage``: unscored items at the run's accuracy move the expected figure by
  nothing; the range is their sampling spread;
- ``judge`` / ``parser`` (a rescored harness): the harness's verdict on each differing item,
  exactly (this is the harness's figure minus ours);
- ``prompt`` and ``images``: no size can be read from one run (``expected`` None).

Causes over the same items are combined over the union of their items: each item takes one
counterfactual (the first of ``PRIORITY`` that holds it), so no item counts twice.
"""

from __future__ import annotations

import math
from fractions import Fraction
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mmmu_eval.core.records import Item, Response, is_refusal
from mmmu_eval.doctor.causes import Cause
from mmmu_eval.core.numbers import pct, rounded
from mmmu_eval.scoring.scorer import Scoring

__all__ = ["Effect", "PRIORITY", "combine", "run_effects"]

#: z for a 95% range.
Z = 1.96

#: Which counterfactual an item takes when several causes hold it (first wins).
PRIORITY = ("judge", "parser", "truncated", "sampling", "refusal", "unparsed")


@dataclass(frozen=True)
class Effect:
    """One cause's expected effect on the figure, in points (positive: the figure would be higher)."""

    cause: str
    where: str
    """``run`` (found in the run's files) or ``published`` (from the published figure's protocol)."""
    expected: float | None
    """Expected change in points had the cause not been there; None when its size is not known."""
    low: float | None
    high: float | None
    basis: str
    """How the expected value was computed, in words a reviewer can check."""
    bound: float | None = None
    """The worst case toward the gap (``doctor.causes``' points), labelled as a bound."""
    items: int = 0
    deltas: Mapping[str, tuple[float, float]] = field(default_factory=dict, repr=False)
    """Item id -> (expected change of its verdict, its variance), for the union."""
    extra: float = 0.0
    """A 95% half-width (points) beyond the items' own variance (sampling settings' spread)."""

    def to_json(self) -> dict[str, Any]:
        r = (lambda x: None if x is None else rounded(x, 4))
        return {"cause": self.cause, "where": self.where, "expected": r(self.expected), "low": r(self.low),
                "high": r(self.high), "bound": r(self.bound), "items": self.items, "basis": self.basis}


def _item_effect(cause: Cause, deltas: dict[str, tuple[float, float]], n: int, basis: str) -> Effect:
    """An effect from per-item expected changes: the sum, and a 95% range clipped to the bound."""
    mean = sum(d for d, _ in deltas.values())
    sd = math.sqrt(sum(v for _, v in deltas.values()))
    low, high = mean - Z * sd, mean + Z * sd
    # an item judged wrong can only gain, one judged right only lose: the worst cases clip the range
    up_bound = sum(1 for i in deltas if i in cause.wrong)
    down_bound = sum(1 for i in deltas if i in cause.right)
    low, high = max(low, -down_bound), min(high, up_bound)
    scale = 100.0 / n if n else 0.0
    return Effect(cause.cause, "run", mean * scale, low * scale, high * scale, basis, cause.points, cause.items, deltas)


def run_effects(
    causes: Sequence[Cause],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    results: Mapping[str, Any],
) -> list[Effect]:
    """The expected effect of each cause ``doctor.causes`` found, in the order given."""
    verdicts = scoring.verdicts[scoring.parsers[0]]
    scored = {it.id: bool(verdicts[it.id].correct) for it in items
              if it.id in verdicts and it.answer is not None and it.id in responses and responses[it.id].status != "error"}
    n = len(scored)
    cut = {i for i in scored if responses[i].status == "truncated" or responses[i].finish_reason == "length"
           or is_refusal(responses[i]) or _unclosed(responses[i])}
    finished = [scored[i] for i in scored if i not in cut]
    p_fin = sum(finished) / len(finished) if finished else 0.0
    p_all = sum(scored.values()) / n if n else 0.0
    by = {c.cause: c for c in causes}
    out: list[Effect] = []
    for cause in causes:
        ids = sorted(cause.wrong | cause.right)
        if cause.cause == "unparsed":
            deltas = {}
            for i in ids:
                k = verdicts[i].n_choices
                if verdicts[i].fallback and k:
                    deltas[i] = (1.0 / k - scored[i], (1.0 / k) * (1 - 1.0 / k))
            out.append(_item_effect(cause, deltas, n, f"{len(deltas)} random fallbacks at their expected value "
                                    f"(1/options each) instead of their draw ({cause.detail.get('fallback_hits', 0)} hit)"))
        elif cause.cause in ("truncated", "refusal"):
            deltas = {i: (p_fin - scored[i], p_fin * (1 - p_fin)) for i in ids}
            out.append(_item_effect(cause, deltas, n, f"{len(ids)} answers at the run's accuracy on the answers that "
                                    f"finished ({pct(Fraction(sum(finished), len(finished)) if finished else 0, 2)}%)"))
        elif cause.cause == "sampling":
            out.append(_sampling(cause, by.get("truncated"), p_fin, p_all, n))
        elif cause.cause in ("errors", "coverage"):
            left = cause.items
            spread = _unscored_spread(p_all, n, left, finite=cause.cause == "coverage",
                                      full=(cause.detail.get("full_set") or n + left))
            out.append(Effect(cause.cause, "run", 0.0, -spread, spread,
                              f"{left} items unscored, at the run's own accuracy: no expected change; range their "
                              "sampling spread", cause.points, left))
        elif cause.cause in ("judge", "parser"):
            out.append(_harness(cause, results, n))
        else:  # prompt, images: one run cannot size them
            out.append(Effect(cause.cause, "run", None, None, None,
                              "not measurable from this run alone (a run without the difference would measure it)",
                              cause.points, cause.items))
    return out


def _unclosed(r: Response) -> bool:
    for text in (r.text, r.reasoning or ""):
        if "<think>" in text and "</think>" not in text.rpartition("<think>")[2]:
            return True
    return False


def _sampling(cause: Cause, truncated: Cause | None, p_fin: float, p_all: float, n: int) -> Effect:
    """A token limit acts only through the answers it cut (the truncated items, shared with that
    cause); temperature, top_p and seed have no known direction: expected 0, range one re-sample's spread."""
    differs = dict(cause.detail.get("differs") or {})
    others = sorted(k for k in differs if k != "max_tokens")
    spread = 100.0 * Z * math.sqrt(p_all * (1 - p_all) / n) if n and others else 0.0
    said = []
    deltas: dict[str, tuple[float, float]] = {}
    mean = low = high = 0.0
    if "max_tokens" in differs:
        limit = differs["max_tokens"]["run"]
        if truncated is None:
            said.append(f"max_tokens {limit}: no answer was cut, so the limit moved nothing")
        else:
            ids = sorted(truncated.wrong | truncated.right)
            deltas = {i: (p_fin - (1.0 if i in truncated.right else 0.0), p_fin * (1 - p_fin)) for i in ids}
            eff = _item_effect(truncated, deltas, n, "")
            mean, low, high = eff.expected or 0.0, eff.low or 0.0, eff.high or 0.0
            said.append(f"max_tokens {limit} acts through the {len(ids)} answers cut (the truncated items, "
                        "counted once with them)")
    if others:
        said.append(f"{', '.join(others)} {'differ' if len(others) > 1 else 'differs'} from the official scripts: no known direction, range one "
                    "re-sample's spread")
        low, high = mean - math.hypot(mean - low, spread), mean + math.hypot(high - mean, spread)
    bound = truncated.points if (truncated is not None and not others) else (cause.points if others else 0.0)
    return Effect("sampling", "run", mean, low, high, "; ".join(said), bound, cause.items if others else len(deltas),
                  deltas, spread)


def _unscored_spread(p: float, n: int, left: int, *, finite: bool, full: int) -> float:
    """Half-width (points) of the figure's move had ``left`` more items been scored at accuracy ``p``."""
    if not n or not left:
        return 0.0
    total = n + left
    if finite:  # a subset of a finite set: the spread of the subset's mean about the full set's
        return 100.0 * Z * math.sqrt(p * (1 - p) / n * max(full - n, 0) / max(full - 1, 1))
    return 100.0 * Z * math.sqrt(left * p * (1 - p)) / total


def _harness(cause: Cause, results: Mapping[str, Any], n: int) -> Effect:
    section = results.get("harness") or {}
    deltas = {}
    for row in section.get("items") or ():
        if (row["cause"] == "judge") == (cause.cause == "judge"):
            deltas[row["id"]] = (float(row["harness"]["correct"]) - float(row["official"]["correct"]), 0.0)
    mean = 100.0 * sum(d for d, _ in deltas.values()) / n if n else 0.0
    return Effect(cause.cause, "run", mean, mean, mean,
                  f"the harness's own verdicts on the {len(deltas)} items where they differ from ours (exact)",
                  cause.points, cause.items, deltas)


def combine(effects: Sequence[Effect], n: int) -> dict[str, Any]:
    """The effects together: item-level ones over the union of their items (one counterfactual
    per item, by ``PRIORITY``), the others added; ranges added in quadrature (independent causes)."""
    chosen: dict[str, tuple[float, float]] = {}
    rank = {name: k for k, name in enumerate(PRIORITY)}
    for eff in sorted((e for e in effects if e.deltas), key=lambda e: rank.get(e.cause, len(rank))):
        for i, d in eff.deltas.items():
            chosen.setdefault(i, d)
    scale = 100.0 / n if n else 0.0
    mean = sum(d for d, _ in chosen.values()) * scale
    var_low = var_high = (Z * math.sqrt(sum(v for _, v in chosen.values())) * scale) ** 2
    for e in effects:
        if e.deltas and e.extra:
            var_low += e.extra ** 2
            var_high += e.extra ** 2
    sized = [e for e in effects if not e.deltas and e.expected is not None]
    for e in sized:
        mean += e.expected
        var_low += (e.expected - (e.low if e.low is not None else e.expected)) ** 2
        var_high += ((e.high if e.high is not None else e.expected) - e.expected) ** 2
    listed = sum(len(e.deltas) for e in effects if e.deltas)
    return {"expected": mean, "low": mean - math.sqrt(var_low), "high": mean + math.sqrt(var_high),
            "union_items": len(chosen), "listed_items": listed,
            "unsized": [e.cause for e in effects if e.expected is None]}
