"""Expected effects of the causes found in a run: how far each moved the figure, not how far it could.

``doctor.causes`` counts what a cause concerns and bounds it (every concerned wrong answer right).
A bound blames a cause for the whole gap whenever it is large enough, which is rarely what
happened. An effect here is the expected change of the figure, in points, had the cause not been
there, with a plausible range. Each concerned item gets a counterfactual: its chance of being
right without the cause.

- ``unparsed``: each random fallback at its expected value (1/options) instead of its draw;
- ``truncated`` and ``refusal``: each such answer at the run's own accuracy on the answers that
  finished;
- ``sampling``: a token limit moves the figure only through the answers it cut (the truncated
  ones, which count there); other sampling settings have no known direction (expected 0, range
  one re-sample's spread);
- ``errors`` and ``coverage``: unscored items at the run's accuracy move the expected figure by
  nothing; the range is their sampling spread;
- ``judge`` / ``parser`` (a rescored harness): the harness's verdict on each differing item,
  exactly (this is the harness's figure minus ours), except where the difference is only our
  own random letter against the harness's: that item is ``unparsed``'s, at its expected value;
- ``prompt`` and ``images``: no size can be read from one run (``expected`` None).

One computation serves every figure the doctor prints. Each item the causes concern takes one
counterfactual, that of the first cause of ``PRIORITY`` holding it (``attribute``), and each
cause's expected effect is the sum over the items it holds that way plus what it adds beside
items (a spread, a measured shift): so the causes' effects add up exactly to the causes
together (``combine``), and a cause that shares its items says under which cause they count.
Every range, of one cause or of several together, is made one way (``Size.range``): the central
95% of the counterfactual outcomes, exactly (``stats.outcomes``), so it never passes what the
items can do, and one cause alone has the same range as the causes together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, NamedTuple

from mmmu_eval.core.numbers import pct, rounded
from mmmu_eval.core.records import Item, Response, is_refusal
from mmmu_eval.doctor.causes import Cause
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.stats.outcomes import central_range

__all__ = ["NOTHING_BESIDE", "PRIORITY", "Counterfactual", "Effect", "Size", "attribute", "combine", "exact_beside",
           "run_effects", "spread_beside"]

#: z for a 95% range, and its coverage.
Z = 1.96
LEVEL = 0.95

#: Which counterfactual an item takes when several causes hold it (first wins). The causes
#: outside the run come last, so the run's own effects read the same with or without a published figure.
PRIORITY = ("judge", "parser", "truncated", "sampling", "refusal", "unparsed", "data_revision")


class Counterfactual(NamedTuple):
    """One item's verdict had a cause not been there."""

    chance: float
    """The chance the item is right in the counterfactual (1/options for a random letter, the
    run's accuracy for a cut answer, 0 or 1 for a harness's own verdict)."""
    correct: bool
    """The run's verdict now."""

    @property
    def delta(self) -> float:
        """The expected change of the item's verdict (1 right, 0 wrong)."""
        return self.chance - self.correct


@dataclass(frozen=True)
class Size:
    """What an effect adds to the figure, in points: its items' counterfactuals, a spread beside
    them and a change known exactly. Sizes add (independent parts); the range of a sum is made as
    the range of one part (``stats.outcomes.central_range``)."""

    scale: float = 0.0
    """Points per item (100 / items scored)."""
    chances: tuple[Counterfactual, ...] = ()
    shift: float = 0.0
    """Points known exactly beside the items (a measured difference of two figures)."""
    sd: float = 0.0
    """Standard deviation (points) of a normal spread beside the items (a re-sample's, unscored items')."""

    @property
    def mean(self) -> float:
        return self.shift + self.scale * sum(c.delta for c in self.chances)

    def __add__(self, other: Size) -> Size:
        if self.chances and other.chances and abs(self.scale - other.scale) > 1e-12:
            raise ValueError("sizes of figures over different numbers of items do not add")
        return Size(self.scale if self.chances else other.scale, self.chances + other.chances,
                    self.shift + other.shift, math.hypot(self.sd, other.sd))

    def range(self) -> tuple[float, float]:
        """The central 95% of the counterfactual outcomes: never past what the items can do."""
        return central_range([c.chance for c in self.chances], [c.correct for c in self.chances],
                             scale=self.scale, sd=self.sd, shift=self.shift, level=LEVEL)

    @classmethod
    def of(cls, effect: Effect, held: frozenset[str], n: int) -> Size:
        """An effect's part: the counterfactuals of the items it holds (in points of a figure over
        ``n`` items) and what it adds beside them."""
        shift, sd = effect.beside or NOTHING_BESIDE
        chances = tuple(Counterfactual(*effect.deltas[i]) for i in sorted(held))
        return cls(100.0 / n if n else 0.0, chances, shift, sd)


#: ``Effect.beside`` of an effect that adds nothing beside its items (but is sized by them, even when it holds none).
NOTHING_BESIDE = (0.0, 0.0)


def spread_beside(half_width: float) -> tuple[float, float]:
    """``Effect.beside`` for no expected change and a normal spread of 95% half-width ``half_width`` points."""
    return 0.0, half_width / Z


