"""How likely an agreement on one wrong option is by chance: wrong answers spread evenly.

The null model: each of ``wrong`` answers that missed the gold falls on one of ``distractors``
options, each equally likely, independently. ``p_max_at_least(wrong, distractors, k)`` is the
chance that some distractor then collects ``k`` or more of them, computed exactly by counting
the spreads in which every distractor holds fewer than ``k`` (a polynomial power, in integers).

Real models share misconceptions and like the same plausible distractor, so this null is
generous to the suspects: it says how unusual an agreement is, not that the gold is wrong.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb


@lru_cache(maxsize=None)
def _spreads_below(wrong: int, bins: int, k: int) -> int:
    """The number of ways ``wrong`` labelled answers fall into ``bins`` options, each below ``k``."""
    # Exponential generating function: (sum_{j<k} x^j / j!)^bins; coefficient of x^wrong times wrong!.
    # Done with integer multinomials: dp[n] = ways to place n labelled answers in the bins so far.
    dp = [1] + [0] * wrong
    for _ in range(bins):
        nxt = [0] * (wrong + 1)
        for placed, ways in enumerate(dp):
            if not ways:
                continue
            for j in range(min(k - 1, wrong - placed) + 1):
                nxt[placed + j] += ways * comb(wrong - placed, j)
        dp = nxt
    return dp[wrong]


def p_max_at_least(wrong: int, distractors: int, k: int) -> float:
    """P(some distractor gets at least ``k`` of ``wrong`` evenly spread answers); exact.

    >>> p_max_at_least(2, 9, 2)  # two wrong answers on the same one of nine distractors
    0.1111111111111111
    """
    if k <= 0:
        return 1.0
    if distractors <= 0 or wrong < k:
        return 0.0
    if distractors == 1:
        return 1.0
    below = _spreads_below(wrong, distractors, k)
    return float(1 - Fraction(below, distractors**wrong))
