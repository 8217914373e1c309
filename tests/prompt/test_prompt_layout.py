"""Binding <image N> tokens to images, and the three layouts (prompt/layout.py)."""

from __future__ import annotations

import pytest

from mmmu_eval.core.errors import DataError
from mmmu_eval.prompt import EvalProtocol, build_request, prompt_text
from mmmu_eval.prompt.layout import loose_images, token_numbers
from mmmu_eval.core.records import ImagePart, TextPart

MMMU = EvalProtocol("mmmu", None, "direct")
MC_TAIL = "\n\nAnswer with the option's letter from the given choices directly."
PRO_TAIL = "\nAnswer with the option letter from the given choices directly."


def fields(request):
    return [p.image.field for p in request.parts if isinstance(p, ImagePart)]


def test_token_regex_is_the_official_one():
    assert token_numbers("<image 2> <image  10> <image\n3> <image4> <image x> <Image 1>") == [2, 10, 3]


def test_out_of_order_and_repeated_tokens_bind_in_textual_order(item_factory):
    """Token N is image_N wherever it appears; repeats are sent again (section 6.3)."""
    item = item_factory("Compare <image 3> with <image 1>, then <image 3> again.", [], images=(1, 2, 3))
    request = build_request(item, MMMU)
    assert fields(request) == ["image_3", "image_1", "image_3"]
    assert request.parts[:5] == (
        TextPart("Compare "),
        ImagePart(item.image(3)),
        TextPart(" with "),
        ImagePart(item.image(1)),
        TextPart(", then "),
    )


def test_tokens_in_options_follow_the_question_in_letter_order(item_factory):
    """Shuffled 10-option items put <image 2> before <image 1> (issue #70)."""
    item = item_factory(
        "Which picture <image 3> matches?",
        ["<image 2>", "<image 1>", "none", "<image 2> again"],
        item_id="test_Economics_3",
        benchmark="mmmu-pro",
        setting="standard-10",
        images=(1, 2, 3),
    )
    request = build_request(item, EvalProtocol("mmmu-pro", "standard-10", "direct"))
    assert fields(request) == ["image_3", "image_2", "image_1", "image_2"]
    assert request.parts == (
        TextPart("Which picture "),
        ImagePart(item.image(3)),
        TextPart(" matches?\nA. "),
        ImagePart(item.image(2)),
        TextPart("\nB. "),
        ImagePart(item.image(1)),
        TextPart("\nC. none\nD. "),
        ImagePart(item.image(2)),
        TextPart(" again" + PRO_TAIL),
    )


def test_interleaved_text_shown_with_image_marks_is_the_official_pro_string(item_factory):
    item = item_factory(
        "<image 2> vs <image 1>", ["<image 1>", "b"],
        item_id="test_Economics_3", benchmark="mmmu-pro", setting="standard-4", images=(1, 2),
    )
    protocol = EvalProtocol("mmmu-pro", "standard-4", "cot")
    official = (
        "<image> vs <image>\nA. <image>\nB. b\nAnswer the preceding multiple choice question. The last line of "
        "your response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is "
        "one of options. Think step by step before answering."
    )
    assert build_request(item, protocol).text == prompt_text(item, protocol) == official


@pytest.mark.parametrize(
    ("layout", "expected_kinds"),
    [
        ("interleaved", ["text", "image_2", "text", "image_1", "text"]),
        ("images-first", ["image_2", "image_1", "text"]),
        ("text-then-images", ["text", "image_2", "image_1"]),
    ],
)
def test_each_layout_orders_parts(item_factory, layout, expected_kinds):
    item = item_factory("Is <image 2> bigger than <image 1>?", ["yes", "no"], images=(1, 2))
    request = build_request(item, EvalProtocol("mmmu", None, "direct", image_layout=layout))
    kinds = ["text" if isinstance(p, TextPart) else p.image.field for p in request.parts]
    assert kinds == expected_kinds


