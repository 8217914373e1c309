"""Score a run's responses: every parser, the fallback policy, aggregates and disagreements.

This is the pure scoring stage: items and responses in, a ``Scoring`` out; no files are read
or written (``mmmu-eval score`` and ``mmmu-eval rescore`` do the I/O around it).

Fallback policies (docs/scoring.md):

- ``official``: an unparseable multiple-choice answer gets a random letter from ONE
  ``random.Random(fallback_seed)`` per parser per run, drawn with items in alphabetical subject
  order and then by the number at the end of the id, one draw per fallback. With seed 42 this is
  exactly the official MMMU scorer's sequence (official-protocol.md 5.3). The official MMMU-Pro
  scorer never seeds its generator; we use the same seeded scheme for it, our choice.
- ``none``: an unparseable answer is simply wrong.

Under both, ``deterministic_correct`` counts fallbacks wrong and ``expected_correct`` credits
each fallback with 1/number-of-options, so every result can be read without the lottery.

>>> from mmmu_eval.dataset import load_benchmark
>>> from mmmu_eval.core.records import Response
>>> items = load_benchmark("mmmu", split="validation", data="sample").items
>>> responses = {it.id: Response(it.id, "ok", text="Not sure.") for it in items}   # nothing to parse
>>> scoring = score_responses(items, responses, parsers=("official", "strict"))
>>> scoring.fallbacks, scoring.deterministic_correct      # all 26 multiple-choice items fell back
(26, 0)
>>> scoring.aggregates["official"].overall.accuracy, scoring.aggregates["strict"].overall.accuracy
(0.25, 0.0)
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mmmu_eval.core.config import FALLBACK_POLICIES
from mmmu_eval.dataset.subjects import SUBJECTS
from mmmu_eval.core.errors import ConfigError, argument, did_you_mean
from mmmu_eval.core.records import Item, Response, Verdict, is_refusal
from mmmu_eval.scoring.aggregate import Aggregate, aggregate
from mmmu_eval.scoring.choices import OfficialCrash
from mmmu_eval.scoring.judge import PARSERS, RANDOM_FALLBACK, judge
from mmmu_eval.core.untrusted import capped, capped_or_none

log = logging.getLogger(__name__)

#: The official MMMU scorer's ``random.seed(42)``.
OFFICIAL_SEED = 42

_SUBJECT_RANK = {s: i for i, s in enumerate(SUBJECTS)}


@dataclass(frozen=True)
class Scoring:
    """Every parser's verdicts on one run, with the headline figures the report needs."""

    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    parsers: tuple[str, ...]
    """Parsers applied; the first is the headline parser (normally ``official``)."""
    fallback_policy: str
    """``official`` (seeded random letter) or ``none`` (unparseable counts wrong)."""
    fallback_seed: int
    """Seed of the fallback generator (42, the official MMMU seed, unless changed)."""
    verdicts: dict[str, dict[str, Verdict]]
    """Parser -> item id -> Verdict, in dataset order; also for items without a gold answer."""
    aggregates: dict[str, Aggregate]
    """Parser -> breakdowns over the items that have a gold answer."""
    deterministic_correct: int
    """Headline parser's correct answers with every fallback counted wrong."""
    expected_correct: float
    """``deterministic_correct`` plus 1/n_choices for each fallback: the lottery's expected value."""
    fallbacks: int
    """Headline parser's multiple-choice answers where it found no letter (graded items)."""
    errors: tuple[str, ...]
    """Ids whose response has status ``error``: never scored."""
    missing: tuple[str, ...]
    """Ids with no response at all."""
    disagreements: tuple[dict, ...] = ()
    """``{"id", "preds": {parser: pred}, "correct": {parser: bool}}`` where parsers judge differently."""
    ungraded: tuple[str, ...] = ()
    """Ids with a prediction but no gold answer (the test split): predictions only, not in aggregates."""
    problems: tuple[str, ...] = ()
    """``"<id>: <what>"`` for inputs the official code would crash on; those items are scored wrong."""


