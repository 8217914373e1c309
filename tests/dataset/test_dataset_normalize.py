"""Every dataset quirk is repaired once, in normalisation (official-protocol.md sections 3, 6.1)."""

from __future__ import annotations

import pytest

from fakes.parquet_rows import (
    drop_column, mmmu_row, pro_row, vision_row, write_mmmu, write_pro,
)
from mmmu_eval.dataset import load_benchmark
from mmmu_eval.dataset.normalize import parse_answer, parse_img_type, parse_options
from mmmu_eval.dataset.schema import MMMU_COLUMNS, PRO_VISION_COLUMNS
from mmmu_eval.core.errors import DataError


@pytest.mark.parametrize(
    "raw, expected, why",
    [
        ("['$6', '$7', '$8', '$9']", ("$6", "$7", "$8", "$9"), "string repr of a list"),
        ("[]", (), "open questions"),
        ("", (), "empty cell"),
        (None, (), "null cell"),
        ('["it\'s", "a \\"quote\\""]', ("it's", 'a "quote"'), "quotes inside options"),
        ("[1, 2.5, '3']", ("1", "2.5", "3"), "numbers print as the official f-string would"),
        ("[['A', 'B', 'Not enough information']]", ("A", "B", "Not enough information"), "Accounting_29 nesting"),
        (str([f"o{i}" for i in range(12)]), tuple(f"o{i}" for i in range(12)), "12 options (A..L)"),
        (["x", "y"], ("x", "y"), "an already decoded list"),
    ],
)
def test_parse_options(raw, expected, why):
    assert parse_options(raw, "validation_Art_1", []) == expected, why


def test_nested_options_are_flattened_with_a_note():
    notes: list[str] = []
    parse_options("[['A', 'B', 'Not enough information']]", "validation_Accounting_29", notes)
    assert len(notes) == 1 and "nested" in notes[0]


@pytest.mark.parametrize(
    "raw",
    ["['a', 'b'", "__import__('os').system('echo pwned')", "{'a': 1}", "'just text'", "[['a'], 'b']", "[{'a': 1}]"],
)
def test_bad_options_raise_naming_the_item(raw):
    """Never eval: code in the options cell is a parse error, not an execution."""
    with pytest.raises(DataError) as info:
        parse_options(raw, "validation_Art_3", [])
    assert info.value.item_id == "validation_Art_3"
    assert str(info.value).startswith("validation_Art_3: options")


@pytest.mark.parametrize(
    "raw, qtype, expected",
    [
        ("B", "multiple-choice", "B"),
        ("1.06", "open", "1.06"),
        ("['$MgS$', 'MgS']", "open", ("$MgS$", "MgS")),
        ("['24/7', '3.429']", "open", ("24/7", "3.429")),
        ("[24, 3.5]", "open", ("24", "3.5")),
        ("?", "multiple-choice", None),
        ("", "open", None),
        (None, "open", None),
        (" ? ", "open", None),
        ("[0, 1)", "open", "[0, 1)"),  # an interval, not a list: kept as text
    ],
)
def test_parse_answer(raw, qtype, expected):
    assert parse_answer(raw, qtype, "x", []) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [("['Diagrams']", ("Diagrams",)), ("['Tables', 'Plots and Charts']", ("Tables", "Plots and Charts")),
     (None, ()), ("", ()), ("Diagrams", ("Diagrams",))],
)
def test_parse_img_type(raw, expected):
    assert parse_img_type(raw, []) == expected


def _one(root, subject="Accounting", split="validation", **row):
    write_mmmu(root, subject, split, [mmmu_row(f"{split}_{subject}_1", **row)])
    ds = load_benchmark("mmmu", split=split, data=root, subjects=[subject])
    assert not ds.problems, ds.problems
    return ds.items[0]


@pytest.mark.parametrize("qtype", ["open", "short-answer"])
def test_open_and_short_answer_both_mean_open(snap, qtype):
    item = _one(snap, options="[]", answer="1.06", question_type=qtype)
    assert item.question_type == "open" and item.choices == () and item.answer == "1.06"


def test_unknown_question_type_is_open_as_the_official_scorer_reads_it(snap):
    item = _one(snap, options="[]", answer="x", question_type="fill-in")
    assert item.question_type == "open" and any("fill-in" in n for n in item.notes)


def test_test_split_answers_are_withheld(snap):
    item = _one(snap, split="test", answer="?")
    assert item.answer is None and item.split == "test"


