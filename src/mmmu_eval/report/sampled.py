"""A sampled run (``run --sample K``): what its score says about the full set's, with an exact interval.

K items drawn without replacement from N: the number right in the sample follows a
hypergeometric law given the number right in the full set. The exact 95% interval for the full
set's score holds every full-set count M that does not make the observed count too unlikely in
either tail (2.5% each: the hypergeometric analogue of Clopper-Pearson). It accounts for the
finite population, so at K = N it shrinks to the observed score itself. Computed with exact
log-probabilities (``math.lgamma``) and a bisection over M, since each tail moves one way in M.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: Two-sided coverage of the interval.
LEVEL = 0.95


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _cdf(x: int, population: int, successes: int, draws: int) -> float:
    """P(X <= x) for X hypergeometric: ``draws`` of ``population`` holding ``successes``."""
    low = max(0, draws - (population - successes))
    high = min(draws, successes, x)
    if high < low:
        return 0.0
    total = _log_comb(population, draws)
    return min(1.0, sum(math.exp(_log_comb(successes, i) + _log_comb(population - successes, draws - i) - total)
                        for i in range(low, high + 1)))


def exact_interval(correct: int, drawn: int, population: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact interval for the full set's accuracy (see the module), as fractions of ``population``."""
    if not 0 <= correct <= drawn <= population or population == 0:
        raise ValueError(f"need 0 <= correct ({correct}) <= drawn ({drawn}) <= population ({population}), population > 0")
    tail = (1 - level) / 2
    # Lower bound: the smallest M with P(X >= correct | M) > tail; P(X >= c) grows with M.
    lo, hi = correct, population - (drawn - correct)
    while lo < hi:
        mid = (lo + hi) // 2
        upper_tail = 1.0 - _cdf(correct - 1, population, mid, drawn) if correct > 0 else 1.0
        if upper_tail > tail:
            hi = mid
        else:
            lo = mid + 1
    lower = lo
    # Upper bound: the largest M with P(X <= correct | M) > tail; P(X <= c) falls with M.
    lo, hi = correct, population - (drawn - correct)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _cdf(correct, population, mid, drawn) > tail:
            lo = mid
        else:
            hi = mid - 1
    return lower / population, lo / population


def sample_section(manifest: Mapping[str, Any], correct: int, scored: int) -> dict[str, Any] | None:
    """results.json's ``sample`` section for a sampled run; None for a run of every item."""
    record = manifest.get("sample")
    if not isinstance(record, Mapping) or not scored:
        return None
    population = int(record.get("population") or 0)
    drawn = int(record.get("drawn") or 0)
    if population < scored:
        return None
    low, high = exact_interval(correct, scored, population)
    return {
        "k": record.get("k"), "seed": record.get("seed"), "population": population, "drawn": drawn,
        "scored": scored, "correct": correct, "accuracy": correct / scored,
        "full_set_interval95": [low, high],
        "method": "exact hypergeometric interval for the full set's accuracy (sampling without replacement), 95%",
        "complete": scored == drawn,
    }
