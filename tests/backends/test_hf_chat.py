"""Request -> chat messages, image decoding, sampling defaults and <think> splitting (backends/local_chat.py)."""

import io

import pytest
from PIL import Image

from mmmu_eval.backends.local_chat import (
    DEFAULT_MAX_TOKENS,
    chat_messages,
    error_response,
    load_images,
    resolve_sampling,
    template_kwargs,
)
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.core.errors import DataError
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart


def png(color=(255, 0, 0), size=(8, 6), mode="RGB") -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, color).save(buf, "PNG")
    return buf.getvalue()


def image(field="image_1", data=None) -> ImagePart:
    return ImagePart(ImageRef.from_bytes(field, data if data is not None else png()))


def test_parts_keep_their_order_with_images_where_the_prompt_puts_them():
    request = Request("dev_Art_1", (TextPart("Look at "), image("image_1"), TextPart(" and "), image("image_2"), TextPart(".")))
    assert chat_messages(request) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look at "},
                {"type": "image"},
                {"type": "text", "text": " and "},
                {"type": "image"},
                {"type": "text", "text": "."},
            ],
        }
    ]


def test_system_message_comes_first_when_the_request_has_one():
    request = Request("x", (TextPart("Q"),), system="Be brief.")
    messages = chat_messages(request)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == [{"type": "text", "text": "Be brief."}]


def test_adjacent_text_parts_are_joined_and_empty_ones_dropped():
    request = Request("x", (TextPart("a"), TextPart(""), TextPart("b"), image(), TextPart("")))
    assert chat_messages(request)[0]["content"] == [{"type": "text", "text": "ab"}, {"type": "image"}]


def test_image_part_builder_gets_each_images_position_in_prompt_order():
    """vLLM and transformers spell image parts differently; both need the right image at each place."""
    request = Request("x", (image("image_2"), TextPart("t"), image("image_1"), image("image_2")))
    content = chat_messages(request, lambda i: {"type": "image_url", "n": i})[0]["content"]
    assert [c.get("n") for c in content] == [0, None, 1, 2]


def test_images_decode_in_prompt_order_as_rgb_with_repeats_kept():
    red, blue = png((255, 0, 0)), png((0, 0, 255), mode="RGBA")
    request = Request("x", (image("image_2", blue), TextPart("t"), image("image_1", red), image("image_2", blue)))
    images, notes = load_images(request)
    assert notes == ()
    assert [im.mode for im in images] == ["RGB"] * 3
    assert [im.getpixel((0, 0)) for im in images] == [(0, 0, 255), (255, 0, 0), (0, 0, 255)]


def test_large_images_are_down_scaled_as_the_api_backend_does_with_a_note():
    request = Request("x", (image("image_1", png(size=(40, 40))), image("image_2", png(size=(4, 4)))))
    images, notes = load_images(request, max_pixels=400)
    assert [im.size for im in images] == [(20, 20), (4, 4)]
    assert len(notes) == 1 and notes[0].startswith("image_1 (image 1 of the prompt): down-scaled 40x40 to 20x20")


def test_undecodable_image_is_a_data_error_naming_the_item_and_field():
    request = Request("validation_Art_3", (TextPart("t"), image("image_2", b"GIF89a-broken")))
    with pytest.raises(DataError) as err:
        load_images(request)
    assert err.value.item_id == "validation_Art_3"
    assert str(err.value).startswith("validation_Art_3: image_2")


def test_truncated_png_is_a_data_error():
    request = Request("x", (image("image_1", png(size=(64, 64))[:60]),))
    with pytest.raises(DataError, match="image_1"):
        load_images(request)


def test_loader_data_error_passes_through_unchanged():
    def broken() -> bytes:
        raise DataError("image_1 is missing from the parquet file", "x")

    request = Request("x", (ImagePart(ImageRef("image_1", broken)),))
    with pytest.raises(DataError, match="missing from the parquet"):
        load_images(request)


@pytest.mark.parametrize(
    "settings, greedy, temperature, max_tokens",
    [
        (GenerationSettings(), True, 0.0, DEFAULT_MAX_TOKENS),
        (GenerationSettings(temperature=0), True, 0.0, DEFAULT_MAX_TOKENS),
        (GenerationSettings(temperature=0.7, max_tokens=5), False, 0.7, 5),
    ],
)
def test_sampling_defaults_to_greedy_and_the_documented_token_limit(settings, greedy, temperature, max_tokens):
    sampling = resolve_sampling(settings)
    assert (sampling.greedy, sampling.temperature, sampling.max_tokens) == (greedy, temperature, max_tokens)


@pytest.mark.parametrize("settings", [GenerationSettings(temperature=-1), GenerationSettings(max_tokens=0)])
def test_impossible_sampling_settings_are_refused(settings):
    with pytest.raises(ValueError):
        resolve_sampling(settings)


@pytest.mark.parametrize(
    "completion, text, reasoning",
    [
        ("The answer is (B).", "The answer is (B).", None),
        ("<think>compare options</think>\n\nB", "B", "compare options"),
        ("compare options</think>B", "B", "compare options"),  # template opened <think> in the prompt
        ("<think>never closed", "", "never closed"),  # cut by the token limit: no answer given
    ],
)
def test_split_reasoning_follows_the_api_backends_rule(completion, text, reasoning):
    assert split_reasoning(completion) == (text, reasoning)


def test_error_response_names_the_item_and_the_exception_type():
    request = Request("dev_Math_2", (TextPart("t"),))
    response = error_response(request, RuntimeError("CUDA out of memory"), latency_s=1.5)
    assert (response.status, response.latency_s) == ("error", 1.5)
    assert response.error == "dev_Math_2: RuntimeError: CUDA out of memory"
    assert error_response(request, DataError("bad image", "dev_Math_2")).error == "dev_Math_2: bad image"


@pytest.mark.parametrize(
    "extra_body, expected",
    [
        ((), {}),
        ((("chat_template_kwargs", {"enable_thinking": False}),), {"enable_thinking": False}),
        ((("top_k", 20),), {}),  # a server option, not a template variable
    ],
)
def test_template_kwargs_come_from_extra_body(extra_body, expected):
    assert template_kwargs(GenerationSettings(extra_body=extra_body)) == expected


def test_template_kwargs_must_be_an_object():
    with pytest.raises(ValueError, match="chat_template_kwargs"):
        template_kwargs(GenerationSettings(extra_body=(("chat_template_kwargs", "x"),)))
