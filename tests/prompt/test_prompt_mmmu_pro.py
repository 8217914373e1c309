"""MMMU-Pro prompt strings, byte for byte against official-protocol.md sections 6.2-6.3."""

from __future__ import annotations

import pytest

from mmmu_eval.prompt import EvalProtocol, build_request, prompt_text
from mmmu_eval.core.records import ImagePart, TextPart

# Copied by hand from the specification (section 6.2), not from the module under test.
DIRECT_STANDARD = "Answer with the option letter from the given choices directly."
COT_STANDARD = (
    "Answer the preceding multiple choice question. The last line of your response should be of "
    "the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of options. "
    "Think step by step before answering."
)
DIRECT_VISION = (
    "Answer with the option letter from the given choices directly. The last line of your response "
    "should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of "
    "options."
)
COT_VISION = (
    "Write out the multiple-choice question in the image and then solve it. The last line of your "
    "response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is "
    "one of options. Think step by step before answering."
)


def pro_item(factory, question="How much?", options=("$6", "$7", "$8", "$9"), *, setting="standard-10", images=(1,)):
    return factory(question, options, item_id="test_Economics_3", benchmark="mmmu-pro", setting=setting, images=images)


@pytest.mark.parametrize("setting", ["standard-10", "standard-4"])
def test_standard_direct_has_letter_dot_lines_and_single_newlines(item_factory, setting):
    item = pro_item(item_factory, setting=setting)
    assert prompt_text(item, EvalProtocol("mmmu-pro", setting, "direct")) == (
        "How much?\nA. $6\nB. $7\nC. $8\nD. $9\n" + DIRECT_STANDARD
    )


def test_standard_cot_uses_the_same_frame_with_the_cot_instruction(item_factory):
    item = pro_item(item_factory)
    assert prompt_text(item, EvalProtocol("mmmu-pro", "standard-10", "cot")) == (
        "How much?\nA. $6\nB. $7\nC. $8\nD. $9\n" + COT_STANDARD
    )


def test_standard_replaces_every_image_token_by_image(item_factory):
    """Step 2 of section 6.3: the official regex, whitespace variants included."""
    item = pro_item(item_factory, "See <image 2> and <image  1>.", ["<image 1>", "x<image\t2>y"], images=(1, 2))
    assert prompt_text(item, EvalProtocol("mmmu-pro", "standard-10", "direct")) == (
        "See <image> and <image>.\nA. <image>\nB. x<image>y\n" + DIRECT_STANDARD
    )


def test_twelve_options_get_letters_up_to_l(item_factory):
    """test_Computer_Science_61 has 12 options, A..L."""
    options = [f"o{i}" for i in range(12)]
    text = prompt_text(pro_item(item_factory, "Q", options), EvalProtocol("mmmu-pro", "standard-10", "direct"))
    assert text == "Q\n" + "\n".join(f"{chr(65 + i)}. o{i}" for i in range(12)) + "\n" + DIRECT_STANDARD
    assert "\nL. o11\n" in text


@pytest.mark.parametrize(("mode", "expected"), [("direct", DIRECT_VISION), ("cot", COT_VISION)])
def test_vision_prompt_is_the_instruction_alone(item_factory, mode, expected):
    item = pro_item(item_factory, "", ["a", "b"], setting="vision", images=("image",))
    protocol = EvalProtocol("mmmu-pro", "vision", mode)
    assert prompt_text(item, protocol) == expected
    request = build_request(item, protocol)
    assert request.parts == (TextPart(expected), ImagePart(item.images[0]))
    assert protocol.official is True


def test_vision_ignores_question_and_option_text_and_their_tokens(item_factory):
    """The vision config's options may mention <image 2>; the prompt never shows them."""
    item = pro_item(item_factory, "Q <image 3>", ["<image 2>"], setting="vision", images=("image",))
    request = build_request(item, EvalProtocol("mmmu-pro", "vision", "direct"))
    assert request.text == DIRECT_VISION + "<image>"
    assert request.images == item.images


# Ours (the official code has no OCR prompt, section 6.2), pinned whole; it ends with the
# official answer line so the official parser reads it.
OCR_VISION = (
    "The image shows a multiple-choice question. First transcribe the question and every option exactly "
    "as written, one option per line, each starting with its letter. Then give the answer without further "
    "explanation. The last line of your response should be of the following format: 'Answer: $LETTER' "
    "(without quotes) where LETTER is one of options."
)


def test_ocr_prompt_is_ours_and_ends_with_the_official_answer_line(item_factory):
    item = pro_item(item_factory, "", [], setting="vision", images=("image",))
    protocol = EvalProtocol("mmmu-pro", "vision", "ocr")
    assert prompt_text(item, protocol) == OCR_VISION
    assert build_request(item, protocol).parts == (TextPart(OCR_VISION), ImagePart(item.images[0]))
    assert protocol.official is False
    assert any("ocr" in note for note in protocol.describe()["notes"])


# The boxed instructions (ours, not official), copied by hand rather than from the module.
BOXED_STANDARD = (
    "Think step by step to solve the multiple-choice question above. Give your final answer as "
    "\\boxed{LETTER}, where LETTER is the letter of the correct option and nothing else."
)
BOXED_VISION = (
    "The image shows a multiple-choice question and its options. Read it, then think step by step "
    "to solve it. Give your final answer as \\boxed{LETTER}, where LETTER is the letter of the "
    "correct option and nothing else."
)


@pytest.mark.parametrize("setting", ["standard-10", "standard-4"])
def test_standard_boxed_uses_the_official_frame_with_the_boxed_instruction(item_factory, setting):
    item = pro_item(item_factory, "See <image 1>: how much?", ["$6", "<image 1>"], setting=setting)
    protocol = EvalProtocol("mmmu-pro", setting, "boxed")
    assert prompt_text(item, protocol) == "See <image>: how much?\nA. $6\nB. <image>\n" + BOXED_STANDARD
    assert protocol.official is False


def test_vision_boxed_is_the_boxed_instruction_alone(item_factory):
    item = pro_item(item_factory, "Q", ["a", "b"], setting="vision", images=("image",))
    protocol = EvalProtocol("mmmu-pro", "vision", "boxed")
    assert prompt_text(item, protocol) == BOXED_VISION
    assert build_request(item, protocol).parts == (TextPart(BOXED_VISION), ImagePart(item.images[0]))
    assert protocol.official is False
