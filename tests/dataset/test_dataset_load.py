"""Loading from a snapshot directory: order, filters, provenance, and bad input that spares the rest."""

from __future__ import annotations

import hashlib

import pytest

from fakes.parquet_rows import (
    drop_column, image_cell, mmmu_row, png, pro_row, write_mmmu, write_pro,
)
from mmmu_eval.dataset import find_item, load_benchmark
from mmmu_eval.dataset.schema import MMMU_COLUMNS, PRO_STANDARD_COLUMNS
from mmmu_eval.core.errors import ConfigError, DataError


def _subject_rows(subject, split="validation", n=3):
    return [mmmu_row(f"{split}_{subject}_{i}") for i in range(1, n + 1)]


def test_subjects_load_alphabetically_and_rows_in_file_order(snap):
    for subject in ("Physics", "Accounting", "Art_Theory"):
        write_mmmu(snap, subject, "validation", _subject_rows(subject)[::-1])
    ds = load_benchmark("mmmu", data=snap)
    assert [i.id for i in ds.items] == [
        "validation_Accounting_3", "validation_Accounting_2", "validation_Accounting_1",
        "validation_Art_Theory_3", "validation_Art_Theory_2", "validation_Art_Theory_1",
        "validation_Physics_3", "validation_Physics_2", "validation_Physics_1",
    ]
    assert ds.files == tuple(f"{s}/validation-00000-of-00001.parquet" for s in ("Accounting", "Art_Theory", "Physics"))
    assert (ds.source, ds.revision, ds.split, ds.setting) == (str(snap), "local", "validation", None)


def test_shards_are_read_in_order(snap):
    write_mmmu(snap, "Math", "test", _subject_rows("Math", "test", 5), shards=3)
    ds = load_benchmark("mmmu", split="test", data=snap)
    assert [i.id for i in ds.items] == [f"test_Math_{i}" for i in range(1, 6)]
    assert len(ds.files) == 3 and ds.files[0].endswith("test-00000-of-00003.parquet")


def test_only_the_requested_split_is_read(snap):
    write_mmmu(snap, "Math", "dev", _subject_rows("Math", "dev", 2))
    write_mmmu(snap, "Math", "validation", _subject_rows("Math", "validation", 4))
    assert len(load_benchmark("mmmu", split="dev", data=snap)) == 2
    assert len(load_benchmark("mmmu", data=snap)) == 4  # validation is the default split


def test_digest_is_sha256_of_the_files_in_order(snap):
    paths = write_mmmu(snap, "Art", "dev", _subject_rows("Art", "dev")) + write_mmmu(snap, "Math", "dev", _subject_rows("Math", "dev"))
    ds = load_benchmark("mmmu", split="dev", data=snap)
    assert ds.digest == hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()


@pytest.mark.parametrize("names", [["acc", "phys"], ["Accounting", "Physics"], ["accounting", "physics"]])
def test_subject_filter_by_long_or_short_name(snap, names):
    for subject in ("Accounting", "Math", "Physics"):
        write_mmmu(snap, subject, "validation", _subject_rows(subject, n=1))
    ds = load_benchmark("mmmu", data=snap, subjects=names)
    assert [i.subject for i in ds.items] == ["Accounting", "Physics"]


def test_unknown_subject_is_a_config_error_with_a_suggestion(snap):
    write_mmmu(snap, "Accounting", "validation", _subject_rows("Accounting"))
    with pytest.raises(ConfigError, match="unknown subject 'acounting'; did you mean Accounting"):
        load_benchmark("mmmu", data=snap, subjects=["acounting"])


def test_a_named_subject_missing_from_the_snapshot_is_an_error(snap):
    write_mmmu(snap, "Accounting", "validation", _subject_rows("Accounting"))
    with pytest.raises(DataError, match="'Physics'"):
        load_benchmark("mmmu", data=snap, subjects=["acc", "phys"])


