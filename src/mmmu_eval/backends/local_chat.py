"""Turn a Request into chat messages for the local engines (transformers and vLLM).

Both local backends hand the model's *own* chat template a list of messages, so the prompt a
checkpoint sees is the one it was trained on, with each image placed exactly where the request
puts it (interleaved with the question text, or first, as the protocol chose). What differs
between engines is only how an image part is spelled: transformers wants ``{"type": "image"}``
plus a separate list of PIL images in the same order; vLLM wants the image inside the part. So
``chat_messages`` takes the image part as a function of the image's position. (What an
OpenAI-compatible server receives instead, images as data URLs, is ``prompt/messages.py``.)

Images are decoded here, once per request, so that a corrupt image becomes that item's error
(``DataError`` naming the item) before any batch is built: one bad item never sinks a batch.

    images, notes = load_images(request)                # PIL images in prompt order
    messages = chat_messages(request)                   # [{"role": "user", "content": [...]}]

Also here, because both engines need them: the shared generation defaults. The split of a
``<think>`` block off the answer is every backend's, so it is the prompt stage's
(``prompt/reasoning.py``).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from mmmu_eval.core.errors import ConfigError, DataError, MmmuEvalError
from mmmu_eval.core.records import GenerationSettings, ImagePart, Request, Response, TextPart

if TYPE_CHECKING:
    from PIL.Image import Image

DEFAULT_MAX_TOKENS = 128
"""New tokens per answer when neither the protocol nor ``--max-tokens`` says: the official
MMMU scripts' ``max_new_tokens=128``, enough for a direct answer. Chain-of-thought prompts need
more; pass ``--max-tokens``."""

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Sampling:
    """Resolved generation settings for a local engine (no None left but ``seed``/``top_p``)."""

    max_tokens: int
    """Most new tokens."""
    greedy: bool
    """True when temperature is unset or 0: argmax decoding, deterministic."""
    temperature: float
    """0.0 when greedy."""
    top_p: float | None
    """Nucleus mass; None leaves the engine's default (1.0)."""
    seed: int | None
    """Sampling seed; None leaves the engine unseeded."""


def resolve_sampling(settings: GenerationSettings) -> Sampling:
    """Fill the engine defaults into a request's settings.

    Local engines default to greedy decoding (the reproducible choice) where API servers default
    to their own temperature; both read the same GenerationSettings.

    >>> resolve_sampling(GenerationSettings()).greedy
    True
    """
    temperature = settings.temperature or 0.0
    if temperature < 0:
        raise ValueError(f"temperature {temperature} is negative")
    max_tokens = settings.max_tokens if settings.max_tokens is not None else DEFAULT_MAX_TOKENS
    if max_tokens < 1:
        raise ValueError(f"max_tokens {max_tokens} must be at least 1")
    return Sampling(
        max_tokens=max_tokens,
        greedy=temperature == 0.0,
        temperature=temperature,
        top_p=settings.top_p,
        seed=settings.seed,
    )


def template_kwargs(settings: GenerationSettings) -> dict[str, Any]:
    """Extra chat-template variables from ``--extra-body '{"chat_template_kwargs": {...}}'``.

    The API backend sends that field to the server (vLLM, SGLang and ``transformers serve``
    pass it to the template, e.g. ``{"enable_thinking": false}`` for Qwen3); the local backends
    read the same field, so one flag means the same prompt everywhere. Other extra_body fields
    are server options and are ignored here.
    """
    for key, value in settings.extra_body:
        if key == "chat_template_kwargs":
            if not isinstance(value, dict):
                raise ValueError(f"extra_body chat_template_kwargs must be a JSON object, not {value!r}")
            return dict(value)
    return {}


def load_images(request: Request, *, max_pixels: int | None = None) -> tuple[list["Image"], tuple[str, ...]]:
    """Decode the request's images, in prompt order, as RGB PIL images.

    Args:
        request: the prepared request.
        max_pixels: ``--max-image-pixels``: larger images are down-scaled exactly as the API
            backend down-scales the ones it sends (``prompt/images.py``), so a model sees the
            same pixels in-process and behind a server; None never scales.

    Returns:
        The images, and one note per image that was changed (for ``Response.notes``).

    Raises:
        DataError: naming the item, when an image cannot be read or decoded.
    """
    from mmmu_eval.prompt.images import prepare_image

    images, notes = [], []
    for position, ref in enumerate(request.images, start=1):
        data = ref.load()
        if max_pixels is not None:
            try:
                data, _, note = prepare_image(data, max_pixels=max_pixels)
            except ValueError as exc:
                raise DataError(f"{ref.field} (image {position} of the prompt): {exc}", request.item_id) from exc
            if note:
                notes.append(f"{ref.field} (image {position} of the prompt): {note}")
        images.append(decode_image(data, request.item_id, ref.field, position))
    return images, tuple(notes)


