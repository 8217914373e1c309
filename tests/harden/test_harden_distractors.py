"""The rules a proposed option must pass, and the placement that keeps positions meaningful."""

from __future__ import annotations

import random

import pytest

from mmmu_eval.harden.distractor_rules import check_options, check_reply, normalise, numbers_equal, parse_list
from mmmu_eval.harden.shuffle import arrange, position_dependent, shuffle_rng
from mmmu_eval.core.records import Item


def item(options, answer="A") -> Item:
    return Item("test_Math_1", "mmmu-pro", "test", "standard-4", "Math", "Science", "Q?", tuple(options), answer,
                "multiple-choice", ())


@pytest.mark.parametrize("reply, accepted, error", [
    ('["7", "8", "9"]', ("7", "8", "9"), None),                                          # good
    ('Here you go:\n```json\n["7", "8", "9", "10"]\n```', ("7", "8", "9"), None),       # fenced, one spare
    ("['7', '8', '9']", ("7", "8", "9"), None),                                          # a Python literal
    ('["7", " THREE. ", "9"]', ("7", "9"), "duplicates option B"),                       # case, space, punctuation
    ('["7", "0.50", "9"]', ("7", "9"), "the correct answer (A) written another way"),   # 1/2 reworded
    ('["7", "7.0", "9"]', ("7", "9"), "duplicates the proposal '7'"),                    # same value twice
    ('["7", "8"]', ("7", "8"), "2 usable option(s) of 3 needed"),                        # short
    ('["7", ["8"], 9]', ("7", "9"), "a list, not text"),                                 # malformed entry
    ("I'd suggest 7, 8 and 9.", (), "holds no list"),                                    # no list at all
    ('["7", "see <image 1>", "9"]', ("7", "9"), "names an <image N>"),
    ('["7", "", "9"]', ("7", "9"), "empty"),
])
def test_a_reply_is_usable_only_with_enough_options_passing_every_rule(reply, accepted, error):
    got = check_reply(reply, item(["1/2", "three", "4"], "A"), 3)
    assert got.accepted == accepted
    assert (got.error is None) if error is None else (error in got.error)


@pytest.mark.parametrize("a, b, same", [
    ("0.5 m", "1/2 m", True), ("50%", "0.5", True), ("1,000 kg", "1000 kg", True),
    ("-5", "5", False), ("0.5 m", "0.5 s", False), ("3.2e3 J", "3200 J", True), ("red", "red", False),
])
def test_numbers_equal_compares_values_and_the_words_around_them(a, b, same):
    assert numbers_equal(a, b) is same


def test_normalise_folds_case_space_and_punctuation_but_keeps_signs_and_decimals():
    assert normalise("  Well-known , fact. ") == "well known fact"
    assert normalise("-5") != normalise("5") and normalise("3.5") == "3.5"
    assert parse_list("no list here") is None


def test_check_options_takes_a_reviewers_edit_through_the_same_rules():
    assert check_options(["new one", "New One!"], item(["x", "y"]), 2).error.startswith("1 usable")


@pytest.mark.parametrize("options, expected", [
    (["x", "y", "Both A and B", "None of the above"], [("letters", (0, 1)), ("none-above", ())]),
    (["x", "y", "z", "All of the above"], [("all-above", ())]),
    (["A", "B", "Not enough information"], []),   # column names, not references
    (["x", "Options A and C", "z"], [("letters", (0, 2))]),
    (["x", "y", "Neither A nor B"], [("letters", (0, 1))]),
])
def test_position_dependent_options_are_found(options, expected):
    assert [(d.kind, d.names) for d in position_dependent(options)] == expected


def test_a_plain_shuffle_is_seeded_and_the_answer_follows_the_correct_option():
    options, new = ["w", "x", "y", "z"], [f"d{k}" for k in range(6)]
    one = arrange(options, "C", new, shuffle_rng(0, "id_1"))
    assert one == arrange(options, "C", new, shuffle_rng(0, "id_1"))
    assert one.options[ord(one.answer) - 65] == "y"
    assert sorted(one.options) == sorted(options + new)
    assert arrange(options, "C", new, shuffle_rng(1, "id_1")).options != one.options


def test_letter_references_stay_at_their_letters_and_none_of_the_above_goes_last():
    got = arrange(["x", "y", "Both A and B", "None of the above"], "C", [f"d{k}" for k in range(6)], random.Random(3))
    assert got.options[:3] == ("x", "y", "Both A and B") and got.options[-1] == "None of the above"
    assert got.answer == "C" and len(got.held) == 2 and got.flag is None


def test_a_correct_all_of_the_above_is_not_augmented_but_flagged():
    got = arrange(["x", "y", "z", "All of the above"], "D", ["d1"], random.Random(0))
    assert got.options == ("x", "y", "z", "All of the above") and not got.augmented
    assert "would be false" in got.flag


def test_the_flag_policy_leaves_position_dependent_questions_alone():
    got = arrange(["x", "y", "None of these"], "A", ["d1"], random.Random(0), policy="flag")
    assert got.options == ("x", "y", "None of these") and "not augmented" in got.flag
