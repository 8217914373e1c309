"""The generation seeds harden sends are pinned: a trial's and a proposal attempt's seed are drawn
from one rule (records.derived_seed), and a rerun on another machine must send the same seeds,
or the trials and proposals it resumes are not the ones it would have asked."""

from __future__ import annotations

from mmmu_eval.harden.proposals import attempt_seed
from mmmu_eval.harden.trials import trial_seed


def test_trial_and_attempt_seeds_are_what_they_always_were():
    assert [trial_seed(0, "m1-frequent", k) for k in range(3)] == [1159118324, 177913743, 1756035961]
    assert [attempt_seed(7, "validation_Art_1", k) for k in range(3)] == [2094097260, 1798958454, 592090018]