def exact_beside(value: float) -> tuple[float, float]:
    """``Effect.beside`` for a change known exactly (a measured difference of two figures)."""
    return value, 0.0


@dataclass(frozen=True)
class Effect:
    """One cause's expected effect on the figure, in points (positive: the figure would be higher)."""

    cause: str
    """The cause's name (``Cause.cause``, or one outside the run: ``best_of``, ``prompt``,
    ``snapshot``, ``data_revision``)."""
    where: str
    """``run`` (found in the run's files) or ``published`` (from the published figure's protocol)."""
    expected: float | None
    """Expected change in points had the cause not been there; None when its size is not known."""
    low: float | None
    """The low end of its 95% plausible range, in points; None when not known."""
    high: float | None
    """The high end of its 95% plausible range, in points; None when not known."""
    basis: str
    """How the expected value was computed, in words a reviewer can check."""
    bound: float | None = None
    """The worst case toward the gap (``doctor.causes``' points), labelled as a bound."""
    items: int = 0
    """Items it concerns."""
    deltas: Mapping[str, tuple[float, bool]] = field(default_factory=dict, repr=False)
    """Item id -> its counterfactual under this cause (``Counterfactual``: the chance it is right
    without the cause, its verdict now), for every item the cause concerns."""
    beside: tuple[float, float] | None = None
    """``(shift, sd)`` in points: what the effect adds beside its items (a measured shift; the
    standard deviation of a re-sample's or unscored items' spread); None with no item either: the
    size is not known."""
    yields: frozenset[str] = field(default=frozenset(), repr=False)
    """Items this cause leaves to another cause that holds them (a harness difference that is
    only our own random letter against the harness's: ``unparsed``'s)."""
    counted: int = 0
    """Items whose counterfactual this effect carries in the union (``attribute``)."""
    elsewhere: Mapping[str, int] = field(default_factory=dict)
    """Cause -> how many of this cause's items are counted under it instead."""

    @property
    def sized(self) -> bool:
        return bool(self.deltas) or self.beside is not None

    def to_json(self) -> dict[str, Any]:
        r = (lambda x: None if x is None else rounded(x, 4))
        return {"cause": self.cause, "where": self.where, "expected": r(self.expected), "low": r(self.low),
                "high": r(self.high), "bound": r(self.bound), "items": self.items, "counted": self.counted,
                "elsewhere": dict(self.elsewhere), "basis": self.basis}


def _holders(effects: Sequence[Effect]) -> dict[str, str]:
    """Item id -> the cause whose counterfactual it takes: the first of ``PRIORITY`` holding it
    that does not yield it (else the first holding it)."""
    rank = {name: k for k, name in enumerate(PRIORITY)}
    ordered = sorted((e for e in effects if e.deltas), key=lambda e: rank.get(e.cause, len(rank)))
    holder: dict[str, str] = {}
    for e in ordered:
        for i in e.deltas:
            if i not in holder and i not in e.yields:
                holder[i] = e.cause
    for e in ordered:
        for i in e.deltas:
            holder.setdefault(i, e.cause)
    return holder


def attribute(effects: Sequence[Effect], n: int) -> list[Effect]:
    """Each effect sized over the items it holds (``_holders``) plus what it adds beside them, so
    that the effects add up to ``combine``'s total; the order and the unsized effects are kept."""
    holder = _holders(effects)
    out = []
    for e, size in _parts(effects, n):
        if size is None:
            out.append(e)
            continue
        low, high = size.range()
        elsewhere: dict[str, int] = {}
        for i in e.deltas:
            if holder[i] != e.cause:
                elsewhere[holder[i]] = elsewhere.get(holder[i], 0) + 1
        out.append(replace(e, expected=size.mean, low=low, high=high, counted=len(size.chances), elsewhere=elsewhere))
    return out


def _parts(effects: Sequence[Effect], n: int) -> list[tuple[Effect, Size | None]]:
    """Each effect with its part of the union (None: its size is not known)."""
    holder = _holders(effects)
    return [(e, Size.of(e, frozenset(i for i in e.deltas if holder[i] == e.cause), n) if e.sized else None)
            for e in effects]


def combine(effects: Sequence[Effect], n: int) -> dict[str, Any]:
    """The effects together: the sum of their parts as ``attribute`` sizes them (each item once),
    its range made as each part's is."""
    total = sum((size for _, size in _parts(effects, n) if size is not None), Size())
    low, high = total.range()
    return {"expected": total.mean, "low": low, "high": high,
            "union_items": len(_holders(effects)), "listed_items": sum(len(e.deltas) for e in effects),
            "unsized": [e.cause for e in effects if not e.sized]}


