"""VLMEvalKit prediction files (xlsx, tsv) with their result and accuracy files, hand-written, on the sample.

The official fallback draws: validation_Accounting_3 (3 choices) first, validation_Economics_4
(2 choices) second, from one random.Random(42): C, then A.
"""

from __future__ import annotations

import random

import pytest
from fakes.harness_outputs import write_tsv, write_xlsx

from mmmu_eval.harnesses.read import rescore

HEADER = ["index", "question", "A", "B", "C", "D", "E", "answer", "category", "l2-category", "split", "id", "prediction"]
FAILED = "Failed to obtain answer via API."


def _row(index, item_id, prediction, answer, options=(), split="validation"):
    cells = list(options) + [None] * (5 - len(options))
    return [index, f"question {index}", *cells, answer, item_id.split("_", 1)[1].rsplit("_", 1)[0], "x", split,
            item_id, prediction]


ROWS = [
    _row(0, "dev_Accounting_2", "B", "B", ("nectar", "cedar", "oriole", "x"), split="dev"),   # set aside
    _row(1, "validation_Accounting_1", "The total is 116", "116"),                          # open, both right
    _row(2, "validation_Accounting_4", "1240", "24"),                  # open: '24' occurs in '1240' for its pseudo-option A
    _row(3, "validation_Art_3", "a square", "triangle"),                # open: its judge answered A
    _row(4, "validation_Accounting_2", FAILED, "B", ("nectar", "oriole", "fjord", "ember", "cedar")),
    _row(5, "validation_Accounting_3", "cannot decide", "A", ("alder", "larch", "cedar")),
    _row(6, "validation_Computer_Science_3", "I think it's (B), no wait, it's 4", "C", ("2", "3", "4", "5")),
    _row(7, "validation_Design_2", "B", "B", ("3", "4", "5", "6", "7")),
    _row(8, "validation_Economics_4", "The first one", "A", ("grove", "oriole")),
]
#: index -> (hit, log) as VLMEvalKit's mcq_vanilla_eval writes them.
VERDICTS = {
    0: (1, "Match Log: B. "),
    1: (1, "Match Log: The total is 116. "),
    2: (1, "Match Log: 1240. "),
    3: (1, "Match Log: A. "),
    4: (0, f"Match Log: {FAILED}. "),
    5: (1, "Match Log: Failed to predict, thus randomly generate one. . "),
    6: (1, "Match Log: I think it's (B), no wait, it's 4. "),
    7: (1, "Match Log: B. "),
    8: (0, "Match Log: Failed in Prefetch, no GPT-based answer matching under `exact_matching` policy.. "),
}


@pytest.fixture
def predictions(tmp_path):
    folder = tmp_path / "outputs" / "GPT4o" / "T20250101_Gabc"
    path = write_xlsx(folder / "GPT4o_MMMU_DEV_VAL.xlsx", HEADER, ROWS)
    write_xlsx(folder / "GPT4o_MMMU_DEV_VAL_openai_result.xlsx", HEADER + ["hit", "log"],
               [row + list(VERDICTS[row[0]]) for row in ROWS])
    (folder / "GPT4o_MMMU_DEV_VAL_acc.csv").write_text(
        '"split","Overall","Accounting"\n"validation","0.75","0.75"\n"dev","1.0","1.0"\n', encoding="utf-8")
    return path


def test_auto_reads_the_workbook_and_sets_the_dev_rows_aside(predictions):
    result = rescore(predictions, data="sample")
    assert result.format == "vlmevalkit" and "index and prediction" in result.detected
    assert result.source.model == "GPT4o" and result.source.task == "MMMU_DEV_VAL"
    assert any("1 row(s) of another split than validation set aside" in n for n in result.notes)
    assert len(result.items) == 8 and result.dataset.split == "validation"


