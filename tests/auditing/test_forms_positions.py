"""Which kind of error a suspect points at (a wrong gold, or a wrong added option), and which options'
meaning the augmentation changed, judged against the four-option form (hand-made runs and rows)."""

from __future__ import annotations

import json

import pytest

from auditing.conftest import make_item, make_run
from mmmu_eval.auditing import audit, audit_runs
from mmmu_eval.auditing.positions import position_details

ORIGINAL = ("palace", "temple", "market", "barracks")
TEN = ("tomb", "temple", "shrine", "palace", "fort", "market", "barracks", "mill", "bridge", "tower")


def _runs(ten_choice: str, *, four_choice: str | None = "A", with_four: bool = True):
    four = {"validation_Design_15": make_item("validation_Design_15", ORIGINAL, "A", setting="standard-4")}
    ten = {"validation_Design_15": make_item("validation_Design_15", TEN, "D")}
    runs = [make_run(f"t{i}", f"m{i}", {"validation_Design_15": ten_choice}, ten, accuracy=0.6) for i in range(4)]
    if with_four:
        runs += [make_run(f"f{i}", f"m{i}", {"validation_Design_15": four_choice}, four, accuracy=0.6,
                          setting="standard-4") for i in range(4)]
    return runs


def _ten_suspect(result):
    return next(s for s in result.suspects if "standard-10" in s.settings)


def test_a_consensus_the_augmentation_added_is_an_augmentation_suspect_with_the_four_option_votes():
    s = _ten_suspect(audit_runs(_runs("C"), irt=False))  # "shrine": not among the four originals
    assert (s.consensus, s.consensus_added, s.kind) == ("shrine", True, "augmentation")
    assert (s.four_option.runs, s.four_option.gold, s.four_option.consensus) == (4, 4, 0)
    assert s.to_json()["consensus_added"] is True and s.to_json()["four_option"]["gold"] == 4


def test_a_consensus_among_the_original_options_is_a_gold_suspect():
    result = audit_runs(_runs("B", four_choice="B"), irt=False)  # "temple", an original option
    s = _ten_suspect(result)
    assert (s.consensus_added, s.kind, s.four_option.consensus) == (False, "gold", 4)
    assert result.to_json()["suspect_lists"]["gold"] == [s.id] and result.suspects_of("augmentation") == ()


def test_without_a_four_option_form_the_kind_is_not_known():
    s = _ten_suspect(audit_runs(_runs("C", with_four=False), irt=False))
    assert (s.consensus_added, s.kind, s.four_option) == (None, "unknown", None)


def test_the_original_options_an_official_row_holds_decide_it(tmp_path):
    """The 2024-era rows hold ``options`` (the original) beside ``shuffled_options``: enough without a
    four-option run; the build data (mix_data.jsonl) is read for them too, and is no run."""
    row = {"id": "validation_Design_15", "question": "Which building? <image 1>", "image_1": "a.png",
           "options": str(list(ORIGINAL)), "answer": "A", "shuffled_options": str(list(TEN)),
           "shuffled_options_answer": "D", "type": "Standard(10opts)", "subject": "Design"}
    right = dict(row, id="validation_Design_16", response="The answer is D.")  # each run right on one item
    files = []
    for m in range(4):
        path = tmp_path / f"model{m}_direct_Standard(10opts).jsonl"
        path.write_text(json.dumps(dict(row, response="The answer is C.")) + "\n" + json.dumps(right) + "\n",
                        encoding="utf-8")
        files.append(path)
    s = audit(files, irt=False, min_models=1).suspects[0]
    assert (s.consensus, s.kind) == ("shrine", "augmentation")
    build = tmp_path / "mix_data.jsonl"
    build.write_text(json.dumps({k: v for k, v in row.items() if k != "type"}) + "\n", encoding="utf-8")
    plain = [tmp_path / f"plain{m}.jsonl" for m in range(4)]
    for m, path in enumerate(plain):  # today's format: ten options, no originals in the row
        today = {"question": row["question"], "options": str(list(TEN)), "answer": "D", "subject": "Design"}
        path.write_text(json.dumps(dict(today, id=row["id"], response="The answer is C.")) + "\n"
                        + json.dumps(dict(today, id="validation_Design_16", response="The answer is D.")) + "\n",
                        encoding="utf-8")
    alone = audit(plain, irt=False, min_models=1)
    assert alone.suspects[0].kind == "unknown"
    with_build = audit([*plain, build], irt=False, min_models=1)
    assert with_build.suspects[0].kind == "augmentation" and len(with_build.runs) == 4
    assert with_build.to_json()["build_data"] == [str(build)]


@pytest.mark.parametrize("original,ten,expected", [
    # never reordered, never grown: the letters and places still mean what they meant
    (("a,b", "a,c", "b,c"), ("a,b", "a,c", "b,c"), None),
    (("x", "y", "None of the above"), ("x", "y", "None of the above"), None),
    # the shuffle moved what it points at
    (("x", "y", "Either of the above", "z"), ("Either of the above", "x", "y", "z"), "the shuffle moved the options above it"),
    (("x", "y", "Both A and B"), ("y", "x", "Both A and B", "w"), "names options by letter: A was 'x', now 'y'"),
    # added options now fall under it
    (("x", "y", "All of the above"), ("x", "w", "y", "All of the above"), "now also spans 'w'"),
    (("Cuban", "Mexico", "All of these"), ("All of these", "Mexico", "Cuban", "Dominican"), "grew by 1 added option(s)"),
    (("x", "y", "All of these"), ("All of these", "y", "x"), None),  # reordered, not grown: still all of them
    # added by the augmentation itself
    (("x", "y"), ("y", "None of the above", "x"), "was itself added by the augmentation"),
    # letters that name labelled things (an option "C", a letter past the last option)
    (("C", "E", "A", "D", "B"), ("B and D", "A", "C", "B", "E", "D"), None),
    (("A and B", "C and D", "C and E", "A and E"), ("B and E", "A and B", "C and D", "C and E", "A and E"), None),
])
def test_an_option_that_points_at_others_is_flagged_only_where_its_meaning_changed(original, ten, expected):
    found = position_details(ten, "Which one?", original)
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0], found


def test_without_the_original_a_place_reference_is_named_as_not_known():
    (found,) = position_details(("x", "None of the above", "y"), "q", None)
    assert "not known" in found
    assert position_details(("x", "All of these", "y"), "q", None) == []
