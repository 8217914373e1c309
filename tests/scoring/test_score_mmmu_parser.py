"""The official MMMU multiple-choice parser: every corner case of official-protocol.md 5.2."""

from __future__ import annotations

import random

import pytest

from mmmu_eval.scoring.choices import OfficialCrash, choice_info
from mmmu_eval.scoring.mmmu_parser import parse_mmmu_choice, pick_mmmu_choice

FOUR = ("Paris", "London", "Berlin", "Madrid")
TEN = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")
RANDOM = None  # the official code would pick a random letter

CASES = [
    # (response, options, expected, reason)
    ("B", FOUR, "B", "a bare letter"),
    ("B.", FOUR, "B", "the trailing period is stripped"),
    ("(B)", FOUR, "B", "bracket pass"),
    ("'B'", FOUR, "B", "quotes are stripped last"),
    ("Answer: B", FOUR, "B", "' B ' after padding"),
    ("The answer is B.", FOUR, "B", "period stripped, then ' B '"),
    ("I think B", FOUR, "B", "' B ' at the end"),
    (" B", FOUR, "B", "leading space kept, still ' B '"),
    ("B.'", FOUR, RANDOM, "'.' was stripped before the quote, so it survives"),
    ("'B.'", FOUR, RANDOM, "same sequential-strip quirk"),
    ("B!?", FOUR, RANDOM, "'!' is stripped before '?', so it survives"),
    ("B.)", FOUR, RANDOM, "')' is never stripped"),
    ("B\n", FOUR, RANDOM, "whitespace is not stripped, so no ' B '"),
    ("**B**", FOUR, RANDOM, "markdown bold hides the letter"),
    ("B) London", FOUR, RANDOM, "'B)' is neither '(B)' nor ' B '; 2 tokens, no content pass"),
    ("D) Planned obsolescence.", FOUR, RANDOM, "same, with 3 tokens"),
    ("b", FOUR, RANDOM, "the spaced pass is case-sensitive"),
    ("''", FOUR, RANDOM, "empty after stripping"),
    ("It is London", FOUR, RANDOM, "3 tokens: the content pass needs more than 5"),
    ("(A) or (C), I pick (C)", FOUR, "C", "several brackets: the last position wins"),
    ("A or C", FOUR, "C", "several ' L ': the last position wins"),
    ("C is wrong; A is right", FOUR, "A", "last ' L ' is A"),
    ("A, B", FOUR, "B", "'A,' is not ' A '"),
    ("I think the capital is London, not Paris at all", FOUR, "A", "content pass; Paris occurs last"),
    ("The correct answer is: **C. Berlin**", FOUR, "C", "content pass over 6 tokens"),
    ("Answer: B\n\nExplanation: because", FOUR, RANDOM, "'B\\n' is not ' B '; 4 tokens"),
    ("(B) is wrong, the answer is A", FOUR, "B", "the bracket pass runs first and stops the others"),
    ("So the answer is J. Done", TEN, RANDOM, "'J.' is not ' J ' in the MMMU parser"),
    ("Answer: $G$", TEN, RANDOM, "'$G$' is not ' G '"),
    ("**Answer: D**", TEN, RANDOM, "bold hides the letter"),
    ("I think the answer", TEN, "I", "the word 'I' matches choice I"),
    ("The answer is (L)", tuple(f"o{i}" for i in range(12)), "L", "12 options go to L"),
    ("we choose the one: madrid or berlin, surely madrid", FOUR, "D", "content pass is case-insensitive; last wins"),
]


@pytest.mark.parametrize(("response", "options", "expected", "reason"), CASES, ids=[c[3] for c in CASES])
def test_mmmu_parser_corner_cases(response, options, expected, reason):
    choices, index2ans = choice_info(options)
    assert parse_mmmu_choice(response, choices, index2ans) == expected, reason


def test_ties_in_the_content_pass_go_to_the_earliest_letter():
    """Two options with the same text end at the same position: np.argmax keeps the first."""
    choices, index2ans = choice_info(("same", "same", "other", "x"))
    assert parse_mmmu_choice("I would say that it is the same thing", choices, index2ans) == "A"


def test_the_fallback_draws_once_from_the_given_generator():
    choices, index2ans = choice_info(FOUR)
    expected = random.Random(7).choice(list(choices))
    assert pick_mmmu_choice("no idea", choices, index2ans, random.Random(7)) == (expected, True)


def test_a_parsed_letter_draws_nothing():
    rng = random.Random(3)
    state = rng.getstate()
    assert pick_mmmu_choice("(C)", *choice_info(FOUR), rng) == ("C", False)
    assert rng.getstate() == state


def test_no_generator_means_no_prediction():
    assert pick_mmmu_choice("no idea", *choice_info(FOUR), None) == (None, True)


def test_a_non_text_option_reached_by_the_content_pass_is_an_official_crash():
    choices, index2ans = choice_info([["A", "B", "Not enough information"]])
    with pytest.raises(OfficialCrash):
        parse_mmmu_choice("there is not enough information to decide", choices, index2ans)
