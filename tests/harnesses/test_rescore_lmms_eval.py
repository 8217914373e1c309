"""lmms-eval per-sample logs, hand-written in each layout it has used, rescored on the bundled sample.

Items (``--data sample``, MMMU validation): doc_id is the 0-based position in that split, e.g.
0 = validation_Accounting_1 (open, gold 116), 7 = validation_Art_4 (options 4, 5; gold B).
The official fallback draws come from one random.Random(42), in subject order: Art_4 (2 choices)
draws first, Economics_3 (4 choices) second.
"""

from __future__ import annotations

import random

import pytest
from fakes.harness_outputs import write_json, write_jsonl

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.read import rescore


def _sample(doc_id, item_id, response, answer, parsed, qtype="multiple-choice"):
    """A v0.4 sample line: no doc, flattened filtered_resps, parsed_pred as a list (one per repeat)."""
    acc = {"id": item_id, "subdomain": item_id.split("_", 1)[1].rsplit("_", 1)[0], "question_type": qtype,
           "answer": answer, "parsed_pred": [parsed]}
    return {"doc_id": doc_id, "target": str(answer), "filtered_resps": response, "token_counts": [None],
            "doc_hash": "x", "input": f"question {doc_id}", "mmmu_acc": acc, "mmmu_acc_pass_at_k": acc,
            "submission": {item_id: parsed}}


ROWS = [
    _sample(1, "validation_Accounting_2", "The answer is B.", "B", "B"),          # both right
    _sample(2, "validation_Accounting_3", "A", "A", "A"),                         # both right
    # open, gold 116: the official matcher finds 116; lmms-eval walks "116.0" character by character
    _sample(0, "validation_Accounting_1", "The total is 116", "116", "116.0", qtype="open"),
    # nothing parses on either side: official draws A (first draw, 2 choices), lmms-eval logged B
    _sample(7, "validation_Art_4", "I cannot tell", "B", "B"),
    # "B.\n": no " B " for the official parser (fallback, second draw: A); lmms-eval's "L." pass takes B
    _sample(18, "validation_Economics_3", "I choose B.\n", "B", "B"),
    # a list gold that lmms-eval keeps as its text "['1/4', '0.25']"
    _sample(15, "validation_Design_4", "0.25", "['1/4', '0.25']", "0.25", qtype="open"),
    # official: no spaced letter, the content pass finds "juniper" = B; lmms-eval's "L." pass takes E
    _sample(36, "validation_Public_Health_1", "The picture shows a juniper tree on a hill (see note E.)", "B", "E"),
    {"doc_id": 99, "target": "A", "filtered_resps": "A"},                         # no such position
]


@pytest.fixture
def log(tmp_path):
    path = write_jsonl(tmp_path / "qwen2_vl" / "20250101_120000_samples_mmmu_val.jsonl", ROWS,
                       tail='{"doc_id": 3, "filtered_re')
    write_json(path.with_name("20250101_120000_results.json"),
               {"results": {"mmmu_val": {"alias": "mmmu_val", "mmmu_acc,none": 4 / 7}},
                "n-samples": {"mmmu_val": {"original": 900, "effective": 7}}, "model_name": "qwen2_vl"})
    return path


def test_official_verdicts_worked_out_by_hand(log):
    result = rescore(log, data="sample")
    verdicts = result.scoring.verdicts["official"]
    rng = random.Random(42)
    art_draw, econ_draw = rng.choice(["A", "B"]), rng.choice(list("ABCD"))
    assert (verdicts["validation_Art_4"].pred, verdicts["validation_Economics_3"].pred) == (art_draw, econ_draw) == ("A", "A")
    right = {i for i, v in verdicts.items() if v.correct}
    assert right == {"validation_Accounting_2", "validation_Accounting_3", "validation_Accounting_1",
                     "validation_Design_4", "validation_Public_Health_1"}
    assert result.scoring.aggregates["official"].overall.n == 7
    assert result.scoring.fallbacks == 2 and result.scoring.deterministic_correct == 5


def test_every_difference_has_its_cause(log):
    explanation = rescore(log, data="sample").explanation
    causes = {d.id: d.cause for d in explanation.differences}
    assert causes == {
        "validation_Accounting_1": "open-match",
        "validation_Art_4": "fallback",
        "validation_Economics_3": "fallback",
        "validation_Design_4": "gold",
        "validation_Public_Health_1": "letter",
    }
    by_id = {d.id: d for d in explanation.differences}
    assert "official and harness" in by_id["validation_Art_4"].detail      # nothing parsed on their side either
    assert "official side" in by_id["validation_Economics_3"].detail        # their "L." pass found B
    assert "character by character" in by_id["validation_Accounting_1"].detail
    assert (by_id["validation_Public_Health_1"].harness_pred, by_id["validation_Public_Health_1"].official_pred) == ("E", "B")
    # harness: Accounting_2, Accounting_3, Art_4, Economics_3 right = 4 of 7; official 5 of 7
    assert (explanation.harness_correct, explanation.official_correct, explanation.graded) == (4, 5, 7)
    assert explanation.recorded.accuracy == pytest.approx(4 / 7)
    assert "results.mmmu_val" in explanation.recorded.source


