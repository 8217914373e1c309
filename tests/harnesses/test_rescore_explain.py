"""The cause of a difference, one row per rule, and the official scorer's own verdicts on the real GPT-4o files."""

from __future__ import annotations

import pytest

from mmmu_eval.core.records import Response
from mmmu_eval.scoring.explain import CAUSES, explain
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict
from mmmu_eval.harnesses.read import rescore
from mmmu_eval.scoring.scorer import score_responses

# (response, gold, options (empty: open), harness verdict, expected cause or None when they agree)
CASES = [
    ("(B)", "B", ("x", "y", "z"), HarnessVerdict(False, "B", gold="C"), "gold"),
    (None, "B", ("x", "y", "z"), HarnessVerdict(False, "C"), "error"),
    ("(A)", "B", ("x", "y", "z"), HarnessVerdict(True, "B", judge=True), "judge"),
    ("1240", "24", (), HarnessVerdict(True, "A", gold="24", as_choice=True), "open-as-choice"),
    ("no idea at all", "B", ("x", "y"), HarnessVerdict(True, "B"), "fallback"),           # official draws A
    ("(A)", "B", ("x", "y", "z"), HarnessVerdict(True, "B", fallback=True), "fallback"),
    ("(A)", "B", ("x", "y", "z"), HarnessVerdict(True, "B"), "letter"),
    ("(A)", "B", ("x", "y", "z"), HarnessVerdict(True, None), "letter"),
    ("(B)", "B", ("x", "y", "z"), HarnessVerdict(False, "B"), "other"),                 # same letter, other ruling
    ("it is 7", "7", (), HarnessVerdict(False, "7.0"), "open-match"),                    # same answer, other matcher
    ("it is 7", "7", (), HarnessVerdict(False, "seven"), "open-match"),
    ("(B)", "B", ("x", "y", "z"), HarnessVerdict(True, "B"), None),
    ("(B)", "B", ("x", "y", "z"), HarnessVerdict(None), None),
]


@pytest.mark.parametrize("response, gold, options, theirs, cause", CASES)
def test_cause_of_each_difference(make_item, response, gold, options, theirs, cause):
    item = make_item("validation_Art_1", gold, options)
    responses = {item.id: Response(item.id, "error", error="HTTP 500") if response is None
                 else Response(item.id, "ok", text=response)}
    scoring = score_responses([item], responses)
    explanation = explain([item], scoring, {item.id: theirs}, responses, recorded=None, harness_name="h")
    found = [d.cause for d in explanation.differences]
    assert found == ([cause] if cause else [])
    assert explanation.without_verdict == (1 if theirs.correct is None else 0)
    if cause:
        assert explanation.to_json()["causes"][cause]["meaning"] == CAUSES[cause]


def test_the_section_adds_up(make_item):
    items = [make_item(f"validation_Art_{n}", "B", ("x", "y", "z")) for n in (1, 2, 3)]
    responses = {it.id: Response(it.id, "ok", text="(B)") for it in items}
    theirs = {"validation_Art_1": HarnessVerdict(False, "C"), "validation_Art_2": HarnessVerdict(True, "B")}
    section = explain(items, score_responses(items, responses), theirs, responses, recorded=None, harness_name="h").to_json()
    assert (section["n"], section["correct"], section["official_correct"], section["without_verdict"]) == (2, 1, 2, 1)
    assert section["difference"] == pytest.approx(0.5)
    assert section["causes"]["letter"] == {"items": 1, "official_only_right": 1, "harness_only_right": 0,
                                           "meaning": CAUSES["letter"]}


#: README of the fidelity folder: stored correct (if_right) per file; our seeded draws differ from its unseeded ones.
STORED = {"gpt-4o_standard(10 options)_direct.jsonl": 694, "gpt-4o_vision_direct.jsonl": 734}


@pytest.mark.parametrize("name", sorted(STORED))
def test_the_official_scorers_verdicts_differ_from_ours_only_by_random_letters(fidelity, name):
    """evaluate.py wrote if_right into its input; where it disagrees with us, a random letter decided."""
    result = rescore(fidelity / "mmmu-pro" / name, format="official-mmmu-pro")
    explanation = result.explanation
    assert explanation.graded == 1730 and explanation.harness_correct == STORED[name]
    assert explanation.differences and {d.cause for d in explanation.differences} == {"fallback"}
    assert all(d.official_fallback for d in explanation.differences)
