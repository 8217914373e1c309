"""Scoring a whole run as one pure step: the Scoring and the ``predictions.jsonl`` rows.

``mmmu-eval score`` wraps this with the I/O (reading the run directory and the dataset, writing
``predictions.jsonl`` and ``results.json``); a notebook can call it on items and responses it
already holds.

>>> scored = score_run(items, responses, parsers=("official", "boxed"))
>>> scored.scoring.aggregates["boxed"].overall.accuracy, scored.predictions[0]["pred"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mmmu_eval.records import Item, Response
from mmmu_eval.score.scorer import OFFICIAL_SEED, Scoring, predictions_rows, score_responses


@dataclass(frozen=True)
class ScoredRun:
    """What scoring a run produces."""

    scoring: Scoring
    """Every parser's verdicts and tallies."""
    predictions: list[dict]
    """``{"id", "response", "pred"}`` per item with a response (headline parser), for predictions.jsonl."""


def score_run(
    items: Sequence[Item],
    responses: Mapping[str, Response],
    *,
    parsers: Sequence[str] = ("official",),
    fallback: str = "official",
    fallback_seed: int = OFFICIAL_SEED,
) -> ScoredRun:
    """Score ``responses`` to ``items`` with every parser; see ``score_responses`` for the arguments."""
    scoring = score_responses(items, responses, parsers=parsers, fallback=fallback, fallback_seed=fallback_seed)
    return ScoredRun(scoring, predictions_rows(scoring, responses))
