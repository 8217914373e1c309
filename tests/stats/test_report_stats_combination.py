"""``combination_ci``: intervals of sums of weighted accuracies (a suite's overall and its Δs)."""

import numpy as np
import pytest

from mmmu_eval.stats.intervals import PairedStratum, Term, combination_ci, paired_bootstrap_ci


def outcomes(pattern: str, subject: str = "Math", prefix: str = "i") -> tuple[dict, dict]:
    correct = {f"{prefix}{k}": ch == "1" for k, ch in enumerate(pattern)}
    return correct, {i: subject for i in correct}


def test_identical_runs_over_the_same_items_differ_by_exactly_zero():
    """Paired: one draw of the items serves both runs, so the same outcomes always cancel."""
    a, subjects = outcomes("1101001110" * 5)
    assert combination_ci([Term(1, "pro", a, subjects), Term(-1, "pro", a, subjects)], resamples=500) == (0.0, 0.0)


def test_the_same_runs_in_different_groups_are_independent_and_do_not_cancel():
    a, subjects = outcomes("1101001110" * 5)
    low, high = combination_ci([Term(1, "pro", a, subjects), Term(-1, "mmmu", a, subjects)], resamples=500)
    assert low < -0.05 and high > 0.05


def test_a_mean_of_two_runs_is_centred_on_the_mean_of_their_accuracies():
    a, subjects = outcomes("1" * 30 + "0" * 30)
    b, _ = outcomes("1" * 15 + "0" * 45)
    low, high = combination_ci([Term(0.5, "pro", a, subjects), Term(0.5, "pro", b, subjects)], resamples=2000, seed=3)
    assert low < (0.5 + 0.25) / 2 < high
    assert 0.25 < low and high < 0.5


def test_a_paired_difference_agrees_with_paired_bootstrap_ci():
    """Same distribution as the cell-count bootstrap (different draws): the ends agree to a point or two."""
    rng = np.random.default_rng(0)
    a = {f"i{k}": bool(rng.random() < 0.6) for k in range(400)}
    b = {f"i{k}": bool(rng.random() < 0.5) if not a[f"i{k}"] else bool(rng.random() < 0.8) for k in range(400)}
    subjects = {i: "Math" for i in a}
    ours = combination_ci([Term(1, "pro", a, subjects), Term(-1, "pro", b, subjects)], resamples=4000, seed=1)
    cells = [0, 0, 0, 0]
    for i in a:
        cells[0 if a[i] and b[i] else 1 if a[i] else 2 if b[i] else 3] += 1
    theirs = paired_bootstrap_ci([PairedStratum(*cells)], resamples=4000, seed=1)
    assert ours == pytest.approx(theirs, abs=0.015)


def test_runs_over_different_items_of_one_group_count_each_on_its_own():
    a, subjects = outcomes("1111")
    b, more = outcomes("0000", prefix="j")
    point = combination_ci([Term(1, "pro", a, subjects), Term(-1, "pro", b, more)], resamples=0)
    assert point == (1.0, 1.0)


def test_a_run_with_no_scored_item_is_refused():
    with pytest.raises(ValueError, match="at least one scored item"):
        combination_ci([Term(1, "pro", {}, {})])
