"""MMMU prompt strings, byte for byte against official-protocol.md section 4.2."""

from __future__ import annotations

import pytest

from mmmu_eval.prompt import EvalProtocol, prompt_text

DIRECT = EvalProtocol("mmmu", None, "direct")
COT = EvalProtocol("mmmu", None, "cot")


def test_multiple_choice_matches_the_specification_example(item_factory):
    item = item_factory("How much?", ["$6", "$7", "$8", "$9"])
    assert prompt_text(item, DIRECT) == (
        "How much?\n(A) $6\n(B) $7\n(C) $8\n(D) $9\n\n"
        "Answer with the option's letter from the given choices directly."
    )


def test_open_matches_the_specification_example(item_factory):
    item = item_factory("What is the value of x?", [])
    assert prompt_text(item, DIRECT) == "What is the value of x?\nAnswer the question using a single word or phrase."


def test_image_tokens_stay_as_written_in_question_and_options(item_factory):
    """The official LLaVA code leaves <image N> literals in the text."""
    item = item_factory("Which is <image 1>?", ["<image 2>", "a <image  3>"], images=(1, 2, 3))
    assert prompt_text(item, DIRECT) == (
        "Which is <image 1>?\n(A) <image 2>\n(B) a <image  3>\n\n"
        "Answer with the option's letter from the given choices directly."
    )


def test_twelve_options_get_letters_up_to_l(item_factory):
    options = [f"o{i}" for i in range(12)]
    text = prompt_text(item_factory("Q", options), DIRECT)
    assert text == "Q\n" + "".join(f"({chr(65 + i)}) o{i}\n" for i in range(12)) + (
        "\nAnswer with the option's letter from the given choices directly."
    )
    assert "(L) o11\n" in text


def test_two_options(item_factory):
    assert prompt_text(item_factory("Q", ["yes", "no"]), DIRECT) == (
        "Q\n(A) yes\n(B) no\n\nAnswer with the option's letter from the given choices directly."
    )


@pytest.mark.parametrize(
    "question",
    ["Braces {0} and {x} stay", "Backslash \\n and % stay", "", "trailing newline\n"],
)
def test_question_text_is_copied_verbatim(item_factory, question):
    """Format braces or odd characters in the question are data, never format fields."""
    assert prompt_text(item_factory(question, []), DIRECT) == (
        question + "\nAnswer the question using a single word or phrase."
    )


def test_an_item_typed_open_ignores_stray_options(item_factory):
    """Anything that is not multiple-choice is open, as in the official evaluate()."""
    item = item_factory("Q", ["a", "b"], question_type="open")
    assert prompt_text(item, DIRECT) == "Q\nAnswer the question using a single word or phrase."


# MMMU has no official CoT prompt; ours, pinned whole (a changed word changes what runs measure).
COT_CHOICE_INSTRUCTION = (
    "Answer the preceding multiple choice question. Think step by step, then finish with a last line "
    "of the form 'Answer: $LETTER' (without quotes) where LETTER is one of the options."
)
COT_OPEN_INSTRUCTION = (
    "Think step by step, then finish with a last line of the form 'Answer: $ANSWER' (without quotes) "
    "where ANSWER is a single word or phrase."
)


def test_cot_keeps_the_question_and_options_and_is_not_official(item_factory):
    item = item_factory("How much?", ["$6", "$7"])
    assert prompt_text(item, COT) == "How much?\n(A) $6\n(B) $7\n\n" + COT_CHOICE_INSTRUCTION
    assert COT.official is False and DIRECT.official is True


def test_cot_open_asks_for_an_answer_line(item_factory):
    assert prompt_text(item_factory("What is x?", []), COT) == "What is x?\n" + COT_OPEN_INSTRUCTION


# The boxed prompts (ours, not official), copied by hand rather than from the module.
BOXED = EvalProtocol("mmmu", None, "boxed")
BOXED_CHOICE_INSTRUCTION = (
    "Think step by step to solve the multiple-choice question above. Give your final answer as "
    "\\boxed{LETTER}, where LETTER is the letter of the correct option and nothing else."
)


def test_boxed_multiple_choice_keeps_the_official_option_block(item_factory):
    item = item_factory("How much is <image 1>?", ["$6", "$7", "$8"])
    assert prompt_text(item, BOXED) == "How much is <image 1>?\n(A) $6\n(B) $7\n(C) $8\n\n" + BOXED_CHOICE_INSTRUCTION


def test_boxed_open_asks_for_the_short_answer_in_a_box(item_factory):
    assert prompt_text(item_factory("What is x?", []), BOXED) == (
        "What is x?\nThink step by step to answer the question above. Give your final answer as "
        "\\boxed{ANSWER}, where ANSWER is a single word, phrase or number and nothing else."
    )


def test_boxed_prompt_writes_single_braces_and_keeps_braces_in_the_question(item_factory):
    """The template is a str.format string: its own braces are doubled, the question's are data."""
    text = prompt_text(item_factory("Set {x} or {0}?", ["{a}", "b"]), BOXED)
    assert text == "Set {x} or {0}?\n(A) {a}\n(B) b\n\n" + BOXED_CHOICE_INSTRUCTION
    assert text.count("\\boxed{LETTER}") == 1 and "{{" not in text


def test_boxed_is_not_official(item_factory):
    assert BOXED.official is False
    assert any("boxed" in note for note in BOXED.describe()["notes"])