def test_bad_rows_are_named_and_not_scored(log):
    result = rescore(log, data="sample")
    assert any("position 99 is outside 0..39" in u for u in result.unjoined)
    assert any(":9: not a JSON line (the last line is cut short)" in p for p in result.problems)
    assert result.source.model == "qwen2_vl" and result.source.task == "mmmu_val"


def test_v03_layout_with_doc_and_nested_responses(tmp_path):
    """lmms-eval 0.3 keeps the dataset row under doc and lists the responses: [text] and [[text]]."""
    row = {"doc_id": 4, "doc": {"id": "validation_Art_1", "question_type": "multiple-choice"},
           "target": "C", "arguments": [], "resps": [["(C)"]], "filtered_resps": ["(C)"], "doc_hash": "x",
           "mmmu_acc": {"id": "validation_Art_1", "subdomain": "Art", "question_type": "multiple-choice",
                        "answer": "C", "parsed_pred": "C"},
           "submission": {"validation_Art_1": "(C)"}, "input": "q"}
    open_row = {"doc_id": 6, "doc": {"id": "validation_Art_3"}, "target": "triangle", "resps": [["a triangle"]],
                "filtered_resps": ["a triangle"],
                "mmmu_acc": {"id": "validation_Art_3", "subdomain": "Art", "question_type": "open",
                             "answer": "triangle", "parsed_pred": ["a triangle"]}}
    result = rescore(write_jsonl(tmp_path / "20240901_samples_mmmu_val.jsonl", [row, open_row]),
                     format="lmms-eval", data="sample")
    assert {i: v.correct for i, v in result.scoring.verdicts["official"].items()} == {
        "validation_Art_1": True, "validation_Art_3": True}
    # the old layout logs the open candidates as a list, which its matcher reads as candidates
    assert result.harness["validation_Art_3"].correct is True
    assert result.explanation.differences == ()


def test_v02_json_with_logs(tmp_path):
    path = write_json(tmp_path / "mmmu_val.json", {"args": {}, "model_configs": {}, "logs": [
        {"doc_id": 10, "target": "C", "resps": [["C"]], "filtered_resps": ["C"],
         "mmmu_acc": {"id": "validation_Computer_Science_3", "subdomain": "Computer_Science",
                      "question_type": "multiple-choice", "answer": "C", "parsed_pred": "C"}},
    ]})
    result = rescore(path, data="sample")
    assert result.format == "lmms-eval" and "0.1-0.2" in result.detected
    assert result.scoring.verdicts["official"]["validation_Computer_Science_3"].correct is True


def test_reasoning_task_judge_keyed_by_doc_id(tmp_path):
    """mmmu_val_reasoning logs only an LLM judge's score, and no id: doc_id 6 is validation_Art_3 (gold triangle)."""
    path = write_jsonl(tmp_path / "20250101_samples_mmmu_val_reasoning.jsonl", [
        {"doc_id": 6, "target": "triangle", "filtered_resps": "It is a three-sided polygon", "llm_as_judge_eval": 1.0},
        {"doc_id": 3, "target": "24", "filtered_resps": "so the answer is 24", "llm_as_judge_eval": 1.0},
    ])
    result = rescore(path, data="sample")
    assert result.source.prompt_mode == "cot"
    difference, = result.explanation.differences
    assert (difference.id, difference.cause, difference.official_correct) == ("validation_Art_3", "judge", False)
    assert result.scoring.verdicts["official"]["validation_Accounting_4"].correct is True


def test_pro_vision_compares_the_raw_response(tmp_path):
    """lmms-eval parses no vision response: "Answer: D" is not "D" for it, and is D for the official parser."""
    path = write_jsonl(tmp_path / "20250101_samples_mmmu_pro_vision.jsonl", [
        {"doc_id": 0, "target": "D", "filtered_resps": "Answer: D",
         "mmmu_acc": {"id": "test_Accounting_3", "subject": "Accounting", "answer": "D", "parsed_pred": "Answer: D"}},
        {"doc_id": 4, "target": "A", "filtered_resps": "A",
         "mmmu_acc": {"id": "validation_Biology_4", "subject": "Biology", "answer": "A", "parsed_pred": "A"}},
    ])
    result = rescore(path, data="sample")
    assert result.dataset.setting == "vision"
    difference, = result.explanation.differences
    assert (difference.id, difference.cause, difference.harness_pred) == ("test_Accounting_3", "letter", "Answer: D")


def test_composite_task_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "20250101_samples_mmmu_pro_composite.jsonl", [{"doc_id": 0, "filtered_resps": "A"}])
    with pytest.raises(ConfigError, match="composite"):
        rescore(path, data="sample")


def test_a_folder_with_two_logs_asks_which(tmp_path):
    write_jsonl(tmp_path / "m" / "1_samples_mmmu_val.jsonl", ROWS[:1])
    write_jsonl(tmp_path / "m" / "1_samples_mmmu_pro_vision.jsonl", ROWS[:1])
    with pytest.raises(DataError, match="2 samples files"):
        rescore(tmp_path / "m", format="lmms-eval", data="sample")