def score_responses(
    items: Sequence[Item],
    responses: Mapping[str, Response],
    *,
    parsers: Sequence[str] = ("official",),
    fallback: str = "official",
    fallback_seed: int = OFFICIAL_SEED,
) -> Scoring:
    """Judge every response with every parser.

    Args:
        items: the evaluated items, in dataset order.
        responses: item id -> Response. ``Response.text`` is what is parsed; status ``error`` is
            never scored; ``truncated`` is scored like ``ok``.
        parsers: names from ``judge.PARSERS``; the first is the headline.
        fallback: ``official`` or ``none`` (see the module docstring).
        fallback_seed: seed of each parser's fallback generator.

    Returns:
        The Scoring.

    Raises:
        ConfigError: an unknown parser or fallback policy.

    Examples:
        >>> from mmmu_eval.dataset import load_benchmark
        >>> from mmmu_eval.core.records import Response
        >>> items = load_benchmark("mmmu", split="validation", data="sample").items
        >>> scoring = score_responses(items, {it.id: Response(it.id, "ok", text="The answer is (A).") for it in items})
        >>> scoring.deterministic_correct, scoring.fallbacks
        (6, 0)
    """
    parsers = _check_parsers(parsers)
    if fallback not in FALLBACK_POLICIES:
        raise ConfigError(f"{argument('fallback', fallback)} is not one of {', '.join(FALLBACK_POLICIES)}")

    errors = tuple(it.id for it in items if it.id in responses and not responses[it.id].scorable)
    missing = tuple(it.id for it in items if it.id not in responses)
    scorable = [it for it in items if it.id in responses and responses[it.id].scorable]
    drawing_order = sorted(scorable, key=draw_key)
    graded = [it for it in items if it.answer is not None]

    verdicts: dict[str, dict[str, Verdict]] = {}
    problems: dict[str, str] = {}
    for name in parsers:
        rng = random.Random(fallback_seed) if fallback == "official" and name in RANDOM_FALLBACK else None
        judged: dict[str, Verdict] = {}
        for item in drawing_order:
            try:
                judged[item.id] = judge(item, answer_text(responses[item.id]), name, rng)
            except OfficialCrash as exc:
                problems.setdefault(item.id, f"{item.id}: {exc}; scored wrong")
                judged[item.id] = Verdict(item.id, name, None, False, False, len(item.options))
        verdicts[name] = {it.id: judged[it.id] for it in scorable}

    headline = verdicts[parsers[0]]
    graded_verdicts = [headline[it.id] for it in graded if it.id in headline]
    fallen = [v for v in graded_verdicts if v.fallback]
    deterministic = sum(1 for v in graded_verdicts if v.correct and not v.fallback)
    for problem in problems.values():
        log.warning(problem)
    return Scoring(
        benchmark=items[0].benchmark if items else "mmmu",
        parsers=parsers,
        fallback_policy=fallback,
        fallback_seed=fallback_seed,
        verdicts=verdicts,
        aggregates={name: aggregate(graded, verdicts[name]) for name in parsers},
        deterministic_correct=deterministic,
        expected_correct=deterministic + sum(1 / v.n_choices for v in fallen if v.n_choices),
        fallbacks=len(fallen),
        errors=errors,
        missing=missing,
        disagreements=_disagreements(scorable, verdicts) if len(parsers) > 1 else (),
        ungraded=tuple(it.id for it in scorable if it.answer is None),
        problems=tuple(problems.values()),
    )


def answer_text(response: Response) -> str:
    """The text the parsers read: the response's, except a refusal's, which answers nothing.

    A refusal ("I'm sorry, but I can't help with that.") is stored with its text, but its "I"
    is a pronoun, not option I: the parsers see no answer, so multiple choice gets the official
    random fallback and an open question is wrong, as for any answer that names no option.
    """
    return "" if is_refusal(response) else response.text


def draw_key(item: Item) -> tuple[int, str, int, str]:
    """Order of the official random draws: alphabetical subject, then the id's trailing number.

    Ties (MMMU-Pro mixes ``test_`` and ``validation_`` ids of one subject) fall back to the id.
    """
    tail = item.id.rsplit("_", 1)[-1]
    number = int(tail) if tail.isdigit() else -1
    return (_SUBJECT_RANK.get(item.subject, len(_SUBJECT_RANK)), item.subject, number, item.id)


def predictions_rows(scoring: Scoring, responses: Mapping[str, Response]) -> list[dict]:
    """``predictions.jsonl`` rows: ``{"id", "response", "pred"}`` per item with a response.

    Scored items come first in dataset order with the headline parser's prediction; items whose
    response failed follow with ``pred`` None. ``response`` and ``pred`` (an open question's is
    the answer's text) are copies, capped (``untrusted.capped``): the whole answer stays in
    responses.jsonl alone, and was scored whole.
    """
    rows = [
        {"id": item_id, "response": capped(responses[item_id].text), "pred": capped_or_none(verdict.pred)}
        for item_id, verdict in scoring.verdicts[scoring.parsers[0]].items()
    ]
    rows.extend({"id": item_id, "response": capped(responses[item_id].text), "pred": None} for item_id in scoring.errors)
    return rows


def _check_parsers(parsers: Sequence[str]) -> tuple[str, ...]:
    if isinstance(parsers, str):
        parsers = (parsers,)
    out = tuple(dict.fromkeys(parsers))
    if not out:
        raise ConfigError(f"{argument('parsers')}: give at least one of {', '.join(PARSERS)}")
    for name in out:
        if name not in PARSERS:
            raise ConfigError(f"{argument('parsers', name)} is unknown{did_you_mean(name, PARSERS)} (known: {', '.join(PARSERS)})")
    return out


def _disagreements(items: Sequence[Item], verdicts: Mapping[str, Mapping[str, Verdict]]) -> tuple[dict, ...]:
    """Items where the parsers differ: in correctness when graded, in prediction otherwise."""
    out = []
    for item in items:
        per = {name: judged[item.id] for name, judged in verdicts.items()}
        key = (lambda v: v.correct) if item.answer is not None else (lambda v: v.pred)
        if len({key(v) for v in per.values()}) > 1:
            out.append({
                "id": item.id,
                "preds": {name: v.pred for name, v in per.items()},
                "correct": {name: v.correct for name, v in per.items()},
            })
    return tuple(out)
