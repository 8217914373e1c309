"""Parity with the official code on the real responses in ../shared/fidelity (see its README).

Expected numbers come from that README; a failure here means we no longer agree with the
official scorer item by item.
"""

from __future__ import annotations

import json

import pytest

from mmmu_eval.harnesses.read import rescore

#: README, "Per-subject accuracy of the Qwen-VL run (official, rounded to 3 places)".
QWEN_SUBJECTS = {
    "Art": .467, "Art_Theory": .567, "Design": .6, "Music": .367, "Accounting": .4, "Economics": .233,
    "Finance": .3, "Manage": .267, "Marketing": .3, "Biology": .367, "Chemistry": .267, "Geography": .2,
    "Math": .333, "Physics": .333, "Basic_Medical_Science": .333, "Clinical_Medicine": .3,
    "Diagnostics_and_Laboratory_Medicine": .2, "Pharmacy": .433, "Public_Health": .433, "History": .4,
    "Literature": .8, "Sociology": .433, "Psychology": .267, "Agriculture": .4,
    "Architecture_and_Engineering": .3, "Computer_Science": .233, "Electronics": .2,
    "Energy_and_Power": .433, "Materials": .333, "Mechanical_Engineering": .333,
}
QWEN_DISCIPLINES = {
    "Art and Design": .5, "Business": .3, "Science": .3, "Health and Medicine": .34,
    "Humanities and Social Science": .475, "Tech and Engineering": .319,
}
#: README table: file -> (deterministic correct, random fallbacks, stored correct).
PRO_FILES = {
    "gpt-4o_standard(10 options)_cot.jsonl": (952, 0, 952),
    "gpt-4o_standard(10 options)_direct.jsonl": (694, 7, 694),
    "gpt-4o_vision_cot.jsonl": (866, 3, 866),
    "gpt-4o_vision_direct.jsonl": (725, 48, 734),
}


@pytest.fixture(scope="module")
def qwen(fidelity):
    return rescore(fidelity / "mmmu" / "qwen_vl", format="official-mmmu")


def test_qwen_vl_gives_325_of_900_with_48_fallbacks(qwen):
    agg = qwen.scoring.aggregates["official"]
    assert (agg.overall.correct, agg.overall.n) == (325, 900)
    assert qwen.scoring.fallbacks == 48
    assert round(agg.overall.accuracy, 3) == 0.361
    assert (agg.by_question_type["open"].correct, agg.by_question_type["open"].n) == (6, 53)
    assert qwen.problems == ()


def test_qwen_vl_every_multiple_choice_prediction_matches_the_official_file(qwen, fidelity):
    official = json.loads((fidelity / "mmmu" / "qwen_vl" / "total_val_output.json").read_text())
    verdicts = qwen.scoring.verdicts["official"]
    mc = [it.id for it in qwen.items if it.question_type == "multiple-choice"]
    assert len(mc) == 847
    assert {i: verdicts[i].pred for i in mc} == {i: official[i] for i in mc}


def test_qwen_vl_per_subject_and_discipline_accuracies(qwen):
    agg = qwen.scoring.aggregates["official"]
    assert {s: round(t.accuracy, 3) for s, t in agg.by_subject.items()} == QWEN_SUBJECTS
    assert list(agg.by_subject) == list(QWEN_SUBJECTS)  # the official printing order
    assert {d: round(t.accuracy, 3) for d, t in agg.by_discipline.items()} == QWEN_DISCIPLINES


def test_eval_only_path_gives_0_361(fidelity):
    result = rescore(fidelity / "mmmu" / "qwen_vl" / "total_val_output.json", format="official-mmmu-eval-only",
                     answers=fidelity / "mmmu" / "answer_dict_val.json")
    overall = result.scoring.aggregates["eval-only"].overall
    assert round(overall.accuracy, 3) == 0.361
    assert overall.n == 900 and result.problems == ()


@pytest.mark.parametrize("name", sorted(PRO_FILES))
def test_gpt4o_mmmu_pro_file(fidelity, name):
    deterministic, fallbacks, stored = PRO_FILES[name]
    path = fidelity / "mmmu-pro" / name
    result = rescore(path, format="official-mmmu-pro")
    scoring = result.scoring
    assert (scoring.deterministic_correct, scoring.fallbacks) == (deterministic, fallbacks)
    assert deterministic <= stored <= deterministic + fallbacks
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 1730 and sum(bool(r["if_right"]) for r in rows) == stored
    verdicts = scoring.verdicts["official"]
    differing = [r["id"] for r in rows if not verdicts[r["id"]].fallback and verdicts[r["id"]].pred != r["pred_indexs"]]
    assert differing == []
    # The nested-options row is reported, not fatal.
    assert any("validation_Accounting_29" in p for p in result.problems)
