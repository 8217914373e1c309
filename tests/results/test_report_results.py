"""results.json from a scoring of the fixture items (see conftest.TEXTS for what each answers).

Scored: Art_1 right, Art_2 wrong, Art_3 random fallback (seed 42 draws A, gold B: wrong),
Math_1 right, Math_2 wrong (truncated), Math_3 open right, Physics_1 right.
Physics_2 is an error and Physics_3 has no response: neither counts.
"""

import json

import numpy as np
import pytest

from mmmu_eval.results.results_json import SCHEMA_VERSION, build_results, read_results, run_info
from mmmu_eval.core.errors import StoreError


@pytest.fixture
def results(scoring, items, manifest, responses):
    return build_results(scoring, items, manifest, bootstrap=500, seed=0, responses=responses)


def test_overall_counts_only_scored_items(results):
    assert results["overall"]["n"] == 3 + 3 + 1
    assert results["overall"]["correct"] == 1 + 2 + 1
    assert results["overall"]["accuracy"] == pytest.approx(4 / 7)


def test_discipline_and_subject_rows_follow_the_official_order(results):
    assert list(results["by_discipline"]) == ["Art and Design", "Science"]
    assert list(results["by_subject"]) == ["Art", "Math", "Physics"]
    assert results["by_discipline"]["Science"] | {"ci95": None} == {"n": 4, "correct": 3, "accuracy": 0.75, "ci95": None,
                                                                     "ci_method": "wilson"}
    assert results["by_subject"]["Math"]["n"] == 3 and results["by_subject"]["Math"]["correct"] == 2


def test_intervals_bracket_the_point(results):
    for row in [results["overall"], *results["by_discipline"].values(), *results["by_subject"].values()]:
        low, high = row["ci95"]
        assert 0.0 <= low <= row["accuracy"] <= high <= 1.0
    # Physics has one item, right: nothing to resample, and yet no certainty: Wilson's interval.
    assert results["by_subject"]["Physics"]["ci95"] == pytest.approx([0.2065, 1.0], abs=1e-4)
    assert results["interval"] | {"small_cells": None} == {
        "method": "bootstrap-stratified-by-subject", "level": 0.95, "resamples": 500, "seed": 0, "small_cells": None}


def _stratified(strata: list[tuple[int, int]], resamples: int = 500, seed: int = 0) -> list[float]:
    """The interval the schema documents, computed here: each subject's correct count drawn
    Binomial(n, k/n) per replicate (resampling its items), pooled, 2.5% and 97.5% quantiles."""
    rng = np.random.default_rng(seed)
    counts = rng.binomial([n for n, _ in strata], [k / n for n, k in strata], size=(resamples, len(strata)))
    return [float(q) for q in np.quantile(counts.sum(axis=1) / sum(n for n, _ in strata), [0.025, 0.975])]


def test_intervals_of_full_cells_are_stratified_by_subject():
    """Cells of 30 items and more: the stratified bootstrap (Art 10 of 30, Math 20 of 30, Physics 29 of 30)."""
    from mmmu_eval.stats.intervals import Stratum, cell_ci

    strata = [(30, 10), (30, 20), (30, 29)]
    assert cell_ci([Stratum(n, k) for n, k in strata], resamples=500, seed=0) == (tuple(_stratified(strata)), "bootstrap")
    assert cell_ci([Stratum(30, 20)], resamples=500, seed=0) == (tuple(_stratified([(30, 20)])), "bootstrap")


def test_small_cells_get_the_wilson_interval_never_zero_width(results):
    """Scored: Art 1 of 3, Math 2 of 3, Physics 1 of 1 (see the module doc): every cell under 30 items.

    What broke: ``n=1 1.000 1.000–1.000`` and ``0/4 0.0–0.0``, which read as certainty."""
    from mmmu_eval.stats.intervals import wilson_ci

    assert results["overall"]["ci95"] == list(wilson_ci(4, 7)) and results["overall"]["ci_method"] == "wilson"
    assert results["by_subject"]["Math"]["ci95"] == list(wilson_ci(2, 3))
    assert wilson_ci(0, 4) == (0.0, pytest.approx(0.4899, abs=1e-4))
    assert wilson_ci(1, 1) == (pytest.approx(0.2065, abs=1e-4), 1.0)
    assert wilson_ci(0, 0) == (0.0, 1.0)