def test_pro_subject_filter_keeps_file_order(snap):
    rows = [pro_row("test_History_1"), pro_row("test_Art_2"), pro_row("test_History_3"), pro_row("validation_Math_4")]
    write_pro(snap, "standard-10", rows)
    ds = load_benchmark("mmmu-pro", data=snap, subjects=["his", "Math"])
    assert [i.id for i in ds.items] == ["test_History_1", "test_History_3", "validation_Math_4"]


@pytest.mark.parametrize("setting, folder", [("standard-4", "standard (4 options)"), ("standard (4 options)", "standard (4 options)")])
def test_pro_settings_by_short_or_hub_name(snap, setting, folder):
    write_pro(snap, "standard-4", [pro_row("test_History_1")])
    ds = load_benchmark("mmmu-pro", setting=setting, data=snap)
    assert ds.setting == "standard-4" and ds.files == (f"{folder}/test-00000-of-00001.parquet",)


def test_snapshot_root_may_hold_both_benchmarks(snap):
    write_mmmu(snap / "MMMU", "Art", "dev", _subject_rows("Art", "dev", 1))
    write_pro(snap / "MMMU_Pro", "vision", [])
    assert len(load_benchmark("mmmu", split="dev", data=snap)) == 1
    assert len(load_benchmark("mmmu-pro", setting="vision", data=snap)) == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(benchmark="mmlu"), "unknown benchmark"),
        (dict(benchmark="mmmu", split="train"), "unknown MMMU split"),
        (dict(benchmark="mmmu", setting="vision"), "applies to mmmu-pro only"),
        (dict(benchmark="mmmu-pro", split="validation"), "one split"),
        (dict(benchmark="mmmu-pro", setting="standard-7"), "unknown MMMU-Pro setting"),
        (dict(benchmark="mmmu", revision="main"), "revision='main' applies to data='hub' only"),
    ],
)
def test_wrong_requests_are_config_errors(snap, kwargs, message):
    write_mmmu(snap, "Art", "validation", _subject_rows("Art"))
    with pytest.raises(ConfigError, match=message):
        load_benchmark(data=snap, **kwargs)


def test_missing_directory_and_empty_snapshot(tmp_path, snap):
    with pytest.raises(ConfigError, match="no such directory"):
        load_benchmark("mmmu", data=tmp_path / "nope")
    write_mmmu(snap, "Art", "dev", _subject_rows("Art", "dev"))
    with pytest.raises(DataError, match=r"no test files .* \(it holds: Art\)"):
        load_benchmark("mmmu", split="test", data=snap)


def test_bad_rows_are_problems_naming_the_item_and_the_rest_loads(snap):
    rows = [
        mmmu_row("validation_Art_1"),
        mmmu_row("validation_Art_2", options="['a', 'b'"),              # unparsable options
        mmmu_row("validation_Art_3", image_1=image_cell(b"not a png")),  # corrupt image: an item, fails on load
        mmmu_row("validation_Art_4", options="[]", question_type="multiple-choice"),
        mmmu_row(None),                                                   # no id
        mmmu_row("validation_Art_1"),                                     # duplicate id
        mmmu_row("validation_Art_7"),
    ]
    write_mmmu(snap, "Art", "validation", rows)
    ds = load_benchmark("mmmu", data=snap)
    assert [i.id for i in ds.items] == ["validation_Art_1", "validation_Art_3", "validation_Art_7"]
    messages = [str(p) for p in ds.problems]
    assert messages[0].startswith("validation_Art_2: options")
    assert messages[1] == "validation_Art_4: a multiple-choice question with no options"
    assert messages[2] == "Art/validation-00000-of-00001.parquet row 4: the row has no id"
    assert messages[3].startswith("validation_Art_1: duplicate id")
    assert [p.item_id for p in ds.problems] == ["validation_Art_2", "validation_Art_4", None, "validation_Art_1"]


