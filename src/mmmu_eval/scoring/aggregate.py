"""Accuracy tallies per subject, discipline and every other breakdown the report shows.

The official MMMU scorer averages per subject and then takes instance-weighted (micro) means for
disciplines and overall (official-protocol.md 5.8): that is exactly ``correct / n`` over the
pooled items, so each group here is a plain (n, correct) tally. Denominators are the predictions
present: an item without a verdict (a failed or missing response) drops out of every count, as a
missing prediction does in the official code.

>>> from mmmu_eval.dataset import load_benchmark
>>> from mmmu_eval.core.records import Response
>>> items = load_benchmark("mmmu", split="validation", data="sample").items
>>> from mmmu_eval.scoring.scorer import score_responses
>>> scoring = score_responses(items, {it.id: Response(it.id, "ok", text="The answer is (A).") for it in items})
>>> agg = aggregate(items, scoring.verdicts["official"])
>>> agg.overall.accuracy, agg.by_subject["Art"].n
(0.15, 4)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from mmmu_eval.dataset.subjects import DISCIPLINES
from mmmu_eval.core.records import Item, Verdict

#: Subjects in the official printing order: discipline by discipline (Sociology before Psychology).
_SUBJECT_ORDER: tuple[str, ...] = tuple(s for subs in DISCIPLINES.values() for s in subs)
_DIFFICULTY_ORDER: tuple[str, ...] = ("Easy", "Medium", "Hard")
_QUESTION_TYPE_ORDER: tuple[str, ...] = ("multiple-choice", "open")


@dataclass(frozen=True, slots=True)
class Tally:
    """How many items a group has and how many of them were judged correct."""

    n: int
    """Items with a verdict in the group."""
    correct: int
    """Of those, the ones judged correct."""

    @property
    def accuracy(self) -> float:
        """``correct / n``; 0.0 for an empty group (the official code's value for no samples)."""
        return self.correct / self.n if self.n else 0.0


@dataclass(frozen=True)
class Aggregate:
    """Every breakdown of one parser's verdicts; dict keys are in a fixed, readable order."""

    overall: Tally
    """All items with a verdict."""
    by_discipline: dict[str, Tally]
    """Discipline -> tally, in the official discipline order, only those present."""
    by_subject: dict[str, Tally]
    """Subject -> tally, in the official order (discipline by discipline), only those present."""
    by_img_type: dict[str, Tally]
    """Image category -> tally, alphabetical; an item with several categories counts in each."""
    by_difficulty: dict[str, Tally]
    """``Easy``/``Medium``/``Hard`` (then any other value); items without one are left out."""
    by_question_type: dict[str, Tally]
    """``multiple-choice`` and ``open``."""
    by_option_count: dict[str, Tally]
    """Number of options as a string (``"4"``), ascending, then ``"open"`` for open questions."""


def aggregate(items: Sequence[Item], verdicts: Mapping[str, Verdict]) -> Aggregate:
    """Tally ``verdicts`` over ``items`` by every breakdown.

    Args:
        items: the evaluated items (they give subject, discipline, img_type ...).
        verdicts: item id -> verdict of one parser. Items without a verdict are left out of
            every count; verdicts for ids not among ``items`` are ignored.

    Returns:
        The Aggregate; ``overall`` is the instance-weighted accuracy over the scored items.

    >>> from mmmu_eval.dataset import load_benchmark
    >>> from mmmu_eval.core.records import Response
    >>> items = load_benchmark("mmmu", split="validation", data="sample").items
    >>> from mmmu_eval.scoring.scorer import score_responses
    >>> scoring = score_responses(items, {it.id: Response(it.id, "ok", text="The answer is (A).") for it in items})
    >>> aggregate(items, scoring.verdicts["official"]).by_discipline["Business"].accuracy
    0.25
    """
    scored = [(item, verdicts[item.id].correct) for item in items if item.id in verdicts]
    return Aggregate(
        overall=_tally(scored, lambda it: ("all",)).get("all", Tally(0, 0)),
        by_discipline=_ordered(_tally(scored, lambda it: (it.discipline,)), tuple(DISCIPLINES)),
        by_subject=_ordered(_tally(scored, lambda it: (it.subject,)), _SUBJECT_ORDER),
        by_img_type=_ordered(_tally(scored, lambda it: tuple(dict.fromkeys(it.img_type))), ()),
        by_difficulty=_ordered(
            _tally(scored, lambda it: (it.topic_difficulty,) if it.topic_difficulty else ()),
            _DIFFICULTY_ORDER,
        ),
        by_question_type=_ordered(_tally(scored, lambda it: (it.question_type,)), _QUESTION_TYPE_ORDER),
        by_option_count=_by_option_count(scored),
    )


def _tally(scored: Iterable[tuple[Item, bool]], keys: Callable[[Item], Iterable[str]]) -> dict[str, Tally]:
    n: dict[str, int] = {}
    correct: dict[str, int] = {}
    for item, ok in scored:
        for key in keys(item):
            n[key] = n.get(key, 0) + 1
            correct[key] = correct.get(key, 0) + int(ok)
    return {key: Tally(n[key], correct[key]) for key in n}


def _ordered(groups: dict[str, Tally], order: Sequence[str]) -> dict[str, Tally]:
    """``groups`` with the known keys first in ``order``, then any others alphabetically."""
    known = [k for k in order if k in groups]
    rest = sorted(k for k in groups if k not in set(order))
    return {k: groups[k] for k in known + rest}


def _by_option_count(scored: Sequence[tuple[Item, bool]]) -> dict[str, Tally]:
    groups = _tally(scored, lambda it: ("open",) if it.question_type == "open" else (str(len(it.options)),))
    counts = sorted((k for k in groups if k != "open"), key=int)
    return {k: groups[k] for k in counts + (["open"] if "open" in groups else [])}
