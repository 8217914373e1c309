"""Open questions: official-protocol.md 5.4-5.7, quirks included."""

from __future__ import annotations

import math

import pytest

from mmmu_eval.scoring.open_answer import (
    check_is_number,
    eval_multi_choice,
    eval_open,
    extract_numbers,
    normalize_str,
    parse_open,
)

PARSE_CASES = [
    # (response, candidate set, reason)
    ("The answer is 36 watts", {"36 watts", 36.0}, "tail after 'is ', plus its number"),
    ("36", {36.0}, "no indicator: the whole response"),
    ("x = 3.14159", {3.14}, "only '=' applies, on the last line; rounded to 2 places"),
    ("So the answer is B. It is C.", {" c", "c "}, "no sentence split after lowercasing; shortest tail 'c'"),
    ("this is 12\nfinal answer: 13", {"answer: 13", 12.0, 13.0}, "split on newlines; 'is ' inside 'this '"),
    ("1/4", {"1/4", 1.0, 4.0}, "a fraction is text plus its two numbers"),
    ("The result is 2.5e-3 m", {"2.5e-3 m", 0.0, 2.0, -3.0}, "scientific and simple regexes both fire"),
    ("-120 V", {"-120 v", -120.0}, "negative numbers"),
    ("Tampa, Florida", {"tampa, florida"}, "plain text, lowercased"),
    ("1,234.5 dollars", {"1,234.5 dollars", 1234.0, 234.5}, "10000.5-style numbers are never extracted whole"),
    ("The answer is .", {"is"}, "the empty tail after 'is ' counts as unset, so the tail after 'answer ' wins"),
    ("The answer is :\nnothing", {"the answer is :\nnothing"}, "a bare ':' tail is dropped; no key gives the whole text"),
    ("", {""}, "the empty response is one empty candidate"),
]


@pytest.mark.parametrize(("response", "expected", "reason"), PARSE_CASES, ids=[c[2] for c in PARSE_CASES])
def test_parse_open_candidates(response, expected, reason):
    assert set(parse_open(response)) == expected, reason


def test_parse_open_has_no_duplicates_and_a_stable_order():
    assert parse_open("The answer is 36\nso 36") == [36.0]
    assert parse_open("The answer is 36 watts") == ["36 watts", 36.0]


NUMBER_CASES = [
    ("1,234,567 and 89", ["1,234,567", "567", "89"], "the simple regex also sees the tail after commas"),
    ("3.5e10", ["3.5e10", "3", "10"], "scientific, then its pieces"),
    ("10,000.5", ["10,000", "000.5"], "10000.5 itself is never extracted"),
    ("1,23", ["23"], "not a thousands group"),
    (".5", [".5"], "leading-dot decimal"),
    ("no digits", [], "nothing"),
]


@pytest.mark.parametrize(("text", "expected", "reason"), NUMBER_CASES, ids=[c[2] for c in NUMBER_CASES])
def test_extract_numbers(text, expected, reason):
    assert extract_numbers(text) == expected, reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1,000", [1000.0]), ("1.006", [1.01]), ("2.675", [2.67]), ("C", [" c", "c "]), ("24/7", ["24/7"]),
     (" 1e3 ", [1000.0]), ("1_000", [1000.0]), ("Hello", ["hello"])],
)
def test_normalize_str(text, expected):
    assert normalize_str(text) == expected


def test_normalize_nan_is_a_number_that_equals_nothing():
    (value,) = normalize_str("nan")
    assert math.isnan(value)
    assert not eval_open("nan", parse_open("nan"))


@pytest.mark.parametrize("text", ["nan", "inf", "Infinity", "1e3", "1_000", " 7 ", "1,0,0"])
def test_check_is_number_accepts_what_python_float_accepts(text):
    assert check_is_number(text)


EVAL_CASES = [
    # (gold, response, correct, reason)
    ("1.06", "1.064", True, "both round to 1.06"),
    ("1.06", "1.0649", True, "rounded, not truncated"),
    ("0.3", "0.30", True, "float equality"),
    ("2000000", "2,000,000", True, "commas removed"),
    ("trans", "cis-trans", True, "gold is a substring of the prediction"),
    ("cis-trans", "trans", False, "not the other way round"),
    (("24/7", "3.429"), "3.43", True, "list gold: any element"),
    ("1234.5", "1,234.5 dollars", False, "the number is split by the regexes"),
    ("C", "c", True, "one-letter gold is padded, so is the prediction"),
    ("C", "cat", False, "' c'/'c ' not in 'cat'"),
    ("12", "twelve", False, "a numeric gold needs an extracted number"),
    ("36", "The answer is 36 watts", True, "number extracted from the key response"),
]


@pytest.mark.parametrize(("gold", "response", "correct", "reason"), EVAL_CASES, ids=[c[3] for c in EVAL_CASES])
def test_eval_open(gold, response, correct, reason):
    assert eval_open(gold, parse_open(response)) is correct, reason


def test_strings_never_match_floats():
    assert not eval_open("abc", [1.0])
    assert not eval_open("1", ["1"]) and eval_open("1", [1.0])


@pytest.mark.parametrize(
    ("gold", "pred", "correct"),
    [("A", "A", True), ("A", "(A)", False), (("A", "B"), "B", True), ("A", None, False), ("A", "a", False)],
)
def test_eval_multi_choice_is_exact_equality(gold, pred, correct):
    assert eval_multi_choice(gold, pred) is correct
