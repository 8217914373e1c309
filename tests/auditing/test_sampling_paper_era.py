"""``run --sample K --sample-audit`` on the paper-era MMMU-Pro outputs (27 response sets of 7 models):
the hold-one-model-out check finds what the issue measured, difficulty strata and the 2PL both
beat uniform sampling, and the design stratifies the 1,730 items into ten equal strata.

The issue's figures, mean absolute error at K = 100 / 200 (points): uniform 3.67 / 2.46,
stratified by difficulty 3.23 / 2.23, 2PL 2.91 / 2.11. Measured with this package's check at 200
draws per held-out set (docs/audit.md): 3.67 / 2.48, 3.25 / 2.22, 3.03 / 2.16. The test uses the
check's own 20 draws (the figures a user sees), seed 0.
"""

from __future__ import annotations

import json

import pytest

from mmmu_eval.stats.sample_check import hold_out_check
from mmmu_eval.run.sample_audit import design_sample, read_audit_answers


@pytest.fixture(scope="module")
def audit_file(paper_audit, tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "audit.json"
    path.write_text(json.dumps(paper_audit.to_json(), ensure_ascii=False))
    return path


@pytest.fixture(scope="module")
def answers(audit_file):
    return read_audit_answers(audit_file, "mmmu-pro")


def test_the_check_at_100_items_finds_both_estimators_better_than_uniform(answers):
    check = hold_out_check(answers.right, answers.seen, answers.models, answers.ids, 100, seed=0)
    assert (check.models, check.held_out_sets, check.draws) == (7, 27, 20)
    mae = {name: round(100 * v, 2) for name, v in check.mae.items()}
    assert mae["2pl"] < mae["stratified"] < mae["uniform"]
    assert 3.0 < mae["uniform"] < 4.3 and 2.6 < mae["2pl"] < 3.4  # beside the 3.67 and 2.91
    assert check.offered == ("stratified", "2pl") and check.design == "stratified"
    assert 0.9 < check.stratified_coverage <= 1


def test_the_design_cuts_ten_equal_strata_and_keeps_the_2pl_small(answers, audit_file):
    design = design_sample(answers.ids, 100, 0, audit_file, "mmmu-pro")
    strata = design.record["strata"]
    assert [s["population"] for s in strata] == [173] * 10 and [s["drawn"] for s in strata] == [10] * 10
    lows = [s["p_right"][0] for s in strata]
    assert lows == sorted(lows) and strata[0]["p_right"][0] == 0.0
    assert len(design.drawn) == 100 and len(design.record["irt"]["drawn"]) == 100
    assert len(json.dumps(design.record)) < 20_000  # the manifest stays small: no per-item table of 1,730


def test_the_2pl_interval_is_calibrated_on_each_model_and_labelled_with_its_coverage(answers):
    """At K = 200 one pooled 95th percentile held the strongest model's (Gemini's) full score in
    fewer than 95% of its draws; the margin calibrated per model holds every model's in 95% or more,
    and the coverage for a model outside the calibration is measured and named (docs/audit.md)."""

    check = hold_out_check(answers.right, answers.seen, answers.models, answers.ids, 200, seed=0)
    coverage = check.irt_coverage
    assert min(coverage.each_model.values()) >= 0.95
    assert coverage.margin > check.q95["2pl"]  # wider than the pooled percentile
    worst_model, worst = coverage.worst
    assert worst_model == "gemini-1.5-pro-exp-0801" and worst < 0.9  # named, not hidden behind "95%"
    assert 0.9 < coverage.held_out < 1
    assert f"{100 * worst:.1f}% for the worst (gemini-1.5-pro-exp-0801)" in coverage.label()
