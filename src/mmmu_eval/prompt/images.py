"""Dataset images as the bytes an API server receives: passed through, never re-encoded.

MMMU stores PNG and JPEG bytes. Every OpenAI-compatible server accepts PNG, JPEG, GIF and WEBP
data URLs, so those bytes go out exactly as stored: no decode, no re-encode, no loss, and no
CPU spent (peer harnesses re-encode every image, which costs half their time and, with JPEG,
changes what the model sees). Only two things ever touch the pixels, and each leaves a note:

- a format servers do not take (BMP, TIFF, ...) is converted losslessly to PNG;
- ``--max-image-pixels``, when the user asks for it, down-scales larger images (to PNG), decoding
  no more than the scaled image needs (``image_scaling.py``).

An image that must be decoded is checked first, from its header, against Pillow's limit
(``PIL.Image.MAX_IMAGE_PIXELS``): past it the item is an error naming the size (``ImageTooLarge``).

    url, note = image_data_url(png_bytes)            # "data:image/png;base64,...", None
    url, note = image_data_url(big, max_pixels=1_000_000)
"""

from __future__ import annotations

import io
import math

try:  # about 2.5x faster than the standard library on a 300 KB image; same bytes
    from pybase64 import b64encode
except ImportError:  # pragma: no cover - pybase64 is a dependency, but keep working without it
    from base64 import b64encode

from mmmu_eval.prompt.image_scaling import check_budget, open_header, reduces, scaled
from mmmu_eval.core.records import sniff_media_type

#: Formats passed through as stored: the ones OpenAI, vLLM, SGLang, TGI and Ollama all accept.
PASS_THROUGH = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def prepare_image(data: bytes, *, max_pixels: int | None = None) -> tuple[bytes, str, str | None]:
    """The bytes to send, their MIME type, and a note when they differ from the stored bytes.

    Args:
        data: the encoded image exactly as the dataset stores it.
        max_pixels: down-scale (keeping the aspect ratio) to at most this many pixels;
            None never scales.

    Returns:
        ``(bytes, media_type, note)``; ``note`` is None when the stored bytes go out unchanged.

    Raises:
        ValueError: the bytes are not an image Pillow can read (only when they must be decoded);
            ``ImageTooLarge`` when they are too many pixels to decode.
    """
    media_type = sniff_media_type(data)
    if media_type in PASS_THROUGH and max_pixels is None:
        return data, media_type, None
    # Only the header is read here; nothing is decoded before the size is checked (image_scaling.py).
    image = open_header(data)
    width, height = image.size
    if max_pixels is not None and width * height > max_pixels:
        check_budget(width, height, reduced=reduces(image, data))
        scale = math.sqrt(max_pixels / (width * height))
        new_size = (max(1, int(width * scale)), max(1, int(height * scale)))
        note = (
            f"down-scaled {width}x{height} to {new_size[0]}x{new_size[1]} "
            f"(--max-image-pixels {max_pixels})"
        )
        return _png(scaled(image, data, new_size)), "image/png", note
    check_budget(width, height)
    try:
        image.load()  # within the budget: decoded once, so a corrupt image is found before it is sent
    except Exception as exc:  # Pillow raises several unrelated types for bad bytes
        raise ValueError(f"unreadable image ({media_type}, {len(data)} bytes): {exc}") from exc
    if media_type in PASS_THROUGH:
        return data, media_type, None
    return _png(image), "image/png", f"converted {media_type} to PNG (lossless)"


def image_data_url(data: bytes, *, max_pixels: int | None = None) -> tuple[str, str | None]:
    """A ``data:`` URL of the image (see ``prepare_image``) and the note, if any."""
    payload, media_type, note = prepare_image(data, max_pixels=max_pixels)
    return data_url(payload, media_type), note


def data_url(payload: bytes, media_type: str) -> str:
    """``data:<media_type>;base64,...`` of bytes already prepared (``prepare_image``)."""
    return data_url_prefix(media_type) + b64encode(payload).decode("ascii")


def data_url_prefix(media_type: str) -> str:
    """What comes before the base64 in a data URL: the request body and every page's budget
    count it, and the body splices it in before the image's base64 without building the URL."""
    return f"data:{media_type};base64,"


def _png(image) -> bytes:
    """Lossless PNG of a Pillow image; palette and alpha modes survive as they are."""
    if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
        image = image.convert("RGBA" if "A" in image.mode else "RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def tiny_png(seed: int = 0, size: int = 32) -> bytes:
    """A small valid PNG (solid colour from ``seed``), for the preflight probe and tests."""
    from PIL import Image

    colour = ((seed * 73) % 256, (seed * 151) % 256, (seed * 199) % 256)
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, format="PNG")
    return buffer.getvalue()
