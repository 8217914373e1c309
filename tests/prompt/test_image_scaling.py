"""Images checked before they are decoded, and scaled without decoding them whole (issue 40).

The PNGs and JPEGs here are written by Pillow, as a dataset's are. ``benchmarks/large_images.py``
measures the memory of the issue's case (a 13000x13000 PNG in two items).
"""

from __future__ import annotations

import asyncio
import io

import httpx
import numpy as np
import PIL
import pytest
from PIL import Image

import mmmu_eval.prompt.image_scaling as scaling
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.prompt.image_scaling import REDUCING_GAP, ImageTooLarge, open_header, resizable, scaled
from mmmu_eval.prompt.images import prepare_image
from mmmu_eval.core.records import ImagePart, ImageRef, Request, TextPart


def picture(mode: str, size: tuple[int, int], fmt: str = "PNG", seed: int = 0) -> bytes:
    """Gradients with noise (so a PNG's rows use every filter), in ``mode``, saved by Pillow."""
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    layers = [((x * (3 + c) + y * (5 - c) + rng.integers(0, 60, (h, w))) % 256).astype(np.uint8) for c in range(4)]
    if mode == "P":
        image = Image.fromarray(np.stack(layers[:3], -1), "RGB").quantize(48)
        image.info["transparency"] = 3
    elif mode == "1":
        image = Image.fromarray(layers[0], "L").convert("1")
    elif mode == "I;16":
        image = Image.fromarray(layers[0].astype(np.uint16) * 257)
    else:
        bands = len(mode)
        image = Image.fromarray(np.stack(layers[:bands], -1) if bands > 1 else layers[0], mode)
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def whole_then_resized(data: bytes, size: tuple[int, int]) -> Image.Image:
    """What Pillow's own two-step resize gives from the image decoded whole.

    Pillow resamples LA and RGBA premultiplied (La, RGBa) inside ``resize``. Pillow 13 passes
    ``reducing_gap`` on there; Pillow 10 to 12 drop it, a plain LANCZOS (measured under 12.3.0,
    the newest Pillow for Python 3.10: 1 to 3 levels off at 517x389 to 61x45). So for those modes
    the steps Pillow 13 takes are taken here one by one, and each Pillow is held to what it was
    measured to do with them.
    """
    image = resizable(Image.open(io.BytesIO(data)))
    image.load()
    pillows = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP)
    if image.mode not in ("LA", "RGBA"):
        return pillows
    premultiplied = image.convert({"LA": "La", "RGBA": "RGBa"}[image.mode])
    stepwise = premultiplied.resize(size, Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP).convert(image.mode)
    if int(PIL.__version__.split(".")[0]) >= 13:
        assert pillows.tobytes() == stepwise.tobytes(), "Pillow 13's resize is these steps"
    else:
        plain = image.resize(size, Image.Resampling.LANCZOS)
        assert pillows.tobytes() == plain.tobytes(), f"Pillow {PIL.__version__} drops reducing_gap for {image.mode}"
    return stepwise


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P"])
@pytest.mark.parametrize("size, target", [((517, 389), (61, 45)), ((300, 200), (150, 100)), ((999, 31), (97, 3))])
def test_a_png_scaled_a_strip_at_a_time_equals_the_whole_image_resized(monkeypatch, mode, size, target):
    monkeypatch.setattr(scaling, "STRIP_BYTES", 4000)  # many strips, of every height the factor allows
    data = picture(mode, size)
    decoded = decoded_sizes(monkeypatch)
    out = scaled(open_header(data), data, target)
    assert decoded and max(w * h for w, h in decoded) < size[0] * size[1] / 4, "never decoded whole, only strips"
    expected = whole_then_resized(data, target)
    assert (out.mode, out.size) == (expected.mode, target) and out.tobytes() == expected.tobytes()