def decode_image(data: bytes, item_id: str, field: str, position: int) -> "Image":
    """Encoded bytes (as ``ImageRef.load()`` returns them) as an RGB PIL image.

    Raises:
        DataError: naming the item, the field and the image's place in the prompt.
    """
    from PIL import Image, UnidentifiedImageError

    from mmmu_eval.prompt.image_scaling import ImageTooLarge, check_budget

    try:
        with warnings.catch_warnings():  # the size is checked here, from the header, not warned about
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
        with img:
            check_budget(*img.size)  # before anything is decoded
            return img.convert("RGB")
    except (Image.DecompressionBombError, ImageTooLarge) as exc:
        raise DataError(f"{field} (image {position} of the prompt): {exc}", item_id) from exc
    except UnidentifiedImageError as exc:
        raise DataError(
            f"{field} (image {position} of the prompt) is not in an image format Pillow reads "
            f"({len(data)} bytes starting {data[:8]!r})",
            item_id,
        ) from exc
    except (OSError, ValueError) as exc:  # truncated or corrupt data in a known format
        raise DataError(f"{field} (image {position} of the prompt) cannot be decoded: {exc}", item_id) from exc


def _placeholder(_position: int) -> dict[str, Any]:
    return {"type": "image"}


def chat_messages(
    request: Request, image_part: Callable[[int], dict[str, Any]] = _placeholder, text_keys: tuple[str, ...] = ("text",)
) -> list[Message]:
    """The request as chat messages: an optional system message, then one user turn.

    Text and image parts keep the request's order; adjacent text parts are joined and empty
    ones dropped (they change nothing the model sees, and some templates add separators
    between parts).

    Args:
        request: the prepared request.
        image_part: builds the content part of the image at a 0-based position among the
            request's images; the default is transformers' ``{"type": "image"}``.
        text_keys: the keys a text part carries its text under: ``text`` (transformers' and
            OpenAI's); the hf backend adds ``content`` for a template that reads only that key
            (an older pixtral-12b template; ``rendered_prompt.text_keys_for``).

    Returns:
        Messages for ``processor.apply_chat_template`` or ``LLM.chat``.

    >>> chat_messages(Request("x", (TextPart("Q: "),)))
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'Q: '}]}]
    """
    def text(value: str) -> dict[str, Any]:
        return {"type": "text", **{key: value for key in text_keys}}

    content: list[dict[str, Any]] = []
    position = 0
    for part in request.parts:
        if isinstance(part, TextPart):
            if not part.text:
                continue
            if content and content[-1]["type"] == "text":
                content[-1] = text(content[-1][text_keys[0]] + part.text)
            else:
                content.append(text(part.text))
        elif isinstance(part, ImagePart):
            content.append(image_part(position))
            position += 1
    messages: list[Message] = []
    if request.system:
        messages.append({"role": "system", "content": [text(request.system)]})
    messages.append({"role": "user", "content": content})
    return messages


def check_local_path(spec: str, name: str) -> None:
    """Stop early, with a plain message, when ``name`` is written as a path that is not there.

    Without this a missing directory reaches the hub client as a repo id, and its complaint
    about repo-id characters hides the real problem.
    """
    from pathlib import Path

    if name.startswith(("/", "./", "../", "~")) and not Path(name).expanduser().exists():
        raise ConfigError(f"{spec}: no such model directory {name!r}")


def error_response(request: Request, error: BaseException, *, latency_s: float = 0.0) -> Response:
    """The stored record of an item that could not be generated.

    Our own errors read as they are; anything else keeps its type name, which is often the only
    clue (``OutOfMemoryError: ...``).
    """
    message = str(error) if isinstance(error, MmmuEvalError) else f"{type(error).__name__}: {error}"
    if not message.startswith(request.item_id):
        message = f"{request.item_id}: {message}"
    return Response(request.item_id, "error", latency_s=latency_s, error=message)
