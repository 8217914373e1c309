"""Every form of --data reads into the same items, and bad rows are named, counted and skipped."""

from __future__ import annotations

import json

import pytest

from fakes.mc_set import IDS, write_jsonl_set, write_mmmu_set
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden.problems import count_by_kind
from mmmu_eval.harden.source import content_digest, read_source


def test_an_mmmu_directory_reads_every_usable_question(mmmu_set):
    source = read_source(mmmu_set)
    assert source.kind == "mmmu" and source.split == "validation"
    assert [it.id for it in source.items] == IDS
    assert source.problems == ()


def test_bad_mmmu_rows_are_left_out_each_named_and_counted(tmp_path):
    source = read_source(write_mmmu_set(tmp_path / "m", bad_rows=True))
    assert len(source.items) == 18
    by_id = {p.where: p for p in source.problems}
    assert "no answer" in by_id["validation_Math_7"].problem
    assert "'F' is beyond the 4 options (A-D)" in by_id["validation_Math_8"].problem
    assert "do not parse as a list" in by_id["validation_Math_9"].problem
    assert by_id["validation_Math_10"].kind == "open question" and not by_id["validation_Math_10"].bad
    assert count_by_kind(source.problems) == {"no answer": 1, "answer letter": 1, "row": 1, "open question": 1}


def test_the_bundled_sample_reads_as_its_validation_split():
    source = read_source("sample")
    assert source.kind == "mmmu" and len(source.items) + len(source.problems) == 40
    assert all(p.kind == "open question" for p in source.problems)


def test_a_jsonl_row_with_each_kind_of_bad_input_is_named_by_its_line(tmp_path):
    path = write_jsonl_set(tmp_path, [
        {"id": "test_Biology_1", "question": "Good <image 1>?", "options": ["a", "b"], "answer": "B", "image_1": "auto"},
        {"question": "No id, but a subject", "options": ["a", "b", "c"], "answer": "C", "subject": "bio"},
        {"id": "test_Biology_3", "question": "Missing image <image 1>", "options": ["a", "b"], "answer": "A", "image_1": "img/none.png"},
        {"id": "test_Biology_4", "question": "No answer", "options": ["a", "b"]},
        {"id": "test_Biology_5", "question": "Options not a list", "options": "a, b", "answer": "A"},
        {"id": "test_Biology_6", "question": "Letter beyond", "options": ["a", "b"], "answer": "C"},
        {"id": "row_7", "question": "No subject anywhere", "options": ["a", "b"], "answer": "A"},
        {"id": "test_Biology_1", "question": "Duplicate id", "options": ["a", "b"], "answer": "A"},
        {"id": "test_Biology_9", "question": "Token without image <image 2>", "options": ["a", "b"], "answer": "A"},
    ])
    with path.open("a") as fh:
        fh.write("{not json\n")
    source = read_source(path)
    assert [it.id for it in source.items] == ["test_Biology_1", "data_Biology_2"]
    assert source.items[1].subject == "Biology"
    problems = {p.where: p.problem for p in source.problems}
    assert "no file at img/none.png" in problems["data.jsonl line 3 (test_Biology_3)"]
    assert problems["data.jsonl line 4 (test_Biology_4)"] == "the row has no answer"
    assert problems["data.jsonl line 5 (test_Biology_5)"] == "options are a str, not a list"
    assert "'C' is beyond the 2 options (A-B)" in problems["test_Biology_6"]
    assert "no subject" in problems["data.jsonl line 7 (row_7)"]
    assert "duplicate id (first on line 1)" in problems["data.jsonl line 8 (test_Biology_1)"]
    assert "refers to <image 2>" in problems["test_Biology_9"]
    assert "not valid JSON" in problems["data.jsonl line 10"]
    assert len(source.problems) == 8


def test_jsonl_rows_without_a_subject_take_the_default_subject(tmp_path):
    path = write_jsonl_set(tmp_path, [{"question": "Q", "options": ["a", "b"], "answer": "A"}])
    assert read_source(path, default_subject="phys").items[0].subject == "Physics"


def test_the_content_digest_changes_with_an_option_and_not_with_nothing(tmp_path):
    first = read_source(write_mmmu_set(tmp_path / "a"))
    again = read_source(write_mmmu_set(tmp_path / "b"))
    assert content_digest(first.items) == content_digest(again.items)
    rows = [{"id": "test_Biology_1", "question": "Q", "options": ["a", "b"], "answer": "A"}]
    one = content_digest(read_source(write_jsonl_set(tmp_path / "c", rows)).items)
    rows[0]["options"] = ["a", "c"]
    assert content_digest(read_source(write_jsonl_set(tmp_path / "d", rows)).items) != one


@pytest.mark.parametrize("data, message", [
    ("nowhere/at/all", "no such file or directory"),
    ("README.txt", "must be a .jsonl"),
])
def test_data_that_is_none_of_the_forms_is_a_setup_error(tmp_path, monkeypatch, data, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.txt").write_text("hello")
    with pytest.raises(ConfigError, match=message):
        read_source(data)


def test_a_limit_keeps_the_first_usable_questions(mmmu_set):
    assert [it.id for it in read_source(mmmu_set, limit=3).items] == IDS[:3]
    assert json.dumps(read_source(mmmu_set, subjects=["math"]).describe()["items"]) == "6"
