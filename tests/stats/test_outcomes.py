"""The doctor's ranges: the central 95% of the counterfactual outcomes, against brute force."""

from __future__ import annotations

import math
import random
from itertools import product
from statistics import NormalDist

import pytest

from mmmu_eval.stats.outcomes import central_range


def _outcomes(chances, correct, scale, shift):
    """Every outcome of the items drawn again, with its probability (2^m of them)."""
    out: dict[float, float] = {}
    for drawn in product((0, 1), repeat=len(chances)):
        p = math.prod(q if x else 1 - q for q, x in zip(chances, drawn))
        value = round(shift + scale * (sum(drawn) - sum(correct)), 9)
        out[value] = out.get(value, 0.0) + p
    return sorted(out.items())


def _quantile(outcomes, p):
    total = 0.0
    for value, weight in outcomes:
        total += weight
        if total >= p - 1e-12:
            return value
    return outcomes[-1][0]


@pytest.mark.parametrize("seed", range(40))
def test_the_range_is_the_central_95_percent_of_every_outcome(seed):
    rng = random.Random(seed)
    m = rng.randint(1, 9)
    chances = [rng.choice([0.0, 1.0, 0.1, 0.25, 1 / 3, 0.5, rng.random()]) for _ in range(m)]
    correct = [rng.random() < 0.5 for _ in range(m)]
    scale, shift = rng.choice([100 / 9, 100 / 1730, 1.0]), rng.choice([0.0, 2.5, -1.0])
    outcomes = _outcomes(chances, correct, scale, shift)
    mean = shift + scale * (sum(chances) - sum(correct))
    low, high = central_range(chances, correct, scale=scale, shift=shift)
    assert low == pytest.approx(min(_quantile(outcomes, 0.025), mean), abs=1e-9)
    assert high == pytest.approx(max(_quantile(outcomes, 0.975), mean), abs=1e-9)
    # never past what the items can do: every right answer lost at worst, every wrong one gained at best
    assert shift - scale * sum(correct) - 1e-9 <= low <= mean <= high <= shift + scale * (m - sum(correct)) + 1e-9


def test_a_normal_spread_beside_the_items_is_added_exactly():
    chances, correct, scale, sd = [0.1, 0.1], [True, True], 1.0, 0.3
    outcomes = _outcomes(chances, correct, scale, 0.0)
    low, high = central_range(chances, correct, scale=scale, sd=sd)
    for x, p in ((low, 0.025), (high, 0.975)):
        cdf = sum(w * NormalDist(v, sd).cdf(x) for v, w in outcomes)
        assert cdf == pytest.approx(p, abs=1e-9)
    # a spread alone is the normal range
    assert central_range([], [], scale=1.0, sd=1.0) == pytest.approx((-1.959964, 1.959964), abs=1e-5)


def test_the_same_items_give_the_same_range_alone_or_with_nothing_beside_them():
    """Two right answers drawn again at 1/10 can lose two at most: -2 to -1 items, never -2.6."""
    assert central_range([0.1, 0.1], [True, True], scale=100 / 1730) == pytest.approx((-200 / 1730, -100 / 1730))


def test_a_lopsided_outcome_keeps_the_expected_value_inside_its_range():
    low, high = central_range([0.01], [False], scale=1.0)
    assert (low, high) == (0.0, pytest.approx(0.01))
