"""Aggregation: instance-weighted tallies in the official order."""

from __future__ import annotations

from mmmu_eval.core.records import Verdict
from mmmu_eval.scoring.aggregate import Tally, aggregate


def _v(item_id: str, correct: bool) -> Verdict:
    return Verdict(item_id, "official", "A", correct)


def test_tally_accuracy_is_zero_for_an_empty_group():
    assert Tally(0, 0).accuracy == 0.0
    assert Tally(4, 1).accuracy == 0.25


def test_disciplines_are_instance_weighted_and_officially_ordered(make_item):
    items = [
        make_item("validation_Psychology_1", "A"),
        make_item("validation_Sociology_1", "A"),
        make_item("validation_Sociology_2", "A"),
        make_item("validation_Art_1", "A"),
    ]
    verdicts = {
        "validation_Psychology_1": _v("validation_Psychology_1", True),
        "validation_Sociology_1": _v("validation_Sociology_1", True),
        "validation_Sociology_2": _v("validation_Sociology_2", False),
        "validation_Art_1": _v("validation_Art_1", False),
    }
    agg = aggregate(items, verdicts)
    assert list(agg.by_discipline) == ["Art and Design", "Humanities and Social Science"]
    # Sociology comes before Psychology in the official order.
    assert list(agg.by_subject) == ["Art", "Sociology", "Psychology"]
    # (1 + 1 + 0) / 3, not the mean of the subject accuracies (1.0 and 0.5).
    assert agg.by_discipline["Humanities and Social Science"] == Tally(3, 1 + 1 + 0)
    assert agg.overall == Tally(4, 2)


def test_items_without_a_verdict_drop_out_of_every_denominator(make_item):
    items = [make_item("validation_Art_1", "A"), make_item("validation_Art_2", "B")]
    agg = aggregate(items, {"validation_Art_1": _v("validation_Art_1", True)})
    assert agg.overall == Tally(1, 1)
    assert agg.by_subject == {"Art": Tally(1, 1)}


def test_breakdowns_by_img_type_difficulty_question_type_and_option_count(make_item):
    items = [
        make_item("validation_Art_1", "A", img_type=("Photos", "Diagrams"), difficulty="Hard"),
        make_item("validation_Art_2", "A", options=("x", "y"), img_type=("Diagrams",), difficulty="Easy"),
        make_item("validation_Art_3", "12", options=()),
    ]
    verdicts = {i.id: _v(i.id, i.id != "validation_Art_2") for i in items}
    agg = aggregate(items, verdicts)
    assert agg.by_img_type == {"Diagrams": Tally(2, 1), "Photos": Tally(1, 1)}
    assert list(agg.by_difficulty) == ["Easy", "Hard"]
    assert agg.by_question_type == {"multiple-choice": Tally(2, 1), "open": Tally(1, 1)}
    assert list(agg.by_option_count) == ["2", "4", "open"]


def test_no_verdicts_gives_empty_breakdowns_and_a_zero_overall(make_item):
    agg = aggregate([make_item("validation_Art_1", "A")], {})
    assert agg.overall == Tally(0, 0)
    assert agg.by_subject == {} and agg.by_option_count == {}
