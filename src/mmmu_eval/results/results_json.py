"""``results.json``: the function that fills it from a scoring, and the one that reads it back.

``results.json`` is what a run is remembered by: the headline accuracy with its interval, every
breakdown the papers print, how much of the score came from the official random fallback, what
failed, and the per-item verdicts that ``compare`` pairs across runs. Its shape is declared in
``results_schema.py`` (re-exported here), with ``docs/results-schema.md`` as its prose version.

Accuracies are fractions in [0, 1] (the official scripts print them rounded to 3 places; the
terminal tables do the same). Denominators are the responses present, as in the official
``evaluate``: errors and missing items drop out of the counts and are reported separately.
A group with no scored item (a test split without gold answers, a run whose every request
failed) has no accuracy: ``null``, with no interval, never 0.0 (``results.caveats.void``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mmmu_eval.store.versioned import read_versioned
from mmmu_eval.core.records import Item, Response
from mmmu_eval.results.results_schema import (
    SCHEMA_VERSION,
    Coverage,
    IntervalMethod,
    ItemVerdict,
    ParserScore,
    ParseStats,
    Results,
    Row,
    RowWithInterval,
    RunInfo,
)
from mmmu_eval.stats.sampled import sample_section
from mmmu_eval.results.scope import scope_of
from mmmu_eval.stats.intervals import RESAMPLES, SMALL_CELL, Stratum, cell_ci
from mmmu_eval.results.usage import Usage, usage_summary
from mmmu_eval.core.untrusted import capped_or_none

if TYPE_CHECKING:
    from mmmu_eval.scoring.aggregate import Tally
    from mmmu_eval.scoring.scorer import Scoring

__all__ = ["LEVEL", "SCHEMA_VERSION", "Coverage", "IntervalMethod", "ItemVerdict", "ParseStats", "ParserScore", "Results",
           "Row", "RowWithInterval", "RunInfo", "build_results", "lookup", "read_results", "run_info", "run_usage"]

#: Coverage of every interval in the file.
LEVEL = 0.95


def _accuracy(t: Tally) -> float | None:
    """``correct / n``; None for a group with no scored item: no figure at all, never 0.0."""
    return t.correct / t.n if t.n else None


def _row(t: Tally) -> Row:
    return {"n": t.n, "correct": t.correct, "accuracy": _accuracy(t)}


def _with_ci(t: Tally, strata: list[Stratum], resamples: int, seed: int) -> RowWithInterval:
    if not t.n:
        return {"n": 0, "correct": 0, "accuracy": None, "ci95": None, "ci_method": None}
    (low, high), method = cell_ci(strata, resamples=resamples, seed=seed, level=LEVEL)
    return {"n": t.n, "correct": t.correct, "accuracy": _accuracy(t), "ci95": [low, high], "ci_method": method}


def lookup(manifest: Mapping, *keys: str) -> object | None:
    """First value found for any of ``keys`` at the top of the manifest or one level down.

    The manifest groups its fields (config, protocol, dataset ...); looking one level down keeps
    this module independent of that grouping.
    """
    for key in keys:
        if key in manifest and manifest[key] is not None and not isinstance(manifest[key], Mapping):
            return manifest[key]
    for value in manifest.values():
        if isinstance(value, Mapping):
            for key in keys:
                if value.get(key) is not None and not isinstance(value[key], Mapping):
                    return value[key]
    return None


def _str_or_none(value: object | None) -> str | None:
    return None if value is None else str(value)


def run_info(manifest: Mapping) -> RunInfo:
    """The provenance fields of a manifest, wherever in it they sit."""
    official = lookup(manifest, "official")
    return {
        "model": _str_or_none(lookup(manifest, "model", "model_spec")),
        "prompt_mode": _str_or_none(lookup(manifest, "mode", "prompt", "prompt_mode")),
        "protocol_fingerprint": _str_or_none(lookup(manifest, "fingerprint", "protocol_fingerprint")),
        "official": bool(official) if official is not None else None,
        "dataset_revision": _str_or_none(lookup(manifest, "revision", "dataset_revision")),
        "dataset_digest": _str_or_none(lookup(manifest, "digest", "dataset_digest")),
        "package_version": _str_or_none(lookup(manifest, "package_version", "version")),
        "rescored_from": _str_or_none((manifest.get("rescored_from") or {}).get("format")
                                      if isinstance(manifest.get("rescored_from"), Mapping) else None),
    }


def build_results(
    scoring: Scoring,
    items: Sequence[Item],
    manifest: Mapping,
    *,
    bootstrap: int = RESAMPLES,
    seed: int = 0,
    responses: Mapping[str, Response] | None = None,
    harness: Mapping | None = None,
) -> Results:
    """Fill the results.json schema from a scoring of ``items``.

    Args:
        scoring: the scorer's output on the run's responses.
        items: the evaluated items, in dataset order (they give subjects and disciplines).
        manifest: the run's manifest.json (provenance only).
        bootstrap: resamples per interval (0 turns intervals into the point estimate).
        seed: bootstrap seed; the same seed gives the same intervals.
        responses: the run's responses, to count truncated answers; optional.
        harness: a rescored run's ``harness`` section (``results.harness.harness_section``).

    Returns:
        The Results dict, ready for ``json.dump``.

    Example::

        results = build_results(score_responses(items, responses), items, store.manifest())
        results["overall"]["accuracy"], results["overall"]["ci95"]
    """
    headline = scoring.parsers[0]
    agg = scoring.aggregates[headline]
    verdicts = scoring.verdicts[headline]
    discipline_of = {it.subject: it.discipline for it in items}
    subject_strata = {s: Stratum(t.n, t.correct) for s, t in agg.by_subject.items()}

    by_discipline: dict[str, RowWithInterval] = {}
    for discipline, tally in agg.by_discipline.items():
        strata = [st for s, st in subject_strata.items() if discipline_of.get(s) == discipline]
        by_discipline[discipline] = _with_ci(tally, strata, bootstrap, seed)

    scored = agg.overall.n
    truncated = None
    if responses is not None:
        truncated = sum(1 for it in items if _status(responses, it.id) == "truncated")
    order = {it.id: i for i, it in enumerate(items)}
    first = items[0] if items else None

    parsers: dict[str, ParserScore] = {}
    for name in scoring.parsers:
        tally = scoring.aggregates[name].overall
        fallbacks = sum(1 for v in scoring.verdicts[name].values() if v.fallback)
        deterministic = sum(1 for v in scoring.verdicts[name].values() if v.correct and not v.fallback)
        parsers[name] = {"n": tally.n, "correct": tally.correct, "accuracy": _accuracy(tally), "fallbacks": fallbacks,
                         "deterministic_correct": deterministic}

    results: Results = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": first.benchmark if first else str(lookup(manifest, "benchmark") or scoring.benchmark),
        "split": first.split if first else str(lookup(manifest, "split") or ""),
        "setting": first.setting if first else _str_or_none(lookup(manifest, "setting")),
        "gold_available": any(it.answer is not None for it in items),
        "scope": scope_of(manifest, items=len(items), benchmark=first.benchmark if first else None,
                          split=first.split if first else None, setting=first.setting if first else None).to_json(),
        "run": run_info(manifest),
        "overall": _with_ci(agg.overall, list(subject_strata.values()), bootstrap, seed),
        "interval": {
            "method": "bootstrap-stratified-by-subject",
            "level": LEVEL,
            "resamples": max(bootstrap, 0),
            "seed": seed,
            "small_cells": f"wilson score interval below {SMALL_CELL} items or where the bootstrap's has zero width",
        },
        "by_discipline": by_discipline,
        "by_subject": {
            s: _with_ci(t, [subject_strata[s]], bootstrap, seed) for s, t in agg.by_subject.items()
        },
        "by_img_type": {k: _row(t) for k, t in agg.by_img_type.items()},
        "by_topic_difficulty": {k: _row(t) for k, t in agg.by_difficulty.items()},
        "by_question_type": {k: _row(t) for k, t in agg.by_question_type.items()},
        "by_option_count": {k: _row(t) for k, t in agg.by_option_count.items()},
        "parse": {
            "parser": headline,
            "answers": _answers_name(manifest),
            "fallback_policy": scoring.fallback_policy,
            "fallback_seed": scoring.fallback_seed,
            "fallbacks": scoring.fallbacks,
            "unparsed": sum(1 for v in verdicts.values() if v.fallback),
            "fallback_rate": scoring.fallbacks / scored if scored else None,
            "deterministic_correct": scoring.deterministic_correct,
            "deterministic_accuracy": scoring.deterministic_correct / scored if scored else None,
            "expected_correct": float(scoring.expected_correct),
            "expected_accuracy": scoring.expected_correct / scored if scored else None,
        },
        "coverage": {
            "items": len(items),
            "scored": scored,
            "errors": len(scoring.errors),
            "missing": len(scoring.missing),
            "truncated": truncated,
            "ungraded": len(scoring.ungraded),
            "error_ids": sorted(scoring.errors, key=lambda i: order.get(i, len(order))),
            "missing_ids": sorted(scoring.missing, key=lambda i: order.get(i, len(order))),
            "problems": list(scoring.problems),
        },
        "parsers": parsers,
        "disagreements": len(scoring.disagreements),
        "verdicts": {
            it.id: {
                "subject": it.subject,
                "pred": capped_or_none(verdicts[it.id].pred),  # a copy: an open answer's whole text is in responses.jsonl
                "correct": bool(verdicts[it.id].correct),
                "fallback": bool(verdicts[it.id].fallback),
            }
            for it in items
            if it.id in verdicts and it.answer is not None
        },
        "usage": None if responses is None else run_usage(manifest, [responses[it.id] for it in items if it.id in responses]),
    }
    if harness is not None:
        results["harness"] = dict(harness)
    sample = (sample_section(manifest, agg.overall.correct, agg.overall.n, results["verdicts"])
              if results["gold_available"] else None)
    if sample is not None:
        results["sample"] = sample  # type: ignore[typeddict-unknown-key]
    return results


def _answers_name(manifest: Mapping) -> str | None:
    """The file name of the answer dict the run is scored against (its scoring record); None: the dataset's."""
    scoring = manifest.get("scoring")
    answers = scoring.get("answers") if isinstance(scoring, Mapping) else None
    return Path(str(answers)).name if answers else None


def run_usage(manifest: Mapping, responses: Sequence[Response]) -> Usage:
    """The usage of a run's responses, priced at the prices its manifest records (if any)."""
    return usage_summary(
        responses, price_input=_price(lookup(manifest, "price_input")), price_output=_price(lookup(manifest, "price_output")),
        preflight=[manifest.get("preflight")],
    )


def _price(value: object | None) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _status(responses: Mapping[str, Response], item_id: str) -> str | None:
    response = responses.get(item_id)
    return response.status if response is not None else None


def read_results(path: str | Path) -> Results | None:
    """``results.json`` of a run directory (or the file itself); None when there is none.

    Raises StoreError when the file exists but is not a results file this version understands.
    """
    path = Path(path)
    file = path / "results.json" if path.is_dir() else path
    return read_versioned(  # type: ignore[return-value]
        file, SCHEMA_VERSION,
        unreadable="cannot read results ({error}); delete it and run `mmmu-eval score RUN --save`",
        other_version=f"schema_version {{found!r}} is not {SCHEMA_VERSION}; re-create it with `mmmu-eval score RUN --save`",
    )
