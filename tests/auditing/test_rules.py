"""The audit's rules on hand-made runs: agreement by text, strength, fallbacks, chance, revisions, structure."""

from __future__ import annotations

import numpy as np
import pytest

from auditing.conftest import make_item, make_run
from mmmu_eval.auditing import audit_runs
from mmmu_eval.auditing.chance import p_max_at_least
from mmmu_eval.stats.irt import fit_2pl
from mmmu_eval.auditing.structural import item_problems

OPTS = ("palace", "temple", "market", "barracks")
SHUFFLED = ("temple", "barracks", "palace", "market")  # the same texts in another order


def _items(options=OPTS, gold="A", item_id="validation_Design_15", **kw):
    return {item_id: make_item(item_id, options, gold, **kw)}


def test_runs_of_different_shuffles_agree_by_option_text():
    a, b = _items(), _items(SHUFFLED, "C")
    runs = [make_run(f"m{i}", f"m{i}", {"validation_Design_15": "B"}, a, accuracy=0.6) for i in range(3)]
    runs += [make_run(f"s{i}", f"s{i}", {"validation_Design_15": "A"}, b, accuracy=0.6, setting="vision")
             for i in range(3)]
    s = audit_runs(runs, irt=False).suspects[0]
    assert (s.consensus, s.gold, s.agree, s.answered) == ("temple", "palace", 6, 6)
    assert s.flagged and set(s.settings) == {"standard-10", "vision"}


def test_a_fallback_is_no_vote():
    items = _items()
    runs = [make_run(f"m{i}", f"m{i}", {"validation_Design_15": "B"}, items, accuracy=0.6) for i in range(2)]
    runs += [make_run(f"f{i}", f"f{i}", {"validation_Design_15": None}, items, accuracy=0.6) for i in range(3)]
    result = audit_runs(runs, irt=False)
    s = result.suspects[0]
    assert (s.agree, s.answered, s.runs_total) == (2, 2, 5)
    assert not s.flagged  # 2 of 5 stronger runs is no majority, and two models are fewer than three


def test_a_strong_run_choosing_the_gold_outweighs_weak_runs_against_it():
    items = _items()
    strong = [make_run(f"strong{i}", f"strong{i}", {"validation_Design_15": "A"}, items, accuracy=0.9) for i in range(2)]
    weak = [make_run(f"weak{i}", f"weak{i}", {"validation_Design_15": "B"}, items, accuracy=0.3) for i in range(3)]
    result = audit_runs(strong + weak, irt=False, weakest=0.0)
    assert result.suspects == ()  # 3 votes against 2, but the 2 are far stronger: score below 1
    alone = audit_runs(weak, irt=False, weakest=0.0)
    assert alone.suspects and alone.suspects[0].score > 0


def test_the_weakest_models_are_not_stronger_runs():
    items = _items()
    runs = [make_run(f"r{i}", f"model{i}", {"validation_Design_15": "B"}, items, accuracy=0.3 + 0.1 * i)
            for i in range(4)]
    result = audit_runs(runs, irt=False)
    assert [result.strong[r.name] for r in runs] == [False, True, True, True]
    assert result.suspects[0].strong_runs == 3


def test_a_run_with_no_scored_item_has_no_accuracy_to_rank():
    """Every request of model "down" failed: it is no stronger run, and no 0.0 makes it the weakest."""
    items = _items()
    runs = [make_run(f"r{i}", f"model{i}", {"validation_Design_15": "B"}, items, accuracy=0.3 + 0.1 * i)
            for i in range(4)]
    void = make_run("void", "down", {}, items, accuracy=None)
    result = audit_runs([*runs, void], irt=False)
    assert [result.strong[r.name] for r in runs] == [False, True, True, True] and result.strong["void"] is False


def test_one_model_agreeing_with_itself_is_not_flagged():
    items = _items()
    runs = [make_run(f"r{i}", "same-model", {"validation_Design_15": "B"}, items, accuracy=0.6) for i in range(5)]
    assert not audit_runs(runs, irt=False).suspects[0].flagged
    assert audit_runs(runs, irt=False, min_models=1).suspects[0].flagged


def test_runs_of_different_revisions_are_not_pooled_and_the_difference_is_named():
    old, new = _items(gold="A"), _items(gold="B")
    runs = [make_run(f"old{i}", f"m{i}", {"validation_Design_15": "B"}, old, revision="2024") for i in range(3)]
    runs += [make_run(f"new{i}", f"m{i}", {"validation_Design_15": "B"}, new, revision="2026") for i in range(3)]
    result = audit_runs(runs, irt=False)
    assert [s.runs_total for s in result.suspects] == [3]  # only the old revision's runs contradict their gold
    diff = result.revisions["differences"]
    assert len(diff) == 1 and diff[0]["fields"] == ["gold"]
    assert sorted(v["revisions"][0] for v in diff[0]["versions"]) == ["2024", "2026"]


