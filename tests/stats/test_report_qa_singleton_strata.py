"""Bootstrap intervals when every subject holds one item (a small --limit, --ids, the sample)."""

import numpy as np

from mmmu_eval.stats.intervals import PairedStratum, Stratum, bootstrap_ci, paired_bootstrap_ci


def test_one_item_per_subject_does_not_give_a_zero_width_interval():
    """The MMMU-Pro vision sample (22 subjects, one item each, 3 right) printed "13.6% (95% CI
    13.6–13.6)": each stratum of one always resampled its own item."""
    strata = [Stratum(1, 1)] * 3 + [Stratum(1, 0)] * 19
    low, high = bootstrap_ci(strata, seed=0)
    assert low < 3 / 22 < high
    # pooled, they are exactly one stratum of 22 items with 3 right
    assert (low, high) == bootstrap_ci([Stratum(22, 3)], seed=0)


def test_full_subjects_are_left_as_they_were():
    """Nothing is pooled when only one subject has a single item: each stratum keeps its counts.

    The expected interval is the documented computation written out here: per replicate, one
    Binomial(n, k/n) count per stratum as given, pooled accuracy, 2.5% and 97.5% quantiles."""
    strata = [Stratum(30, 12), Stratum(30, 20), Stratum(1, 1)]  # one singleton: nothing to pool with
    rng = np.random.default_rng(3)
    counts = rng.binomial([30, 30, 1], [12 / 30, 20 / 30, 1.0], size=(1000, 3))
    expected = tuple(float(q) for q in np.quantile(counts.sum(axis=1) / 61, [0.025, 0.975]))
    assert bootstrap_ci(strata, seed=3) == expected
    assert bootstrap_ci(strata, seed=3) != bootstrap_ci([Stratum(61, 33)], seed=3)


def test_paired_singletons_are_pooled_too():
    """The paired interval of compare had the same zero width on one-item subjects."""
    strata = [PairedStratum(0, 1, 0, 0)] * 4 + [PairedStratum(0, 0, 1, 0)] + [PairedStratum(1, 0, 0, 0)] * 5
    low, high = paired_bootstrap_ci(strata, seed=0)
    assert low < 3 / 10 < high
    assert (low, high) == paired_bootstrap_ci([PairedStratum(5, 4, 1, 0)], seed=0)
