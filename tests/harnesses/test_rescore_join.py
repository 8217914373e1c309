"""Joining rows to our items: id schemes, rows that do not join, files that mix, --format auto, bad files."""

from __future__ import annotations

import pytest
from fakes.harness_outputs import write_eval_zip, write_json, write_jsonl, write_tsv, write_xlsx

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.readers import detect
from mmmu_eval.harnesses.read import rescore


def test_plain_jsonl_ids_as_in_the_dataset_or_written_another_way(tmp_path):
    path = write_jsonl(tmp_path / "out.jsonl", [
        {"id": "validation_Art_1", "response": "(C)"},                  # gold C
        {"id": "Validation-Art-2", "response": "B"},                    # gold B, written another way
        {"id": "validation_Art_99", "response": "A"},                   # no such item
        {"id": "validation_Art_4", "error": "timeout after 3 tries"},   # a failure, not an answer
        {"id": "validation_Art_3", "response": None},                   # not text: nothing scored
        {"response": "A"},                                              # no id
    ])
    result = rescore(path, data="sample", benchmark="mmmu")
    assert result.format == "jsonl"
    assert {i: v.correct for i, v in result.scoring.verdicts["official"].items()} == {
        "validation_Art_1": True, "validation_Art_2": True}
    assert result.scoring.errors == ("validation_Art_4",)
    assert any("1 id(s) written another way" in n for n in result.notes)
    assert any(u.startswith("out.jsonl:3 (validation_Art_99): no item has this id among 40") for u in result.unjoined)
    assert any("out.jsonl:5 (validation_Art_3)" in p and "not text" in p for p in result.problems)
    assert any("out.jsonl:6" in p and '"id"' in p for p in result.problems)
    assert result.explanation.graded == 0  # no verdicts of its own


def test_plain_jsonl_with_its_own_verdicts(tmp_path):
    path = write_jsonl(tmp_path / "out.jsonl", [
        {"id": "validation_Art_4", "response": "B", "correct": False, "pred": "B"},   # gold B: the tool says wrong
        {"id": "validation_Art_1", "response": "C", "correct": True, "pred": "C"},
    ])
    result = rescore(path, data="sample", benchmark="mmmu")
    difference, = result.explanation.differences
    assert (difference.id, difference.cause) == ("validation_Art_4", "other")


def test_ids_that_match_nothing_are_one_clear_error(tmp_path):
    path = write_jsonl(tmp_path / "out.jsonl", [{"id": "q1", "response": "A"}, {"id": "q2", "response": "B"}])
    with pytest.raises(DataError, match=r"no row matches an item .*'q1', expected an id such as validation_Accounting_1"):
        rescore(path, data="sample", benchmark="mmmu")


def test_a_file_that_mixes_benchmarks_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "mixed.jsonl", [
        {"id": "validation_Art_1", "response": "A", "benchmark": "mmmu"},
        {"id": "validation_Art_2", "response": "A", "benchmark": "mmmu"},
        {"id": "test_Art_7", "response": "A", "benchmark": "mmmu-pro", "setting": "vision"},
    ])
    with pytest.raises(ConfigError, match=r"mixes benchmarks \(2 row\(s\) mmmu, 1 row\(s\) mmmu-pro\)"):
        rescore(path, data="sample")


def test_a_file_that_mixes_settings_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "mixed.jsonl", [
        {"id": "test_Art_7", "response": "A", "benchmark": "mmmu-pro", "setting": "vision"},
        {"id": "test_Art_7", "response": "A", "benchmark": "mmmu-pro", "setting": "standard-10"},
    ])
    with pytest.raises(ConfigError, match="mixes settings"):
        rescore(path, data="sample")


def test_two_splits_need_a_choice(tmp_path):
    path = write_jsonl(tmp_path / "both.jsonl", [
        {"id": "dev_Art_2", "response": "B"}, {"id": "validation_Art_1", "response": "C"},
        {"id": "validation_Art_2", "response": "B"},
    ])
    with pytest.raises(ConfigError, match=r"mix MMMU splits \(2 validation, 1 dev\); pass --split"):
        rescore(path, data="sample", benchmark="mmmu")
    result = rescore(path, data="sample", benchmark="mmmu", split="dev")
    assert [it.id for it in result.items] == ["dev_Art_2"]
    assert any("2 row(s) of another split than dev set aside" in n for n in result.notes)


def test_the_benchmark_must_be_said_somewhere(tmp_path):
    path = write_jsonl(tmp_path / "out.jsonl", [{"id": "validation_Art_1", "response": "A"}])
    with pytest.raises(ConfigError, match="pass --benchmark"):
        rescore(path, data="sample")