def test_mmmu_item_fields(snap):
    item = _one(snap, subject="Basic_Medical_Science", img_type="['Microscopic Images']", subfield="Histology",
                topic_difficulty="Hard", explanation="because")
    assert item.subject == "Basic_Medical_Science"
    assert item.discipline == "Health and Medicine"
    assert item.img_type == ("Microscopic Images",)
    assert (item.subfield, item.topic_difficulty, item.explanation) == ("Histology", "Hard", "because")
    assert item.choices == ("A", "B", "C", "D") and item.answer == "B"
    assert item.benchmark == "mmmu" and item.setting is None


def test_multiple_choice_letters_run_past_j(snap):
    item = _one(snap, options=str([f"v{i}" for i in range(12)]), answer="L")
    assert item.choices[-1] == "L" and not item.notes


def test_answer_outside_the_letters_is_kept_with_a_note(snap):
    item = _one(snap, options="['x', 'y']", answer="C")
    assert item.answer == "C" and any("not one of the choice letters" in n for n in item.notes)


def test_images_are_ordered_by_field_number(snap):
    from fakes.parquet_rows import image_cell, png

    item = _one(snap, question="<image 3> then <image 1>", image_1=image_cell(png()), image_3=image_cell(png()))
    assert [r.field for r in item.images] == ["image_1", "image_3"]
    assert item.image(3) is item.images[1] and item.image(2) is None


def test_pro_standard_rows_are_multiple_choice_with_subject_column(snap):
    write_pro(snap, "standard-10", [pro_row("test_History_1"), pro_row("validation_Art_Theory_4", subject="Art_Theory")])
    ds = load_benchmark("mmmu-pro", data=snap)
    a, b = ds.items
    assert (a.question_type, a.subject, a.subfield, a.setting) == ("multiple-choice", "History", None, "standard-10")
    assert b.subject == "Art_Theory" and b.discipline == "Art and Design"
    assert a.split == "test" and b.split == "test"  # the hub split, even for validation-origin ids


def test_pro_subject_falls_back_to_the_id(snap):
    write_pro(snap, "standard-4", [pro_row("test_Computer_Science_61", subject="")])
    item = load_benchmark("mmmu-pro", setting="standard-4", data=snap).items[0]
    assert item.subject == "Computer_Science"


def test_pro_subject_with_spaces_is_resolved(snap):
    write_pro(snap, "standard-10", [pro_row("test_Art_Theory_1", subject="Art Theory")])
    assert load_benchmark("mmmu-pro", data=snap).items[0].subject == "Art_Theory"


def test_pro_nested_options_row(snap):
    write_pro(snap, "standard-10", [pro_row("validation_Accounting_29", options="[['A', 'B', 'Not enough information']]",
                                            answer="B")])
    item = load_benchmark("mmmu-pro", data=snap).items[0]
    assert item.options == ("A", "B", "Not enough information") and item.answer == "B"
    assert any("nested" in n for n in item.notes)


def test_vision_rows_have_one_image_and_no_question(snap):
    write_pro(snap, "vision", [vision_row("test_History_1")])
    item = load_benchmark("mmmu-pro", setting="vision", data=snap).items[0]
    assert item.question == "" and item.question_type == "multiple-choice"
    assert [r.field for r in item.images] == ["image"] and item.images[0].number == 1
    assert item.options == ("one", "two", "three", "four") and item.answer == "A"


def test_vision_without_options_column_keeps_it_multiple_choice_with_a_note(snap):
    """The Aug 2024 vision config had only id, image, answer, subject."""
    write_pro(snap, "vision", [vision_row("test_History_1")], columns=drop_column(PRO_VISION_COLUMNS, "options"))
    item = load_benchmark("mmmu-pro", setting="vision", data=snap).items[0]
    assert item.options == () and item.question_type == "multiple-choice"
    assert any("options" in n for n in item.notes)


def test_missing_question_type_is_read_from_the_options(snap):
    rows = [mmmu_row("dev_Math_1"), mmmu_row("dev_Math_2", options="[]", answer="7")]
    write_mmmu(snap, "Math", "dev", rows, columns=drop_column(MMMU_COLUMNS, "question_type"))
    a, b = load_benchmark("mmmu", split="dev", data=snap, subjects=["math"]).items
    assert (a.question_type, b.question_type) == ("multiple-choice", "open")
    assert all("absent" in n for n in a.notes + b.notes)
