"""Where a chat template put the images (backends/rendered_prompt.py), on prompts as the real
templates render them (the strings below are what the tiny models' real templates give)."""

import pytest

from mmmu_eval.backends.rendered_prompt import AS_ASKED, UNKNOWN, differs, effective_layout, layout_of, placeholders
from mmmu_eval.core.records import ImagePart, ImageRef, Request, TextPart


def image(n: int) -> ImagePart:
    return ImagePart(ImageRef.from_bytes(f"image_{n}", b"png"))


# "Look at <image 1>, then at <image 2>. Count the dots." as MMMU's interleaved layout builds it
TWO = Request("validation_Computer_Science_4", (
    TextPart("Look at "), image(1), TextPart(", then at "), image(2), TextPart(". Count the dots."),
))


@pytest.mark.parametrize("prompt, layout", [
    # llava-hf/llava-1.5: images first, a space after each text part
    ("USER: <image>\n<image>\nLook at  , then at  . Count the dots.  ASSISTANT:", "images-first"),
    # SmolVLM-Instruct: parts in order
    ("<|im_start|>User: Look at <image>, then at <image>. Count the dots.<end_of_utterance>\nAssistant:", AS_ASKED),
    # a template that appends the images
    ("USER: Look at , then at . Count the dots.\n<image><image>\nASSISTANT:", "text-then-images"),
    # one image moved to the front only
    ("USER: <image>Look at , then at <image>. Count the dots.\nASSISTANT:", "reordered"),
])
def test_the_layout_is_read_from_where_the_placeholders_landed_against_the_text(prompt, layout):
    assert layout_of(TWO, prompt, ["<image>"]) == layout


def test_gemma3_trims_text_parts_and_writes_its_begin_of_image_token():
    prompt = ("<bos><start_of_turn>user\nLook at<start_of_image>, then at<start_of_image>. Count the dots."
              "<end_of_turn>\n<start_of_turn>model\n")
    assert layout_of(TWO, prompt, ["<start_of_image>", "<image_soft_token>"]) == AS_ASKED


def test_a_placeholder_count_that_does_not_match_the_images_or_a_lost_text_is_unknown():
    assert layout_of(TWO, "USER: <image>\nLook at , then at . Count the dots.", ["<image>"]) == UNKNOWN
    assert layout_of(TWO, "USER: <image><image> Look at", ["<image>"]) == UNKNOWN
    assert layout_of(Request("t", (TextPart("no images"),)), "USER: no images", ["<image>"]) is None


def test_the_system_text_does_not_count_as_a_part_of_the_question():
    request = Request("x", (image(1), TextPart("Question: what?")), system="Answer each Question: what? with a letter.")
    # the system text comes first and holds the question's words: the question is found after it
    prompt = "Answer each Question: what? with a letter. USER: <image>\nQuestion: what? ASSISTANT:"
    assert layout_of(request, prompt, ["<image>"]) == AS_ASKED


def test_the_run_summary_names_one_layout_or_counts_items_per_layout():
    assert effective_layout([AS_ASKED, AS_ASKED, None], "interleaved") == "interleaved"
    assert effective_layout(["images-first", AS_ASKED, "images-first", None], "interleaved") == {
        "images-first": 2, "interleaved": 1}
    assert effective_layout([None, None], "interleaved") is None
    assert differs("images-first", "interleaved") and differs({"images-first": 2, "interleaved": 1}, "interleaved")
    assert not differs("interleaved", "interleaved") and not differs(None, "interleaved")


def test_placeholders_come_from_the_processor_then_its_tokenizer():
    class Tok:
        image_token = "<image_soft_token>"

    class Proc:
        boi_token = "<start_of_image>"
        image_token = "<start_of_image>"
        tokenizer = Tok()

    assert placeholders(Proc()) == ["<start_of_image>", "<image_soft_token>"]


def test_the_text_a_template_dropped_is_named_and_whitespace_does_not_count():
    from mmmu_eval.backends.rendered_prompt import dropped_text

    # llava-1.5 adds a space after each part; Gemma 3 trims them: both keep the text
    assert dropped_text(TWO, "USER: <image>\n<image>\nLook at  , then at  . Count the dots.  ASSISTANT:") is None
    assert dropped_text(TWO, "<start_of_turn>user\nLook at<start_of_image>, then at<start_of_image>. Count the dots.") is None
    # an older pixtral-12b template given "text" keys: only the images are left
    assert dropped_text(TWO, "<s>[INST][IMG][IMG][/INST]") == "Look at"
    assert dropped_text(TWO, "<s>[INST]Look at [IMG], then at [IMG][/INST]") == ". Count the dots."


def test_text_spelling_the_models_image_placeholder_is_written_apart_and_noted():
    from mmmu_eval.backends.rendered_prompt import defuse_placeholders

    question = Request("validation_Art_1", (TextPart("According to <image>, which costs 50? <image 2>"), image(1)), system="See <image>.")
    defused, notes = defuse_placeholders(question, ["<image>"])
    assert defused.parts[0] == TextPart("According to [image], which costs 50? <image 2>") and defused.parts[1] == question.parts[1]
    assert defused.system == "See [image]." and notes == ("the text's <image> written [image]: it is the model's image placeholder",)
    assert defuse_placeholders(question, ["[IMG]"]) == (question, ())