def run_effects(
    causes: Sequence[Cause],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    results: Mapping[str, Any],
) -> list[Effect]:
    """The expected effect of each cause ``doctor.causes`` found, in the order given, sized by ``attribute``."""
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
                    deltas[i] = Counterfactual(1.0 / k, scored[i])
            out.append(Effect("unparsed", "run", None, None, None,
                              f"{len(deltas)} random fallbacks at their expected value (1/options each) instead of "
                              f"their draw ({cause.detail.get('fallback_hits', 0)} hit)", cause.points, cause.items, deltas, beside=NOTHING_BESIDE))
        elif cause.cause in ("truncated", "refusal"):
            deltas = {i: Counterfactual(p_fin, scored[i]) for i in ids}
            out.append(Effect(cause.cause, "run", None, None, None,
                              f"{len(ids)} answers at the run's accuracy on the answers that finished "
                              f"({pct(Fraction(sum(finished), len(finished)) if finished else 0, 2)}%)",
                              cause.points, cause.items, deltas, beside=NOTHING_BESIDE))
        elif cause.cause == "sampling":
            out.append(_sampling(cause, by.get("truncated"), p_fin, p_all, n))
        elif cause.cause in ("errors", "coverage"):
            left = cause.items
            spread = _unscored_spread(p_all, n, left, finite=cause.cause == "coverage",
                                      full=(cause.detail.get("full_set") or n + left))
            out.append(Effect(cause.cause, "run", None, None, None,
                              f"{left} items unscored, at the run's own accuracy: no expected change; range their "
                              "sampling spread", cause.points, left,
                              beside=spread_beside(spread)))
        elif cause.cause in ("judge", "parser"):
            out.append(_harness(cause, results))
        else:  # prompt, images: one run cannot size them
            out.append(Effect(cause.cause, "run", None, None, None,
                              "not measurable from this run alone (a run without the difference would measure it)",
                              cause.points, cause.items))
    return attribute(out, n)


def _unclosed(r: Response) -> bool:
    for text in (r.text, r.reasoning or ""):
        if "<think>" in text and "</think>" not in text.rpartition("<think>")[2]:
            return True
    return False


def _sampling(cause: Cause, truncated: Cause | None, p_fin: float, p_all: float, n: int) -> Effect:
    """A token limit acts only through the answers it cut (the truncated items: ``truncated``
    holds them, so they count once, there); temperature, top_p and seed have no known direction:
    expected 0, range one re-sample's spread."""
    differs = dict(cause.detail.get("differs") or {})
    others = sorted(k for k in differs if k != "max_tokens")
    spread = 100.0 * Z * math.sqrt(p_all * (1 - p_all) / n) if n and others else 0.0
    said = []
    deltas: dict[str, Counterfactual] = {}
    if "max_tokens" in differs:
        limit = differs["max_tokens"]["run"]
        if truncated is None:
            said.append(f"max_tokens {limit}: no answer was cut, so the limit moved nothing")
        else:
            right = truncated.right
            deltas = {i: Counterfactual(p_fin, i in right) for i in sorted(truncated.wrong | right)}
            said.append(f"max_tokens {limit} acts through the {len(deltas)} answers cut (the truncated items, "
                        "counted there)")
    if others:
        said.append(f"{', '.join(others)} {'differ' if len(others) > 1 else 'differs'} from the official scripts: no "
                    "known direction, range one re-sample's spread")
    bound = truncated.points if (truncated is not None and not others) else (cause.points if others else 0.0)
    return Effect("sampling", "run", None, None, None, "; ".join(said), bound, cause.items if others else len(deltas),
                  deltas, beside=spread_beside(spread))


def _unscored_spread(p: float, n: int, left: int, *, finite: bool, full: int) -> float:
    """Half-width (points) of the figure's move had ``left`` more items been scored at accuracy ``p``."""
    if not n or not left:
        return 0.0
    total = n + left
    if finite:  # a subset of a finite set: the spread of the subset's mean about the full set's
        return 100.0 * Z * math.sqrt(p * (1 - p) / n * max(full - n, 0) / max(full - 1, 1))
    return 100.0 * Z * math.sqrt(left * p * (1 - p)) / total


def _harness(cause: Cause, results: Mapping[str, Any]) -> Effect:
    """The harness's own verdicts on the items where they differ from ours; a difference that is
    only our random letter against the harness's is yielded to ``unparsed`` (both are draws)."""
    section = results.get("harness") or {}
    deltas: dict[str, Counterfactual] = {}
    draws = set()
    for row in section.get("items") or ():
        ours = row["official"]["correct"]
        if (row["cause"] == "judge") != (cause.cause == "judge") or ours is None:
            continue  # None: an item we did not score (a failed request), the errors cause's
        deltas[row["id"]] = Counterfactual(float(row["harness"]["correct"]), bool(ours))
        if row["cause"] == "fallback" and row["official"].get("fallback"):
            draws.add(row["id"])
    basis = f"the harness's own verdicts on the {len(deltas)} item{'' if len(deltas) == 1 else 's'} where they differ from ours (exact)"
    if draws:
        basis += (f"; on {len(draws)} of them only the random letters differ, ours and the harness's: "
                  f"{'it counts' if len(draws) == 1 else 'those count'} as unparsed, our draw at its expected value")
    return Effect(cause.cause, "run", None, None, None, basis, cause.points, cause.items, deltas,
                  beside=NOTHING_BESIDE, yields=frozenset(draws))
