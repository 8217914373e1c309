"""The official MMMU-Pro parser: every corner case of official-protocol.md 6.4."""

from __future__ import annotations

import pytest

from mmmu_eval.scoring.choices import OfficialCrash, choice_info
from mmmu_eval.scoring.mmmu_pro_parser import parse_pro_choice, pick_pro_choice

FOUR = ("Paris", "London", "Berlin", "Madrid")
TEN = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")
RANDOM = None

CASES = [
    ("Answer: B\n\nExplanation: because", FOUR, "B", "only B of A-D occurs after the last 'Answer:'"),
    ("Answer: B\n\nExplanation: because", TEN, RANDOM, "E of 'Explanation' is a choice too: two matches"),
    ("**Answer: D**", TEN, "D", "step 0 finds D"),
    ("Answer: $G$", TEN, "G", "step 0 finds G"),
    ("So the answer is J. Done", TEN, "J", "the 'L.' pass"),
    ("Answer: A and B", FOUR, "B", "two in step 0; 'L ' pass finds both; B is last"),
    ("Final Answer: E.", TEN, "E", "step 0"),
    ("Answer: A\nlater text... Answer: C", FOUR, "C", "the LAST 'Answer:' counts"),
    ("answer: C", FOUR, "C", "lowercase 'answer:' skips step 0; ' C ' then matches the 'L ' pass"),
    ("I think so", TEN, "I", "'I ' with no leading space needed"),
    ("PLAN A is best", FOUR, "A", "'A ' inside 'PLAN A '"),
    ("(C)", FOUR, "C", "bracket pass"),
    ("B", FOUR, "B", "bare letter, padded"),
    ("b", FOUR, RANDOM, "case-sensitive"),
    ("It is London", FOUR, RANDOM, "3 tokens, no content pass"),
    ("The capital I would choose is Berlin for sure", FOUR, "C", "content pass, no letters found"),
    ("B. or D.", FOUR, "D", "the final '.' is stripped, so 'D ' matches the 'L ' pass"),
    ("see B.D.x", FOUR, "B", "'L.' pass finds B and D; ' L ' positions are -1 for both, so the first wins"),
    ("", FOUR, RANDOM, "the empty answer (an API error record)"),
]


@pytest.mark.parametrize(("response", "options", "expected", "reason"), CASES, ids=[c[3] for c in CASES])
def test_pro_parser_corner_cases(response, options, expected, reason):
    choices, index2ans = choice_info(options)
    assert parse_pro_choice(response, choices, index2ans) == expected, reason


def test_a_none_response_is_an_official_crash():
    """evaluate.py calls response.rfind before any type check."""
    with pytest.raises(OfficialCrash):
        parse_pro_choice(None, *choice_info(FOUR))


def test_nested_options_crash_only_when_the_content_pass_runs():
    """validation_Accounting_29: one choice A whose option is a list."""
    choices, index2ans = choice_info([["A", "B", "Not enough information"]])
    assert parse_pro_choice("Answer: A", choices, index2ans) == "A"
    with pytest.raises(OfficialCrash):
        parse_pro_choice("there is not enough information to say", choices, index2ans)


def test_pick_falls_back_to_the_generator():
    import random

    rng = random.Random(42)
    expected = random.Random(42).choice(list("ABCD"))
    assert pick_pro_choice("no idea", *choice_info(FOUR), rng) == (expected, True)