def test_official_verdicts_worked_out_by_hand(predictions):
    result = rescore(predictions, data="sample")
    verdicts = result.scoring.verdicts["official"]
    rng = random.Random(42)
    assert verdicts["validation_Accounting_3"].pred == rng.choice(list("ABC")) == "C"   # gold A: wrong
    assert verdicts["validation_Economics_4"].pred == rng.choice(list("AB")) == "A"     # gold A: right
    assert verdicts["validation_Computer_Science_3"].pred == "B"                        # "(B)" comes first
    assert result.scoring.errors == ("validation_Accounting_2",)                         # the API failure: not scored
    right = sorted(i for i, v in verdicts.items() if v.correct)
    assert right == ["validation_Accounting_1", "validation_Design_2", "validation_Economics_4"]
    assert result.scoring.aggregates["official"].overall.n == 7


def test_every_difference_has_its_cause(predictions):
    explanation = rescore(predictions, data="sample").explanation
    assert {d.id: d.cause for d in explanation.differences} == {
        "validation_Accounting_4": "open-as-choice",   # 1240 is not 24 for the official matcher
        "validation_Art_3": "judge",
        "validation_Accounting_2": "error",
        "validation_Accounting_3": "fallback",         # its judge failed, then a random letter hit
        "validation_Computer_Science_3": "letter",     # official (B); VLMEvalKit the gold C
        "validation_Economics_4": "fallback",          # its "Z" is wrong, our random A is right
    }
    # VLMEvalKit: 1, 2, 3, 5, 6, 7 right = 6 of 8; its recorded validation accuracy is 0.75
    assert (explanation.harness_correct, explanation.graded, explanation.official_correct) == (6, 8, 3)
    assert explanation.recorded.accuracy == 0.75 and "split validation" in explanation.recorded.source
    letter = next(d for d in explanation.differences if d.cause == "letter")
    assert (letter.harness_pred, letter.official_pred) == ("C", "B")


def test_split_dev_scores_the_dev_rows(predictions):
    result = rescore(predictions, data="sample", split="dev")
    assert [it.id for it in result.items] == ["dev_Accounting_2"]
    assert any("8 row(s) of another split than dev" in n for n in result.notes)


def test_pro_vision_tsv_without_ids_is_joined_by_its_options(tmp_path):
    """VLMEvalKit's MMMU-Pro rows have no official id: the option texts identify the item."""
    header = ["index", "question", *"ABCDEFGHIJ", "answer", "category", "prediction"]
    options = ["juniper", "31", "4", "fjord", "cedar", "delta", "10", "nectar", "kestrel", "18"]
    rows = [[17, "placeholder", *options, "D", "Accounting", "Answer: D"],
            [18, "placeholder", *(["zzz"] * 10), "A", "Art", "Answer: A"]]
    result = rescore(write_tsv(tmp_path / "M_MMMU_Pro_V.tsv", header, rows), data="sample")
    assert [it.id for it in result.items] == ["test_Accounting_3"]
    assert result.scoring.verdicts["official"]["test_Accounting_3"].correct is True
    assert any("no item has this question and these options" in u for u in result.unjoined)
    assert result.explanation.graded == 0 and any("_result file" in n for n in result.notes)


def test_cot_result_after_postprocessing_is_found(tmp_path):
    """For the CoT datasets VLMEvalKit scores a post-processed copy: the verdicts are in ..._cotpost_..._result."""
    header = ["index", "question", *"ABCD", "answer", "category", "id", "prediction"]
    options = ["5", "28", "20", "32"]
    write_xlsx(tmp_path / "M_MMMU_Pro_10c_COT.xlsx", header, [[1, "q", *options, "A", "Biology", "validation_Biology_4",
                                                               "Counting...\nAnswer: A"]])
    write_xlsx(tmp_path / "M_MMMU_Pro_10c_COT_cotpost_openai_result.xlsx", header + ["hit", "log"],
               [[1, "q", *options, "A", "Biology", "validation_Biology_4", "A", 1, "Match Log: A. "]])
    result = rescore(tmp_path / "M_MMMU_Pro_10c_COT.xlsx", data="sample")
    assert result.source.prompt_mode == "cot" and result.dataset.setting == "standard-10"
    assert result.harness["validation_Biology_4"].correct is True
    assert result.responses["validation_Biology_4"].text == "Counting...\nAnswer: A"   # the raw prediction is ours to parse