@pytest.mark.parametrize("wrong,distractors,k", [(2, 9, 2), (5, 3, 3), (6, 4, 2), (7, 9, 3), (4, 2, 3), (0, 9, 1)])
def test_chance_of_agreement_is_exact(wrong, distractors, k):
    # Every one of the distractors**wrong spreads, counted one by one (as numpy columns: 9**7 of
    # them took a minute as Python tuples).
    spreads = distractors**wrong
    index = np.arange(spreads)
    answers = [(index // distractors**j % distractors).astype(np.int8) for j in range(wrong)]  # each spread's j-th
    most = np.zeros(spreads, dtype=np.int8)  # how many answers the most chosen distractor got
    for d in range(distractors):
        most = np.maximum(most, sum((a == d for a in answers), np.zeros(spreads, dtype=np.int8)))
    hits = int((most >= k).sum())
    assert p_max_at_least(wrong, distractors, k) == pytest.approx(hits / spreads, abs=1e-12)


def test_the_2pl_fit_recovers_known_parameters():
    rng = np.random.default_rng(7)
    theta, b = rng.normal(size=80), rng.normal(size=300)
    a = np.exp(rng.normal(0, 0.3, size=300))
    y = rng.random((80, 300)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    model = fit_2pl(y)
    assert model.converged
    assert np.corrcoef(model.ability, theta)[0, 1] > 0.95
    assert np.corrcoef(model.difficulty, b)[0, 1] > 0.9
    assert np.corrcoef(model.discrimination, a)[0, 1] > 0.3
    seen = rng.random(y.shape) < 0.7  # a run that missed items: only the answered pairs count
    masked = fit_2pl(np.where(seen, y, 0), seen)
    assert np.corrcoef(masked.difficulty, b)[0, 1] > 0.85


@pytest.mark.parametrize("options,question,kind", [
    (("x", "y", "Either of the above", "z"), "q", "position_dependent_option"),
    (("x", "None of the above", "y"), "q", "position_dependent_option"),
    (("x", "y", "Both A and B", "z"), "q", "position_dependent_option"),
    (("B", "C", "A", "D"), "q", "letter_option"),
    (("x", "y ", "Y", "z"), "q", "duplicate_options"),
])
def test_structural_kinds(options, question, kind):
    item = make_item("validation_Art_1", options, "A", question=question)
    assert kind in [k for k, _ in item_problems(item, "standard-10")]


def test_letters_that_the_question_labels_are_not_positions():
    item = make_item("validation_Art_1", ("Only project A", "Both A and B", "Neither"), "A",
                     question="Compare project A with project B.")
    assert item_problems(item, "standard-10") == []
    four = make_item("validation_Art_1", ("x", "y", "Both A and B"), "A")
    assert item_problems(four, "standard-4") == []  # the original order: the letters still point right


def test_gold_and_image_tokens():
    item = make_item("validation_Art_1", ("x", "y"), "E", question="<image 2> what is it")
    kinds = dict(item_problems(item, "standard-10", images=1))
    assert "gold_not_among_options" in kinds
    assert "<image 2>" in kinds["image_token_without_image"]
    assert "image(s) 1 of 1" in kinds["image_without_token"]


def test_an_added_option_is_named_only_where_four_options_are_answered_right():
    from mmmu_eval.auditing.added import added_option_failures

    four = {"test_Art_1": make_item("test_Art_1", ("Thromboembolism", "Fat embolism", "Air", "Tumour"), "A",
                                    setting="standard-4")}
    ten = {"test_Art_1": make_item("test_Art_1", ("Air", "Pulmonary embolism", "Thromboembolism", "Tumour", "Fat embolism",
                                                  "x1", "x2", "x3", "x4", "x5"), "C")}

    def runs(four_choice, ten_choice):
        return ([make_run(f"f{i}", f"m{i}", {"test_Art_1": four_choice}, four, setting="standard-4") for i in range(3)]
                + [make_run(f"t{i}", f"m{i}", {"test_Art_1": ten_choice}, ten) for i in range(3)])

    found = added_option_failures(runs("A", "B"))
    assert [(a.option, a.votes, a.four_right) for a in found] == [("Pulmonary embolism", 3, 3)]
    assert added_option_failures(runs("B", "B")) == []  # the four-option form is not answered right
    assert added_option_failures(runs("A", "E")) == []  # "Fat embolism" was there before the augmentation


def test_a_harness_file_is_read_by_option_text_and_its_fallbacks_choose_nothing(tmp_path):
    import json as _json

    from mmmu_eval.auditing.sources import read_sources

    rows = [
        {"id": "validation_Design_15", "question": "What building is this? <image 1>", "image_1": "a.png",
         "options": str(list(OPTS)), "answer": "A", "response": "The answer is B.", "subject": "Design"},
        {"id": "validation_Design_16", "question": "Which? <image 1>", "image_1": "b.png",
         "options": str(list(OPTS)), "answer": "A", "response": "I cannot tell.", "subject": "Design"},
    ]
    path = tmp_path / "some-model_direct_Standard(10opts).jsonl"
    path.write_text("".join(_json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (run,) = read_sources([path])
    assert (run.model, run.prompt, run.setting) == ("some-model", "direct", "standard-10")
    assert run.answers["validation_Design_15"].choice == "temple"
    guessed = run.answers["validation_Design_16"]
    assert guessed.fallback and guessed.choice is None  # the parser's random letter is no vote
    assert run.items["validation_Design_15"].question.startswith("What building")
    assert run.images["validation_Design_15"] == 1
