"""The boxed-letter protocol and the strict final-answer parser."""

from __future__ import annotations

import pytest

from mmmu_eval.scoring.boxed import boxed_reward, last_boxed
from mmmu_eval.scoring.strict import strict_choice, strict_open

BOXED = [
    (r"\boxed{B}", "B", "one box"),
    (r"First \boxed{A}, then \boxed{ c }", "c", "the last box, stripped"),
    (r"\boxed{\text{D}}", r"\text{D}", "nested braces are kept whole"),
    (r"\boxed {E}", "E", "a space before the brace is allowed"),
    (r"\boxed{A} and \boxed{B", "A", "an unclosed last box is skipped"),
    ("The answer is B", None, "no box"),
]


@pytest.mark.parametrize(("response", "expected", "reason"), BOXED, ids=[c[2] for c in BOXED])
def test_last_boxed(response, expected, reason):
    assert last_boxed(response) == expected, reason


@pytest.mark.parametrize(
    ("response", "gold", "reward"),
    [(r"\boxed{b}", "B", 1.0), (r"\boxed{B}", "C", 0.0), (r"\boxed{(B)}", "B", 0.0), ("B", "B", 0.0),
     (r"\boxed{A}\boxed{B}", "B", 1.0), (r"\boxed{B}", None, 0.0), (r"\boxed{x}", ("y", "X"), 1.0)],
)
def test_boxed_reward_is_exact_and_case_insensitive(response, gold, reward):
    assert boxed_reward(response, gold) == reward


ABCD = ("A", "B", "C", "D")
STRICT = [
    ("Answer: B", "B", "plain"),
    ("Reasoning.\n**Answer: (C)**", "C", "markdown and brackets around the letter"),
    ("**Answer:** D", "D", "bold label"),
    ("answer: $A$", "A", "label in any case, dollar signs"),
    ("Answer: A\nWait, no. Answer: C", "C", "the last statement wins"),
    (r"I pick \boxed{D}", "D", "a boxed letter"),
    (r"Answer: A, but finally \boxed{\text{B}}", "B", "a later box wins"),
    ("The answer is C", None, "no explicit label"),
    ("Answer: Because it is", None, "a word, not a letter"),
    ("Answer: E", None, "not one of the choices"),
    ("C", None, "a bare letter does not count"),
]


@pytest.mark.parametrize(("response", "expected", "reason"), STRICT, ids=[c[2] for c in STRICT])
def test_strict_choice(response, expected, reason):
    assert strict_choice(response, ABCD) == expected, reason


def test_strict_open_takes_the_last_answer_line_or_box():
    assert strict_open("work...\nAnswer: 36 watts\nthanks") == "36 watts"
    assert strict_open(r"Answer: 3, no: \boxed{4}") == "4"
    assert strict_open("The answer is 36") is None
