"""Regressions found by hand-corrupting a copy of the bundled sample (second-wave QA)."""

from __future__ import annotations

import pytest

from fakes.parquet_rows import drop_column, image_cell, mmmu_row, vision_row, write_mmmu, write_pro
from mmmu_eval.dataset import load_benchmark
from mmmu_eval.dataset.schema import MMMU_COLUMNS, PRO_VISION_COLUMNS
from mmmu_eval.core.errors import DataError


def test_a_missing_answer_column_is_a_problem_not_silently_withheld_answers(snap):
    """A validation file without its ``answer`` column loaded as if every answer were withheld
    (answer None), so its items were asked and then silently left unscored."""
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1")], columns=drop_column(MMMU_COLUMNS, "answer"))
    write_mmmu(snap, "Math", "validation", [mmmu_row("validation_Math_1")])
    ds = load_benchmark("mmmu", data=snap)
    assert [i.id for i in ds.items] == ["validation_Math_1"]
    assert [str(p) for p in ds.problems] == [
        "validation_Art_1: the file Art/validation-00000-of-00001.parquet has no 'answer' column"
    ]


def test_a_vision_file_without_answers_is_a_problem_too(snap):
    """The same silent loss for the MMMU-Pro vision setting."""
    write_pro(snap, "vision", [vision_row("test_Art_1")], columns=drop_column(PRO_VISION_COLUMNS, "answer"))
    ds = load_benchmark("mmmu-pro", setting="vision", data=snap)
    assert ds.items == ()
    assert "has no 'answer' column" in str(ds.problems[0])


def test_garbage_image_bytes_are_named_without_a_memory_address(snap):
    """PIL's message for unknown bytes carried ``<_io.BytesIO object at 0x7f...>``: noise that
    changed on every run and said nothing about the image."""
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=image_cell(b"this is not a png"))])
    item = load_benchmark("mmmu", data=snap).items[0]
    with pytest.raises(DataError) as caught:
        item.images[0].load()
    message = str(caught.value)
    assert message.startswith("validation_Art_1: image_1 is not a readable image")
    assert "0x" not in message and "BytesIO" not in message
    assert "17 bytes start b'this is not a pn'" in message


def test_a_truncated_parquet_file_is_one_error_naming_it_and_the_fix(tmp_path):
    """A half-written parquet file stopped the load with the file's name but no way forward."""
    (path,) = write_mmmu(tmp_path / "snap", "Art", "dev", [mmmu_row("dev_Art_1")])
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(DataError) as caught:
        load_benchmark("mmmu", split="dev", data=tmp_path / "snap")
    message = str(caught.value)
    assert message.startswith("Art/dev-00000-of-00001.parquet: not a readable parquet file (")
    assert message.endswith("; download it again (delete it, then `mmmu-eval data download`, or --data hub)")
    assert "\n" not in message


def test_finding_an_unreadable_row_says_why_not_that_the_id_is_unknown(snap):
    """`data show validation_Art_2` of a row with bad options answered "no item with this id ...;
    did you mean validation_Art_1?", though the row is right there."""
    from mmmu_eval.dataset import find_item

    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1"), mmmu_row("validation_Art_2", options="A) red, B) blue")])
    ds = load_benchmark("mmmu", data=snap)
    with pytest.raises(DataError) as caught:
        find_item(ds, "validation_Art_2")
    assert str(caught.value) == (
        "validation_Art_2: options 'A) red, B) blue' do not parse as a list (SyntaxError)"
        " (the row is in the data but cannot be used)"
    )
    assert caught.value.item_id == "validation_Art_2"


def test_a_subject_the_snapshot_lacks_names_the_snapshot_and_what_it_holds(snap):
    """`--subjects Basic_Medical_Science --data sample` said "MMMU/MMMU has no validation file",
    naming the hub repository, not the snapshot or the subjects it does hold."""
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1")])
    with pytest.raises(DataError) as caught:
        load_benchmark("mmmu", data=snap, subjects=["Basic_Medical_Science"])
    message = str(caught.value)
    assert message.startswith(f"data='{snap}': MMMU/MMMU has no validation file for 'Basic_Medical_Science'")
    assert message.endswith("(it holds: Art)")
    with pytest.raises(DataError, match=r"^data='sample' \(a few subjects only\): .*\(it holds: Accounting, Art, "):
        load_benchmark("mmmu", data="sample", subjects=["Basic_Medical_Science"])