@pytest.mark.parametrize("layout", ["images-first", "text-then-images"])
def test_block_layouts_send_the_official_string_as_the_one_text_part(item_factory, layout):
    """MMMU keeps <image N> literals; MMMU-Pro shows <image> (the official scripts' texts)."""
    mmmu_item = item_factory("Is <image 2> bigger?", ["yes", "no"], images=(1, 2))
    (text,) = [p.text for p in build_request(mmmu_item, EvalProtocol("mmmu", None, "direct", image_layout=layout)).parts if isinstance(p, TextPart)]
    assert text == "Is <image 2> bigger?\n(A) yes\n(B) no" + MC_TAIL

    pro_item = item_factory("Is <image 2> bigger?", ["yes", "no"], item_id="test_Economics_3",
                            benchmark="mmmu-pro", setting="standard-10", images=(1, 2))
    protocol = EvalProtocol("mmmu-pro", "standard-10", "direct", image_layout=layout)
    (text,) = [p.text for p in build_request(pro_item, protocol).parts if isinstance(p, TextPart)]
    assert text == "Is <image> bigger?\nA. yes\nB. no" + PRO_TAIL == prompt_text(pro_item, protocol)


def test_interleaved_mmmu_replaces_each_token_by_its_image(item_factory):
    item = item_factory("<image 1>", ["<image 1>"], images=(1,))
    request = build_request(item, MMMU)
    assert request.parts == (ImagePart(item.image(1)), TextPart("\n(A) "), ImagePart(item.image(1)), TextPart(MC_TAIL))


@pytest.mark.parametrize("benchmark", ["mmmu", "mmmu-pro"])
@pytest.mark.parametrize(
    ("layout", "official_kinds", "appended_kinds"),
    [
        ("interleaved", ["text", "image_2", "text"], ["text", "image_2", "text", "image_1", "image_3"]),
        ("images-first", ["image_2", "text"], ["image_2", "image_1", "image_3", "text"]),
        ("text-then-images", ["text", "image_2"], ["text", "image_2", "image_1", "image_3"]),
    ],
)
def test_images_no_token_refers_to_are_left_out_unless_appending_is_asked(
    item_factory, benchmark, layout, official_kinds, appended_kinds
):
    """image_1 and image_3 have no token: the official scripts leave them out; append sends them, in field order."""
    setting = "standard-10" if benchmark == "mmmu-pro" else None
    item = item_factory("Look at <image 2>.", ["a", "b"], images=(1, 2, 3), benchmark=benchmark, setting=setting,
                        item_id="test_Economics_3" if setting else "validation_Economics_1")
    for rule, expected in (("official", official_kinds), ("append", appended_kinds)):
        protocol = EvalProtocol(benchmark, setting, "direct", image_layout=layout, unreferenced_images=rule)
        request = build_request(item, protocol)
        assert [("text" if isinstance(p, TextPart) else p.image.field) for p in request.parts] == expected, rule
        texts = [p.text for p in request.parts if isinstance(p, TextPart)]
        assert "".join(texts).count("Look at") == 1  # the text is the same under both rules
    assert EvalProtocol(benchmark, setting, "direct").unreferenced_images == "official"


def test_an_item_without_any_token_sends_no_image_unless_appending(item_factory):
    item = item_factory("What does the chart show?", [], images=(1,))
    text = TextPart("What does the chart show?\nAnswer the question using a single word or phrase.")
    assert build_request(item, MMMU).parts == (text,)
    appended = build_request(item, EvalProtocol("mmmu", None, "direct", unreferenced_images="append"))
    assert appended.parts == (text, ImagePart(item.image(1)))


