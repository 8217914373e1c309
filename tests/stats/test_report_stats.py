"""Statistics checked against values worked out by hand."""

from math import comb

import numpy as np
import pytest

from mmmu_eval.stats.intervals import (
    PairedStratum,
    Stratum,
    bootstrap_ci,
    mcnemar_exact,
    paired_bootstrap_ci,
    paired_strata,
    strata_from_outcomes,
)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (1, 9, 2 * (comb(10, 0) + comb(10, 1)) / 2**10),  # 22/1024
        (9, 1, 2 * (comb(10, 0) + comb(10, 1)) / 2**10),  # symmetric
        (0, 5, 2 * comb(5, 0) / 2**5),  # 1/16
        (3, 3, 1.0),  # 2 * P(X <= 3 | n=6) = 2 * 42/64 > 1, capped
        (0, 0, 1.0),  # no discordant pairs: no evidence either way
        (2, 8, 2 * (comb(10, 0) + comb(10, 1) + comb(10, 2)) / 2**10),  # 112/1024
    ],
)
def test_mcnemar_exact_matches_the_binomial_formula(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_exact_stays_finite_for_thousands_of_discordant_items():
    """2**n overflows a float past n=1023; the exact integer sum must not."""
    p = mcnemar_exact(2000, 2100)
    assert 0.0 < p < 1.0
    assert mcnemar_exact(2000, 2000) == 1.0


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 3)


def test_bootstrap_ci_is_degenerate_for_all_right_or_all_wrong():
    assert bootstrap_ci([Stratum(30, 30), Stratum(20, 20)]) == (1.0, 1.0)
    assert bootstrap_ci([Stratum(30, 0)]) == (0.0, 0.0)


def test_bootstrap_ci_of_nothing_is_zero_and_zero_resamples_give_the_point():
    assert bootstrap_ci([]) == (0.0, 0.0)
    assert bootstrap_ci([Stratum(0, 0)]) == (0.0, 0.0)
    assert bootstrap_ci([Stratum(10, 3), Stratum(10, 5)], resamples=0) == (8 / 20, 8 / 20)


def test_bootstrap_ci_is_reproducible_and_depends_on_the_seed():
    strata = [Stratum(30, 12), Stratum(30, 20), Stratum(30, 7)]
    assert bootstrap_ci(strata, seed=3) == bootstrap_ci(strata, seed=3)
    assert bootstrap_ci(strata, seed=3) != bootstrap_ci(strata, seed=4)


def test_bootstrap_ci_brackets_the_point_and_matches_the_binomial_width():
    """One stratum of 900 at p=0.5: the 95% interval is about +-1.96*sqrt(.25/900) = +-0.0327."""
    low, high = bootstrap_ci([Stratum(900, 450)], resamples=4000, seed=1)
    assert low < 0.5 < high
    assert high - low == pytest.approx(2 * 1.96 * (0.25 / 900) ** 0.5, rel=0.1)


def test_stratification_removes_between_subject_variance():
    """Two subjects at 0% and 100%: item-level resampling across them would vary; within them nothing can."""
    assert bootstrap_ci([Stratum(50, 0), Stratum(50, 50)], resamples=500) == (0.5, 0.5)


def test_bootstrap_ci_agrees_with_resampling_items_one_by_one():
    """Drawing Binomial counts must give the same distribution as resampling 0/1 outcomes."""
    outcomes = np.array([1] * 13 + [0] * 17)
    rng = np.random.default_rng(7)
    direct = rng.choice(outcomes, size=(4000, outcomes.size), replace=True).mean(axis=1)
    ref_low, ref_high = np.quantile(direct, [0.025, 0.975])
    low, high = bootstrap_ci([Stratum(30, 13)], resamples=4000, seed=7)
    assert low == pytest.approx(ref_low, abs=1 / 30 + 1e-9)
    assert high == pytest.approx(ref_high, abs=1 / 30 + 1e-9)


def test_stratum_rejects_impossible_counts():
    with pytest.raises(ValueError, match="0 <= correct <= n"):
        Stratum(3, 4)


def test_paired_bootstrap_of_identical_runs_is_zero():
    assert paired_bootstrap_ci([PairedStratum(both=12, a_only=0, b_only=0, neither=18)]) == (0.0, 0.0)


def test_paired_bootstrap_when_a_always_wins_on_discordant_items():
    """a_only=10 of 100, b_only=0: the difference is 0.1 and can never fall below 0."""
    low, high = paired_bootstrap_ci([PairedStratum(both=40, a_only=10, b_only=0, neither=50)], seed=2)
    assert 0.0 < low <= 0.1 <= high


def test_paired_bootstrap_agrees_with_resampling_item_pairs_one_by_one():
    """Multinomial cell counts must give the distribution of resampling (A, B) pairs item by item,
    within each subject. Resampling the runs apart (unpaired) would give an interval about 1.4
    times as wide here, far outside the tolerance of one or two steps of 1/70."""
    strata = [PairedStratum(both=10, a_only=6, b_only=2, neither=12), PairedStratum(both=15, a_only=3, b_only=8, neither=14)]
    total = sum(s.n for s in strata)
    rng = np.random.default_rng(11)
    difference = np.zeros(4000)
    for s in strata:
        per_item = np.array([1] * s.a_only + [-1] * s.b_only + [0] * (s.both + s.neither))  # A right minus B right
        difference += rng.choice(per_item, size=(4000, s.n), replace=True).sum(axis=1)
    ref_low, ref_high = np.quantile(difference / total, [0.025, 0.975])
    low, high = paired_bootstrap_ci(strata, resamples=4000, seed=11)
    assert low == pytest.approx(ref_low, abs=1.5 / total)
    assert high == pytest.approx(ref_high, abs=1.5 / total)


def test_paired_bootstrap_resamples_within_each_subject():
    """A right on all of one subject, both right on all of the other: within subjects nothing can vary."""
    strata = [PairedStratum(both=0, a_only=30, b_only=0, neither=0), PairedStratum(both=40, a_only=0, b_only=0, neither=0)]
    assert paired_bootstrap_ci(strata, resamples=500) == (30 / 70, 30 / 70)


def test_paired_bootstrap_is_narrower_than_the_unpaired_difference():
    """Both runs agree on most items, so pairing removes most of the variance."""
    paired = [PairedStratum(both=400, a_only=30, b_only=10, neither=460)]
    low, high = paired_bootstrap_ci(paired, resamples=2000, seed=0)
    a_low, a_high = bootstrap_ci([Stratum(900, 430)], resamples=2000, seed=0)
    assert (high - low) < (a_high - a_low)


def test_strata_from_outcomes_groups_by_subject_in_first_seen_order():
    assert strata_from_outcomes(["Art", "Math", "Art"], [True, False, False]) == [Stratum(2, 1), Stratum(1, 0)]


def test_paired_strata_counts_only_shared_items():
    subjects = {"a1": "Art", "a2": "Art", "m1": "Math", "m2": "Math"}
    a = {"a1": True, "a2": False, "m1": True, "m2": True}
    b = {"a1": True, "a2": True, "m1": False}  # m2 missing in run B
    assert paired_strata(subjects, a, b) == {
        "Art": PairedStratum(both=1, a_only=0, b_only=1, neither=0),
        "Math": PairedStratum(both=0, a_only=1, b_only=0, neither=0),
    }


def test_docstring_examples_hold():
    import doctest

    import mmmu_eval.stats.intervals as stats

    failures, tried = doctest.testmod(stats)
    assert tried >= 3 and failures == 0