@pytest.mark.parametrize("column", ["options", "question"])
def test_a_missing_required_column_names_each_item(snap, column):
    write_mmmu(snap, "Art", "dev", _subject_rows("Art", "dev", 2), columns=drop_column(MMMU_COLUMNS, column))
    write_mmmu(snap, "Math", "dev", _subject_rows("Math", "dev", 2))
    ds = load_benchmark("mmmu", split="dev", data=snap)
    assert [i.id for i in ds.items] == ["dev_Math_1", "dev_Math_2"]
    assert [str(p) for p in ds.problems] == [
        f"dev_Art_{i}: the file Art/dev-00000-of-00001.parquet has no {column!r} column" for i in (1, 2)
    ]


def test_optional_columns_may_be_absent(snap):
    slim = tuple(c for c in MMMU_COLUMNS if c in ("id", "question", "options", "image_1", "answer", "question_type"))
    write_mmmu(snap, "Art", "dev", _subject_rows("Art", "dev", 1), columns=slim)
    item = load_benchmark("mmmu", split="dev", data=snap).items[0]
    assert (item.img_type, item.subfield, item.topic_difficulty, item.explanation) == ((), None, None, "")


def test_a_file_that_is_not_parquet_is_a_data_error_naming_it(snap):
    (snap / "Art").mkdir()
    (snap / "Art" / "dev-00000-of-00001.parquet").write_bytes(b"PAR1 nonsense")
    with pytest.raises(DataError, match="Art/dev-00000-of-00001.parquet: not a readable parquet file"):
        load_benchmark("mmmu", split="dev", data=snap)


def test_unknown_pro_subject_is_a_problem(snap):
    write_pro(snap, "standard-10", [pro_row("test_Alchemy_1", subject="Alchemy"), pro_row("test_Math_2")],
              columns=PRO_STANDARD_COLUMNS)
    ds = load_benchmark("mmmu-pro", data=snap)
    assert [i.id for i in ds.items] == ["test_Math_2"]
    assert str(ds.problems[0]).startswith("test_Alchemy_1: no known subject")


def test_find_item_and_its_suggestion(snap):
    write_mmmu(snap, "Art", "validation", _subject_rows("Art"))
    ds = load_benchmark("mmmu", data=snap)
    assert find_item(ds, "validation_Art_2").id == "validation_Art_2"
    assert find_item(list(ds.items), "validation_Art_3").id == "validation_Art_3"
    with pytest.raises(DataError, match="did you mean validation_Art_1") as info:
        find_item(ds, "validation_Art_10")
    assert info.value.item_id == "validation_Art_10"


def test_dataset_prints_who_it_is(snap):
    write_mmmu(snap, "Art", "validation", _subject_rows("Art"))
    assert repr(load_benchmark("mmmu", data=snap)) == f"Benchmark(mmmu validation, 3 items, 0 problems, {snap}@local)"


def test_a_file_in_the_hub_types_loads_every_field(snap):
    """Image cells are {bytes, path} structs and text cells strings, as the hub stores them (the
    hub's own metadata kept); the loader reads each: an image's bytes (its path is only a name),
    the options list, the answer and the img_type list.

    This used to check only that the test fixture wrote those types, never that the loader reads them."""
    import pyarrow.parquet as pq

    picture = png((1, 2, 3))
    (path,) = write_mmmu(snap, "Art", "dev", [mmmu_row("dev_Art_1", question="See <image 1> and <image 2>.",
                                                       image_2=image_cell(picture, "b.png"))])
    schema = pq.read_schema(path)
    assert str(schema.field("image_2").type) == "struct<bytes: binary, path: string>"
    assert str(schema.field("options").type) == "string" and b"huggingface" in schema.metadata
    (item,) = load_benchmark("mmmu", split="dev", data=snap).items
    assert [ref.field for ref in item.images] == ["image_1", "image_2"]
    assert item.images[1].load() == picture and item.images[0].load() == png()
    assert (item.options, item.answer, item.img_type) == (("red", "green", "blue", "grey"), "B", ("Plots and Charts",))