@pytest.mark.parametrize("rule", ["official", "append"])
@pytest.mark.parametrize("layout", ["interleaved", "images-first", "text-then-images"])
def test_the_vision_screenshot_is_always_sent_under_either_rule(item_factory, rule, layout):
    item = item_factory("", ["one", "two"], item_id="test_Economics_3", benchmark="mmmu-pro", setting="vision", images=("image",))
    request = build_request(item, EvalProtocol("mmmu-pro", "vision", "direct", image_layout=layout, unreferenced_images=rule))
    assert fields(request) == ["image"]
    assert loose_images(item) == ()


def test_loose_images_names_the_fields_no_token_mentions(item_factory):
    item = item_factory("<image 3> or", ["<image 1>", "x"], images=(1, 2, 3, 4))
    assert [ref.field for ref in loose_images(item)] == ["image_2", "image_4"]


def test_text_only_item_has_only_text(item_factory):
    request = build_request(item_factory("2+2?", ["3", "4"], images=()), MMMU)
    assert request.images == () and len(request.parts) == 1


@pytest.mark.parametrize(
    ("question", "options", "images", "message"),
    [
        ("See <image 3>", ["a"], (1, 2), "validation_Economics_1: the question refers to <image 3> but the item has 2 images"),
        ("See <image 1>", ["a", "<image 2>"], (1,), "validation_Economics_1: option B refers to <image 2> but the item has 1 image"),
        ("See <image 2>", ["a"], (1, 3), "validation_Economics_1: the question refers to <image 2> but the item has no image_2 (it has image_1, image_3)"),
        ("See <image 1>", ["a"], (), "validation_Economics_1: the question refers to <image 1> but the item has no images"),
    ],
)
def test_a_token_without_its_image_is_a_data_error_naming_the_item(item_factory, question, options, images, message):
    item = item_factory(question, options, images=images)
    with pytest.raises(DataError) as caught:
        build_request(item, MMMU)
    assert str(caught.value) == message
    assert caught.value.item_id == "validation_Economics_1"


def test_missing_image_is_reported_for_mmmu_pro_too(item_factory):
    item = item_factory("Q", ["<image 1>", "<image 3>"], item_id="test_Economics_3",
                        benchmark="mmmu-pro", setting="standard-10", images=(1, 2))
    with pytest.raises(DataError, match=r"^test_Economics_3: option B refers to <image 3> but the item has 2 images$"):
        build_request(item, EvalProtocol("mmmu-pro", "standard-10", "direct"))


def test_vision_item_without_its_image_is_a_data_error(item_factory):
    item = item_factory("", [], item_id="test_Economics_3", benchmark="mmmu-pro", setting="vision", images=())
    with pytest.raises(DataError, match="^test_Economics_3: the vision item has no image$"):
        build_request(item, EvalProtocol("mmmu-pro", "vision", "direct"))


@pytest.mark.parametrize("layout", ["interleaved", "images-first", "text-then-images"])
def test_vision_layouts(item_factory, layout):
    item = item_factory("", ["a"], item_id="test_Economics_3", benchmark="mmmu-pro", setting="vision", images=("image",))
    request = build_request(item, EvalProtocol("mmmu-pro", "vision", "direct", image_layout=layout))
    kinds = ["text" if isinstance(p, TextPart) else "image" for p in request.parts]
    assert kinds == (["image", "text"] if layout == "images-first" else ["text", "image"])


def test_building_a_request_never_loads_an_image(item_factory):
    """Prompt building is pure: ImageRef.load() is for the backend."""
    from mmmu_eval.core.records import ImageRef, Item

    def explode() -> bytes:
        raise AssertionError("an image was loaded")

    base = item_factory("<image 1> and <image 2>", ["<image 2>"], images=(1, 2))
    item = Item(**{f: getattr(base, f) for f in Item.__dataclass_fields__} | {
        "images": (ImageRef("image_1", explode), ImageRef("image_2", explode))})
    for layout in ("interleaved", "images-first", "text-then-images"):
        build_request(item, EvalProtocol("mmmu", None, "direct", image_layout=layout))
    prompt_text(item, MMMU)
