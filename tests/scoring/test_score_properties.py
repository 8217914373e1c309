"""Rules for every input: the parsers return a verdict for any string at all."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mmmu_eval.scoring.choices import choice_info
from mmmu_eval.scoring.judge import PARSERS
from mmmu_eval.scoring.mmmu_parser import parse_mmmu_choice
from mmmu_eval.scoring.mmmu_pro_parser import parse_pro_choice
from mmmu_eval.scoring.open_answer import parse_open
from mmmu_eval.scoring.scorer import score_responses

PIECES = st.sampled_from(list("ABCDEFGHIJ abc().:,'!?\n*$\\{}0123456789-=eE") + ["Answer:", r"\boxed{", "is "])
ANY_TEXT = st.one_of(st.text(), st.lists(PIECES).map("".join))


@settings(max_examples=200, deadline=None)
@given(text=ANY_TEXT, n=st.integers(min_value=1, max_value=12))
def test_choice_parsers_return_a_choice_or_none(text, n):
    choices, index2ans = choice_info([f"option {i}" for i in range(n)])
    for parse in (parse_mmmu_choice, parse_pro_choice):
        assert parse(text, choices, index2ans) in (*choices, None)


@settings(max_examples=200, deadline=None)
@given(text=ANY_TEXT)
def test_open_parser_always_gives_candidates(text):
    candidates = parse_open(text)
    assert candidates and all(isinstance(c, (str, float)) for c in candidates)


@settings(max_examples=60, deadline=None)
@given(mc_text=ANY_TEXT, open_text=ANY_TEXT)
def test_every_parser_judges_any_text(make_item_factory, response_factory, mc_text, open_text):
    items = [make_item_factory("validation_Art_1", "B"), make_item_factory("validation_Math_1", "3.5", options=())]
    responses = {"validation_Art_1": response_factory("validation_Art_1", mc_text),
                 "validation_Math_1": response_factory("validation_Math_1", open_text)}
    scoring = score_responses(items, responses, parsers=PARSERS)
    for name in PARSERS:
        assert set(scoring.verdicts[name]) == {"validation_Art_1", "validation_Math_1"}
        mc = scoring.verdicts[name]["validation_Art_1"]
        if name in ("official", "mmmu", "mmmu-pro"):
            assert mc.pred in "ABCD" and mc.pred  # a letter always, by parse or by draw
            assert mc.correct is (mc.pred == "B")


def test_the_fallback_draws_depend_on_the_seed_and_on_nothing_else(make_item_factory, response_factory):
    """Same seed, same verdicts whatever the global random state; another seed, other picks."""
    rnd = random.Random(1)
    items = [make_item_factory(f"validation_Art_{n}", "A") for n in range(1, 40)]
    responses = {it.id: response_factory(it.id, rnd.choice(["(A)", "hmm", "B", "no"])) for it in items}
    random.seed(1)
    first = score_responses(items, responses).verdicts
    random.seed(2)
    assert score_responses(items, responses).verdicts == first
    other = score_responses(items, responses, fallback_seed=7).verdicts
    fallbacks = [i for i, v in first["official"].items() if v.fallback]
    assert len(fallbacks) > 5
    assert [first["official"][i].pred for i in fallbacks] != [other["official"][i].pred for i in fallbacks]
