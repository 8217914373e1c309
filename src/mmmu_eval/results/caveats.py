"""What a headline figure needs beside it to be read right: void, luck of the fallback, scope.

Three ways a percentage reads more solid than it is, each decided here once and printed by the
terminal (``terminal.py``), the run's page (``html.py``), ``score`` and the suite alike:

- **Void.** A run with no scored item has no accuracy (results.json holds ``null``, never 0.0):
  either it has no gold answers (the MMMU test split without ``--answers``), and the headline
  says "no gold answers", counts the answers that could not be parsed all the same and says how
  to score it; or every request failed (a model that always raises, a server answering 500), and
  the headline says "no item could be scored" with how many failed. Every table and page prints
  ``NO_SCORE`` where the figure would be.
- **Luck.** Where the official parser finds no letter it draws one at random (seed 42), so a
  headline with many such draws is partly dice. Past ``FALLBACK_WARN`` of the scored answers the
  headline carries a warning and the figure with every fallback counted wrong beside it.
- **Scope** is ``scope.py``'s: a subset, a shard or the sample is named beside its figure.

The rules are written out in docs/scoring.md ("Reading a headline").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmmu_eval.core.numbers import pct

__all__ = ["FALLBACK_WARN", "NO_SCORE", "OFFICIAL_TEST_ANSWERS", "fallback_warning", "how_to_score", "ungraded", "unparsed",
           "void", "void_reason"]

#: Share of scored answers drawn by the random fallback above which a headline is flagged.
FALLBACK_WARN = 0.10

#: The public MMMU test answers, as the official repository ships them.
OFFICIAL_TEST_ANSWERS = "answer_dict_test.json (github.com/MMMU-Benchmark/MMMU, mmmu/)"


#: What a table or page prints where a void figure would be.
NO_SCORE = "no score"


def ungraded(results: Mapping[str, Any]) -> bool:
    """True when no item had a gold answer (the test split without ``--answers``)."""
    return not results.get("gold_available", True)


def void(results: Mapping[str, Any]) -> bool:
    """True when no item was scored against a gold answer (none had one, or every request
    failed): every accuracy in the file is void (``null``), not zero."""
    overall = results.get("overall")
    return ungraded(results) or (isinstance(overall, Mapping) and not overall.get("n"))


def void_reason(results: Mapping[str, Any]) -> str | None:
    """Why a void run has no figure, in the line every headline and the exit message print; None
    when it has one.

    >>> void_reason({"gold_available": True, "overall": {"n": 0}, "coverage": {"errors": 40, "missing": 0}})
    'no item could be scored: 40 failed, see responses.jsonl'
    """
    if not void(results):
        return None
    if ungraded(results):
        return "no gold answers"
    coverage = results.get("coverage") or {}
    errors, missing = int(coverage.get("errors") or 0), int(coverage.get("missing") or 0)
    what = [f"{errors} failed"] if errors else []
    if missing:
        what.append(f"{missing} never answered")
    return "no item could be scored: " + (" and ".join(what) or "no answer") + ", see responses.jsonl"


def unparsed(results: Mapping[str, Any]) -> int:
    """Scored answers in which the headline parser found no answer (graded or not)."""
    parse = results.get("parse") or {}
    return int(parse.get("unparsed", parse.get("fallbacks", 0)))


def how_to_score(results: Mapping[str, Any]) -> str:
    """What to do with a void run: without gold answers (MMMU test: the answers are public), or
    whose every request failed (fix the cause, run the same command again)."""
    if void(results) and not ungraded(results):
        return "fix what made them fail (their errors are in responses.jsonl), then run the same command again"
    if results.get("benchmark") == "mmmu":
        return (f"score it with --answers and the official public {OFFICIAL_TEST_ANSWERS}, "
                "or upload its submission.json to EvalAI")
    return "score it with --answers and an answer file for these items"


def fallback_warning(results: Mapping[str, Any]) -> str | None:
    """One sentence when the headline's random fallbacks pass ``FALLBACK_WARN`` of scored answers; else None.

    >>> fallback_warning({"gold_available": True, "overall": {"n": 40, "accuracy": 0.175},
    ...                   "parse": {"fallbacks": 16, "fallback_policy": "official", "deterministic_accuracy": 0.05}})
    '16 of 40 answers (40.0%) could not be parsed and were given a random letter: 17.5% is partly chance; 5.0% with those counted wrong'
    """
    if void(results):
        return None
    parse = results.get("parse") or {}
    scored = (results.get("overall") or {}).get("n", 0)
    fallbacks = int(parse.get("fallbacks", 0))
    if not scored or fallbacks / scored <= FALLBACK_WARN:
        return None
    if parse.get("fallback_policy") == "none":
        return (f"{fallbacks} of {scored} answers ({pct(fallbacks / scored)}%) could not be parsed; "
                "they are counted wrong (fallback none), so the figure says as much about the parser as the model")
    return (f"{fallbacks} of {scored} answers ({pct(fallbacks / scored)}%) could not be parsed and were given a "
            f"random letter: {pct(results['overall']['accuracy'])}% is partly chance; "
            f"{pct(parse.get('deterministic_accuracy', 0.0))}% with those counted wrong")
