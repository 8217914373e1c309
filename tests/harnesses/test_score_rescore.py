"""rescore on small hand-written files: malformed rows never stop it; the --json shape."""

from __future__ import annotations

import json
import random

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harnesses.read import rescore


def _pro_row(item_id, response, answer="A", options="['x', 'y', 'z', 'w']", **extra):
    return {"id": item_id, "options": options, "answer": answer, "response": response, "subject": "Art", **extra}


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_pro_malformed_rows_are_reported_and_scored_like_the_official_code(tmp_path):
    rows = [
        _pro_row("test_Art_1", "Answer: A"),
        _pro_row("test_Art_2", {"error": "rate limited"}),             # dict -> "" -> random fallback
        _pro_row("test_Art_3", None),                                  # official crash -> wrong
        _pro_row("test_Art_4", "there is not enough information to decide", answer="B",
                 options="[['A', 'B', 'Not enough information']]"),    # content pass crash -> wrong
        _pro_row("test_Art_5", "Answer: A", options="not a list ["),   # options do not decode -> wrong
    ]
    path = _write_jsonl(tmp_path / "m_vision_cot.jsonl", rows)
    (tmp_path / "m_vision_cot.jsonl").open("a").write("{not json\n")
    result = rescore(path, format="official-mmmu-pro")
    verdicts = result.scoring.verdicts["official"]
    assert verdicts["test_Art_1"].correct is True
    assert verdicts["test_Art_2"].fallback is True
    assert verdicts["test_Art_2"].pred == random.Random(42).choice(list("ABCD"))
    assert [verdicts[f"test_Art_{n}"].correct for n in (3, 4, 5)] == [False, False, False]
    text = "\n".join(result.problems)
    for needle in ("test_Art_3", "test_Art_4", "test_Art_5", "not JSON", "not 1730"):
        assert needle in text
    assert result.scoring.aggregates["official"].overall.n == 5
    assert result.items[0].setting == "vision"


def test_json_document_has_the_documented_shape(tmp_path):
    path = _write_jsonl(tmp_path / "m_standard_direct.jsonl",
                        [_pro_row("test_Art_1", "Answer: A"), _pro_row("test_Art_2", "hmm")])
    doc = rescore(path, format="official-mmmu-pro").to_json()
    assert doc["overall"]["total"] == 2 and isinstance(doc["overall"]["correct"], int)
    assert isinstance(doc["overall"]["accuracy"], float)
    assert doc["deterministic_correct"] == 1 and doc["fallbacks"] == 1
    assert doc["items"][0] == {"id": "test_Art_1", "pred": "A", "correct": True, "fallback": False}
    assert set(doc["items"][1]) == {"id", "pred", "correct", "fallback"}
    assert "by_subject" in doc and "by_discipline" in doc and "by_option_count" in doc
    json.dumps(doc)  # serialisable as it is


def test_official_mmmu_folder_reads_subjects_alphabetically(tmp_path):
    for subject, rows in {
        "Art": [{"id": "validation_Art_1", "question_type": "multiple-choice", "answer": "A",
                 "all_choices": ["A", "B"], "index2ans": {"A": "x", "B": "y"}, "response": "??"}],
        "Accounting": [
            {"id": "validation_Accounting_1", "question_type": "multiple-choice", "answer": "B",
             "all_choices": ["A", "B", "C"], "index2ans": {"A": "p", "B": "q", "C": "r"}, "response": "??"},
            {"id": "validation_Accounting_2", "question_type": "short-answer", "answer": ["12", "twelve"],
             "response": "so it is 12"},
            {"id": "validation_Accounting_3", "question_type": "short-answer", "answer": "1"},
            {"id": "validation_Accounting_2", "question_type": "short-answer", "answer": "1", "response": "1"},
            "garbage",
        ],
    }.items():
        (tmp_path / subject).mkdir()
        (tmp_path / subject / "output.json").write_text(json.dumps(rows))
    result = rescore(tmp_path, format="official-mmmu")
    rng = random.Random(42)
    expected_acc = rng.choice(["A", "B", "C"])
    expected_art = rng.choice(["A", "B"])
    verdicts = result.scoring.verdicts["official"]
    assert verdicts["validation_Accounting_1"].pred == expected_acc
    assert verdicts["validation_Art_1"].pred == expected_art
    assert verdicts["validation_Accounting_2"].correct is True
    assert verdicts["validation_Accounting_3"].correct is False
    assert any("no response field" in p for p in result.problems)
    assert any("not a row" in p for p in result.problems)
    assert any("repeated id" in p for p in result.problems)
    assert len(result.items) == 4


def test_eval_only_compares_letters_exactly_and_parses_open_answers(tmp_path):
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"validation_Art_1": "A", "validation_Art_2": "(A)", "validation_Math_1": "x = 3.5",
                                 "validation_Math_9": "A"}))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({
        "validation_Art_1": {"question_type": "multiple-choice", "ground_truth": "A"},
        "validation_Art_2": {"question_type": "multiple-choice", "ground_truth": "A"},
        "validation_Math_1": {"question_type": "short-answer", "ground_truth": "3.50"},
    }))
    result = rescore(preds, format="official-mmmu-eval-only", answers=answers)
    verdicts = result.scoring.verdicts["eval-only"]
    assert [verdicts[i].correct for i in ("validation_Art_1", "validation_Art_2", "validation_Math_1")] == [True, False, True]
    assert verdicts["validation_Math_9"].correct is False
    assert any("validation_Math_9" in p for p in result.problems)
    assert result.scoring.fallbacks == 0


def test_eval_only_needs_answers_and_formats_are_checked(tmp_path):
    with pytest.raises(ConfigError, match="--answers"):
        rescore(tmp_path / "x.json", format="official-mmmu-eval-only")
    with pytest.raises(ConfigError, match="--format"):
        rescore(tmp_path, format="lm-eval-harness")
    with pytest.raises(ConfigError, match="no <Subject>/output.json"):
        rescore(tmp_path, format="official-mmmu")