def decoded_sizes(monkeypatch) -> list[tuple[int, int]]:
    """The size of every image Pillow decodes from now on."""
    from PIL import ImageFile

    sizes: list[tuple[int, int]] = []
    load = ImageFile.ImageFile.load

    def recorded(self):
        sizes.append(self.size)
        return load(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", recorded)
    return sizes


def test_a_jpeg_is_decoded_at_a_reduced_scale(monkeypatch):
    data = picture("RGB", (1600, 1200), "JPEG")
    decoded = decoded_sizes(monkeypatch)
    out = scaled(open_header(data), data, (100, 75))
    assert out.size == (100, 75)
    assert set(decoded) == {(400, 300)}, "decoded at 1/4: the smallest DCT scale of at least 3x the target"


@pytest.mark.parametrize("mode, fmt", [("RGBA", "TIFF"), ("LA", "TIFF"), ("RGBA", "WEBP"), ("P", "GIF")])
def test_an_image_with_alpha_decoded_whole_is_scaled_as_its_png_is_a_strip_at_a_time(monkeypatch, mode, fmt):
    """The same pixels give the same bytes whichever path scales them, on every Pillow (Pillow
    before 13 would resample these modes in one step, left to its own resize)."""
    monkeypatch.setattr(scaling, "STRIP_BYTES", 4000)
    stored = picture(mode, (517, 389), fmt, seed=1)  # a lossy WebP: its PNG holds the pixels as decoded
    whole = open_header(stored)
    assert whole.format == fmt and not scaling.reduces(whole, stored), "decoded whole"
    buffer = io.BytesIO()
    Image.open(io.BytesIO(stored)).save(buffer, format="PNG")
    png = buffer.getvalue()
    assert scaling.reduces(open_header(png), png), "a strip at a time"
    out, by_strips = scaled(whole, stored, (61, 45)), scaled(open_header(png), png, (61, 45))
    assert (out.mode, out.size) == (by_strips.mode, (61, 45)) and out.tobytes() == by_strips.tobytes()


@pytest.mark.parametrize("mode", ["1", "I;16"])
def test_other_pngs_are_decoded_whole_within_the_budget(mode):
    data = picture(mode, (240, 180))
    out = scaled(open_header(data), data, (40, 30))
    whole = Image.open(io.BytesIO(data))
    # Pillow reduces no I;16 image; Pillow 10.0 opens a 16-bit PNG as I (32-bit), which it reduces
    gap = None if whole.mode.startswith("I;16") else REDUCING_GAP
    assert out.tobytes() == resizable(whole).resize((40, 30), Image.Resampling.LANCZOS, reducing_gap=gap).tobytes()


def test_an_image_within_the_budget_is_sent_as_stored():
    data = picture("RGB", (200, 100))
    payload, media_type, note = prepare_image(data, max_pixels=20_000)
    assert payload is data and (media_type, note) == ("image/png", None)


def test_a_png_whose_rows_are_cut_is_unreadable(monkeypatch):
    monkeypatch.setattr(scaling, "STRIP_BYTES", 4000)
    data = picture("RGB", (300, 300))
    cut = data[: len(data) // 2] + data[-12:]  # half the rows, then IEND
    with pytest.raises(ValueError, match="unreadable image"):
        prepare_image(cut, max_pixels=1000)


def test_the_budget_is_pillows_limit_and_twice_it_for_a_reduced_decoding(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 30_000)
    png, gif = picture("RGB", (250, 200)), picture("P", (250, 200), "GIF")
    payload, _, note = prepare_image(png, max_pixels=1000)  # 50,000 pixels, decoded a strip at a time
    assert note == "down-scaled 250x200 to 35x28 (--max-image-pixels 1000)"
    with pytest.raises(ImageTooLarge, match=r"^250x200 is 50,000 pixels, more than the 30,000 an image may have to "
                                            r"be decoded \(PIL.Image.MAX_IMAGE_PIXELS, for an image decoded whole\)"):
        prepare_image(gif, max_pixels=1000)  # no reduced decoding for GIF
    with pytest.raises(ImageTooLarge, match=r"^250x200 is 50,000 pixels, more than the 30,000 "):
        prepare_image(png, max_pixels=100_000)  # within --max-image-pixels: checked by a whole decode
    with pytest.raises(ImageTooLarge, match="decompression bomb"):  # past twice the limit Pillow opens nothing
        prepare_image(picture("RGB", (400, 200)), max_pixels=1000)
    assert prepare_image(png)[0] is png, "an image sent as stored is not decoded, so not refused"


def test_an_image_too_large_to_decode_is_its_items_error_and_the_run_goes_on(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 30_000)
    big, small = picture("P", (250, 200), "GIF"), picture("RGB", (100, 100))

    def request(item_id: str, data: bytes) -> Request:
        return Request(item_id, parts=(TextPart("Look: "), ImagePart(ImageRef("image_1", loader=lambda: data))))

    answer = {"choices": [{"message": {"content": "(A)"}, "finish_reason": "stop"}]}
    backend = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", max_image_pixels=1000,
                            policy=RetryPolicy(max_attempts=2, base_delay=0.001),
                            transport=httpx.MockTransport(lambda r: httpx.Response(200, json=answer)))

    async def run() -> dict:
        try:
            return {r.item_id: r async for r in backend.generate([request("dev_Art_1", big), request("dev_Art_2", small)])}
        finally:
            await backend.aclose()

    out = asyncio.run(run())
    assert out["dev_Art_2"].status == "ok"
    assert (out["dev_Art_1"].status, out["dev_Art_1"].error) == (
        "error", "dev_Art_1: image_1 (image part 1): 250x200 is 50,000 pixels, more than the 30,000 an image may "
        "have to be decoded (PIL.Image.MAX_IMAGE_PIXELS, for an image decoded whole); it was not decoded")


def test_a_local_model_gets_no_image_past_the_budget(monkeypatch):
    """``hf:`` and ``vllm:`` decode every image whole: past Pillow's limit it is the item's error,
    named, before a decode; before, past twice the limit, Pillow's own error ended the run."""
    from mmmu_eval.backends.local_chat import decode_image
    from mmmu_eval.core.errors import DataError

    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 30_000)
    assert decode_image(picture("RGB", (150, 200)), "dev_Art_1", "image_1", 1).size == (150, 200)
    with pytest.raises(DataError, match=r"dev_Art_1.*image_1 \(image 1 of the prompt\): 250x200 is 50,000 pixels"):
        decode_image(picture("RGB", (250, 200)), "dev_Art_1", "image_1", 1)
    with pytest.raises(DataError, match=r"image_2 \(image 2 of the prompt\): .*decompression bomb"):
        decode_image(picture("RGB", (400, 200)), "dev_Art_1", "image_2", 2)