def test_mmmu_pro_needs_its_setting(tmp_path):
    path = write_jsonl(tmp_path / "out.jsonl", [{"id": "test_Art_7", "response": "A"}])
    with pytest.raises(ConfigError, match="--setting"):
        rescore(path, data="sample", benchmark="mmmu-pro")


def _one_of_each(tmp_path):
    """The smallest file of each format, as its harness writes it."""
    lmms = write_jsonl(tmp_path / "a" / "1_samples_mmmu_val.jsonl", [{"doc_id": 1, "filtered_resps": "B"}])
    vlm = write_xlsx(tmp_path / "b" / "M_MMMU_DEV_VAL.xlsx", ["index", "id", "question", "A", "B", "answer", "split", "prediction"],
                     [[7, "validation_Art_4", "q", "4", "5", "B", "validation", "B"]])
    tsv = write_tsv(tmp_path / "b2" / "M_MMMU_DEV_VAL.tsv", ["index", "id", "question", "A", "B", "answer", "split", "prediction"],
                    [[7, "validation_Art_4", "q", "4", "5", "B", "validation", "B"]])
    inspect_zip = write_eval_zip(tmp_path / "c" / "x.eval", {"version": 2, "status": "success",
                                 "eval": {"task": "mmmu_multiple_choice", "model": "m"}},
                                 [{"id": 1, "epoch": 1, "target": "B", "output": {"completion": "B"}}])
    inspect_json = write_json(tmp_path / "c2" / "x.json", {"version": 2, "status": "success",
                              "eval": {"task": "mmmu_multiple_choice", "model": "m"},
                              "samples": [{"id": 1, "epoch": 1, "target": "B", "output": {"completion": "B"}}]})
    verifiers = write_jsonl(tmp_path / "d" / "traces.jsonl", [
        {"task": {"data": {"info": {"id": "validation_Art_4", "benchmark": "mmmu", "split": "validation"}}},
         "traces": [{"nodes": [{"message": {"role": "assistant", "content": "B"}, "sampled": True}],
                     "rewards": {}}]}])
    plain = write_jsonl(tmp_path / "e" / "x.jsonl", [{"id": "validation_Art_4", "response": "B", "benchmark": "mmmu"}])
    official = write_json(tmp_path / "f" / "Art" / "output.json", [
        {"id": "validation_Art_4", "question_type": "multiple-choice", "answer": "B",
         "all_choices": ["A", "B"], "index2ans": {"A": "4", "B": "5"}, "response": "B"}]).parent.parent
    pro = write_jsonl(tmp_path / "g" / "m_vision_direct.jsonl", [
        {"id": "test_Art_7", "options": "['a', 'b']", "answer": "B", "response": "Answer: B", "subject": "Art"}])
    return {"official-mmmu-pro": pro, "lmms-eval": lmms, "vlmevalkit": vlm, "vlmevalkit-tsv": tsv, "inspect": inspect_zip,
            "inspect-json": inspect_json, "verifiers": verifiers, "jsonl": plain, "official-mmmu": official}


def test_auto_recognises_each_format_and_scores_it(tmp_path):
    for name, path in _one_of_each(tmp_path).items():
        expected = name.split("-tsv")[0].split("-json")[0]
        assert detect(path)[0] == expected, name
        result = rescore(path, data="sample")
        assert result.format == expected and result.detected, name
        assert result.scoring.aggregates["official"].overall.n == 1, name


def test_a_wrong_format_names_the_one_it_looks_like(tmp_path):
    lmms = _one_of_each(tmp_path)["lmms-eval"]
    with pytest.raises(DataError, match=r"no row is a verifiers rollout.*looks like --format lmms-eval"):
        rescore(lmms, format="verifiers", data="sample")


def test_a_foreign_file_is_not_recognised(tmp_path):
    page = tmp_path / "report.html"
    page.write_text("<!doctype html><html></html>")
    with pytest.raises(ConfigError, match=r"--format auto does not recognise this \.html file"):
        rescore(page, data="sample")
    garbage = tmp_path / "x.jsonl"
    garbage.write_bytes(b"\x00\xff\xfe garbage\n\x01\x02\n")
    with pytest.raises(DataError, match=r"no row is a \{\"id\", \"response\"\} object.*not a JSON line"):
        rescore(garbage, format="jsonl", data="sample", benchmark="mmmu")


def test_a_corrupt_workbook_is_one_clear_error(tmp_path):
    book = tmp_path / "M_MMMU_DEV_VAL.xlsx"
    book.write_bytes(b"PK\x03\x04 this is not a workbook")
    with pytest.raises(DataError, match="not a readable .xlsx workbook"):
        rescore(book, format="vlmevalkit", data="sample")