def test_a_full_cell_all_right_gets_wilson_not_the_bootstraps_zero_width():
    """30 of 30: every resample is 30 of 30, so the bootstrap's interval has no width; Wilson's has."""
    from mmmu_eval.stats.intervals import Stratum, cell_ci, wilson_ci

    assert cell_ci([Stratum(30, 30)], resamples=500, seed=0) == (wilson_ci(30, 30), "wilson")
    assert wilson_ci(30, 30)[0] < 1.0


def test_breakdowns_by_question_type_options_difficulty_and_img_type(results):
    assert results["by_question_type"]["open"] == {"n": 1, "correct": 1, "accuracy": 1.0}
    assert results["by_question_type"]["multiple-choice"]["n"] == 6
    assert results["by_option_count"]["5"] == {"n": 1, "correct": 1, "accuracy": 1.0}
    assert results["by_topic_difficulty"]["Medium"] == {"n": 1, "correct": 0, "accuracy": 0.0}
    assert results["by_img_type"]["Paintings"] == {"n": 1, "correct": 0, "accuracy": 0.0}


def test_parse_stats_separate_the_fallback_luck(results):
    parse = results["parse"]
    assert parse["fallbacks"] == 1
    assert parse["fallback_rate"] == pytest.approx(1 / 7)
    assert parse["deterministic_correct"] == 4
    assert parse["expected_correct"] == pytest.approx(4 + 1 / 4)
    assert parse["expected_accuracy"] == pytest.approx((4 + 1 / 4) / 7)
    assert parse["fallback_seed"] == 42 and parse["parser"] == "official"


def test_coverage_names_errors_missing_and_truncated(results):
    assert results["coverage"] == {
        "items": 9,
        "scored": 7,
        "errors": 1,
        "missing": 1,
        "truncated": 1,
        "error_ids": ["validation_Physics_2"],
        "missing_ids": ["validation_Physics_3"],
        "ungraded": 0,
        "problems": [],
    }


def test_truncated_is_unknown_without_responses(scoring, items, manifest):
    assert build_results(scoring, items, manifest, bootstrap=0)["coverage"]["truncated"] is None


def test_verdicts_per_item_for_compare(results):
    assert results["verdicts"]["validation_Art_3"] == {"subject": "Art", "pred": "A", "correct": False, "fallback": True}
    assert "validation_Physics_2" not in results["verdicts"]
    assert list(results["verdicts"])[0] == "validation_Art_1"


def test_run_info_reads_the_manifest_wherever_fields_sit(results, manifest):
    assert results["run"] == {
        "model": "random",
        "prompt_mode": "direct",
        "protocol_fingerprint": "f" * 64,
        "official": True,
        "dataset_revision": "bundled-1",
        "dataset_digest": "d" * 64,
        "package_version": "0.1.0",
        "rescored_from": None,
    }
    assert run_info({})["model"] is None


def test_results_round_trip_through_json(results, tmp_path):
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert read_results(tmp_path) == json.loads(json.dumps(results))
    assert results["schema_version"] == SCHEMA_VERSION
    assert results["gold_available"] is True


def test_read_results_is_none_without_a_file_and_refuses_another_schema(tmp_path):
    assert read_results(tmp_path) is None
    (tmp_path / "results.json").write_text('{"schema_version": 99}')
    with pytest.raises(StoreError, match="schema_version 99"):
        read_results(tmp_path)
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(StoreError, match="cannot read results"):
        read_results(tmp_path)


def test_test_split_without_answers_is_flagged_and_ungraded(items, responses, manifest, build):
    import dataclasses

    withheld = tuple(dataclasses.replace(it, answer=None) for it in items)
    results = build_results(build.score(withheld, responses), withheld, manifest, bootstrap=0)
    assert results["gold_available"] is False
    assert results["overall"]["n"] == 0 and results["verdicts"] == {}
    assert results["coverage"]["ungraded"] == 7  # the scorable responses
