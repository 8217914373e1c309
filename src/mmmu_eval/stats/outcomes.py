"""The central range of a figure's change when some of its items are answered again by chance.

The doctor's counterfactuals (``doctor.effects``) replace an item's verdict by a chance of being
right (a random fallback's 1/options, a cut answer at the run's accuracy, a harness's own verdict
at 0 or 1). The change of the figure is then a sum of independent Bernoulli draws minus the
verdicts they replace (a Poisson binomial, computed exactly), plus any independent normal spread
beside the items (a re-sample's, unscored items') and a shift known exactly. Its central range is
read off that distribution, so it never passes what the items can do (two right answers can lose
at most two) and the range of several causes together is made exactly as the range of one.

>>> central_range([0.1, 0.1], [True, True], scale=1.0)
(-2.0, -1.0)
>>> central_range([0.25] * 4, [False] * 4, scale=1.0, sd=0.0, shift=0.5)
(0.5, 3.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

__all__ = ["central_range"]

#: Below this a probability is no outcome (the tails of a long convolution).
_TINY = 1e-15
_STANDARD = NormalDist()


def _pmf(chances: Sequence[float]) -> np.ndarray:
    """P(k of the items right), k = 0 .. len(chances)."""
    pmf = np.ones(1)
    for q in chances:
        pmf = np.convolve(pmf, (1.0 - q, q))
    return pmf


def _quantile(values: np.ndarray, pmf: np.ndarray, sd: float, p: float) -> float:
    """The ``p`` quantile of the discrete outcomes ``values`` (probabilities ``pmf``) plus a
    normal spread of ``sd``: the smallest value at which the distribution reaches ``p``."""
    if sd <= 0.0:
        cdf = np.cumsum(pmf)
        return float(values[min(int(np.searchsorted(cdf, p - 1e-12)), len(values) - 1)])
    keep = pmf > _TINY
    values, pmf = values[keep], pmf[keep]

    def cdf(x: float) -> float:
        return float(sum(w * _STANDARD.cdf((x - v) / sd) for v, w in zip(values, pmf)))

    low, high = float(values.min()) - 8.0 * sd, float(values.max()) + 8.0 * sd
    for _ in range(80):  # bisection to well below the printed hundredth of a point
        middle = (low + high) / 2.0
        if cdf(middle) < p:
            low = middle
        else:
            high = middle
    return high


def central_range(
    chances: Sequence[float],
    correct: Sequence[bool],
    *,
    scale: float,
    sd: float = 0.0,
    shift: float = 0.0,
    level: float = 0.95,
) -> tuple[float, float]:
    """The central ``level`` range of ``shift + scale * (Σ Bernoulli(chances) - Σ correct) + N(0, sd²)``.

    Args:
        chances: each item's chance of being right in the counterfactual (0 and 1: known).
        correct: each item's verdict now, in the same order.
        scale: the figure's change per item (points: 100 / items scored).
        sd: standard deviation of an independent normal spread beside the items (points).
        shift: a change known exactly beside the items (points).
        level: the central share of the distribution (0.95).

    Returns:
        ``(low, high)``, widened to hold the expected value where the outcomes are so lopsided
        that the central range would leave it out (one item with a small chance).
    """
    if len(chances) != len(correct):
        raise ValueError(f"{len(chances)} chances for {len(correct)} verdicts")
    certain = sum(q for q in chances if q <= 0.0 or q >= 1.0)
    uncertain = [q for q in chances if 0.0 < q < 1.0]
    base = shift + scale * (certain - sum(1 for c in correct if c))
    pmf = _pmf(uncertain)
    values = base + scale * np.arange(len(pmf), dtype=float)
    tail = (1.0 - level) / 2.0
    low, high = _quantile(values, pmf, sd, tail), _quantile(values, pmf, sd, 1.0 - tail)
    mean = base + scale * sum(uncertain)
    return min(low, mean), max(high, mean)
