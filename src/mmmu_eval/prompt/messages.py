"""The chat form of a request: the messages an OpenAI-compatible server receives for it.

A Request is the prompt stage's output (text and image parts in the protocol's order); the chat
form is that same order as one user message (after the system message, when the protocol has
one), each image a ``data:`` URL of the bytes ``images.py`` chooses to send. It lives here, below
the backends, because two users build it: the OpenAI backend sends it (``backends/openai_body.py``
serialises it to the wire bytes) and the RL environment hands it to a verifiers rollout
(``environments/examples.py``); both must send the same bytes for the same item.

    messages, notes = build_messages(request)          # [{"role": "user", "content": [...]}], ()
"""

from __future__ import annotations

from typing import Any, Callable

from mmmu_eval.prompt.images import data_url, prepare_image
from mmmu_eval.core.records import ImagePart, Request, TextPart

__all__ = ["build_messages"]


def build_messages(
    request: Request,
    max_image_pixels: int | None = None,
    *,
    url_of: Callable[[bytes, str], str] | None = None,
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The chat messages for a request, and the per-image notes (down-scaling, conversion).

    Text and image parts keep the prompt's order; images are data URLs of the stored bytes
    (``url_of(bytes, media_type)`` may make something else of them). A text-only request sends
    its text as a plain string, which every server accepts. Reads the images: call it off the
    event loop.
    """
    url_of = url_of or data_url
    messages: list[dict[str, Any]] = []
    if request.system is not None:
        messages.append({"role": "system", "content": request.system})
    notes: list[str] = []
    if not any(isinstance(p, ImagePart) for p in request.parts):
        messages.append({"role": "user", "content": "".join(p.text for p in request.parts)})
        return messages, ()
    content: list[dict[str, Any]] = []
    seen = 0
    for part in request.parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
            continue
        seen += 1
        try:
            payload, media_type, note = prepare_image(part.image.load(), max_pixels=max_image_pixels)
        except ValueError as exc:  # unreadable, or too large to decode: the item's error, naming the image
            raise type(exc)(f"{part.image.field} (image part {seen}): {exc}") from exc
        if note:
            notes.append(f"{part.image.field} (image part {seen}): {note}")
        content.append({"type": "image_url", "image_url": {"url": url_of(payload, media_type)}})
    messages.append({"role": "user", "content": content})
    return messages, tuple(notes)
