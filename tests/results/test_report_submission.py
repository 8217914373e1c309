"""EvalAI submission files and the official answer-dict format."""

import dataclasses
import json
import logging

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.results.submission import submission
from mmmu_eval.scoring.answers import apply_answers, load_answer_dict


@pytest.fixture
def test_items(items):
    """The fixture items as the test split serves them: test ids, answers withheld."""
    return tuple(
        dataclasses.replace(it, id=it.id.replace("validation_", "test_"), split="test", answer=None) for it in items
    )


@pytest.fixture
def test_responses(responses):
    return {i.replace("validation_", "test_"): dataclasses.replace(r, item_id=i.replace("validation_", "test_")) for i, r in responses.items()}


def test_submission_has_letters_and_first_open_candidates(test_items, test_responses, build):
    scoring = build.score(test_items, test_responses)
    sub = submission(scoring, test_items)
    # Worked out from conftest.TEXTS: "(A)", "The answer is (B).", "(C)", "(D)", "(A)" read as those
    # letters; "I cannot tell." gets the official fallback, random.Random(42).choice("ABCD") == "A"
    # (the only draw); "The value is 42" gives the candidate 42.0, as a string; the error and the
    # item without a response are left out.
    assert sub == {
        "test_Art_1": "A", "test_Art_2": "B", "test_Art_3": "A", "test_Math_1": "C", "test_Math_2": "D",
        "test_Math_3": "42.0", "test_Physics_1": "A",
    }
    json.dumps(sub)


def _write(tmp_path, data) -> str:
    path = tmp_path / "answer_dict_test.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_load_answer_dict_reads_the_official_format(tmp_path):
    path = _write(tmp_path, {
        "test_Art_1": {"question_type": "multiple-choice", "ground_truth": "A"},
        "test_Math_3": {"question_type": "short-answer", "ground_truth": "42"},
        "test_Math_15": {"question_type": "short-answer", "ground_truth": ["24/7", "3.429"]},
        "test_Math_16": {"question_type": "open", "ground_truth": 7},
    })
    assert load_answer_dict(path) == {
        "test_Art_1": ("multiple-choice", "A"),
        "test_Math_3": ("open", "42"),
        "test_Math_15": ("open", ("24/7", "3.429")),
        "test_Math_16": ("open", "7"),
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("[1, 2]", "expected a JSON object"),
        ("{not json", "not a JSON answer dict"),
        ('{"test_Art_1": "A"}', "test_Art_1: expected"),
        ('{"test_Art_1": {"question_type": "multiple-choice", "ground_truth": {"x": 1}}}', "test_Art_1: ground_truth must be"),
        ('{"test_Art_1": {"question_type": "open", "ground_truth": []}}', "test_Art_1: ground_truth list"),
    ],
)
def test_load_answer_dict_names_the_problem(tmp_path, content, message):
    path = tmp_path / "answers.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_answer_dict(path)


def test_applied_answers_let_the_scorer_score_the_test_split(test_items, test_responses, build, caplog):
    answers = {
        "test_Art_1": ("multiple-choice", "A"),
        "test_Art_2": ("multiple-choice", "B"),
        "test_Math_3": ("open", ("41", "42")),
        "test_Unknown_1": ("open", "x"),  # not among the items: ignored
    }
    with caplog.at_level(logging.WARNING):
        scored_items = apply_answers(test_items, answers)
    assert [it.answer for it in scored_items[:2]] == ["A", "B"]
    assert scored_items[5].answer == ("41", "42") and scored_items[5].question_type == "open"
    assert scored_items[2].answer is None  # no entry: unchanged
    assert "have no entry in the answer file" in caplog.text
    verdicts = build.score(scored_items, test_responses).verdicts["official"]
    assert verdicts["test_Art_1"].correct and verdicts["test_Art_2"].correct and verdicts["test_Math_3"].correct


def test_an_answer_that_is_no_letter_of_the_item_is_kept_and_logged(test_items, caplog):
    with caplog.at_level(logging.WARNING):
        fixed = apply_answers(test_items[:1], {"test_Art_1": ("multiple-choice", "Z")})
    assert fixed[0].answer == "Z"
    assert "test_Art_1: the answer file gives 'Z', not one of the letters A, B, C, D" in caplog.text


def test_a_gold_answer_the_file_changes_is_named(items, caplog):
    """`report --answers` on a run that had gold answers replaced them silently when ids collided."""
    first = items[0]
    other = "B" if first.answer != "B" else "C"
    with caplog.at_level(logging.WARNING):
        fixed = apply_answers(items[:1], {first.id: ("multiple-choice", other)})
    assert fixed[0].answer == other
    assert "1 items already had a different gold answer" in caplog.text
    assert f"{first.id}: dataset {first.answer!r}, answer file {other!r}" in caplog.text


def test_the_same_gold_answer_is_not_reported(items, caplog):
    first = items[0]
    with caplog.at_level(logging.WARNING):
        apply_answers(items[:1], {first.id: (first.question_type, first.answer)})
    assert "different gold answer" not in caplog.text
