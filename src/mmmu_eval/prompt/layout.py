"""Where the images go: binding ``<image N>`` tokens to images, and the three layouts.

Binding (the official rule of both benchmarks, official-protocol.md sections 3 and 6.3):

* A token is anything the official regex ``<image\\s+(\\d+)>`` matches. Token ``<image N>``
  always means the item's field ``image_N``, whatever the order the tokens appear in.
* The images of a prompt are the tokens' images in **textual order** (the question first, then
  the options in letter order), **repeats kept**: ``"<image 2> ... <image 1> ... <image 2>"``
  gives image_2, image_1, image_2.
* A token whose image the item does not have is a per-item DataError that names the item, where
  the token is and what the item does have ("the question refers to <image 3> but the item has
  2 images").

Images no token refers to (a row whose text mentions only ``<image 1>`` but which also has
``image_2``, an image referenced only by an option a 4-option item no longer has) are **not
sent** by default, exactly as the official MMMU-Pro scripts build their image list from the
tokens alone. ``unreferenced_images="append"`` (``--unreferenced-images append``, the rule of
earlier versions, not official) sends them after the referenced ones, once each, in field
order. ``loose_images`` names them, so the manifest, ``data show`` and the report can say which
items are affected. The MMMU-Pro vision screenshot has no token and is the whole question: it is
always sent, after the instruction (the official ``[instruction, image]``), under either rule.

Layouts, given the prompt text with its tokens still in place:

``interleaved`` (default)
    Each token's position in the text becomes that image's part: the text is cut at every
    token and the token itself removed, so ``"Compare <image 1> and <image 2>."`` becomes
    ``Text("Compare "), Image(1), Text(" and "), Image(2), Text(".")``. Empty text pieces are
    left out. Appended images (``trailing``) come after the last text part. Showing each image
    part as ``<image>`` (``Request.text``) gives back MMMU-Pro's official string exactly.
``images-first``
    All images (referenced, then any appended), then one text part: the official prompt string.
``text-then-images``
    One text part, the official prompt string, then all images. This is the official GPT
    script's layout (``content = [text, image1, image2, ...]``).

"The official prompt string" is what ``prompt_text`` returns: for MMMU the tokens stay as
written (``<image 1>``), as in the official LLaVA code; for MMMU-Pro each becomes ``<image>``.
"""

from __future__ import annotations

import re
from typing import Callable

from mmmu_eval.core.errors import DataError
from mmmu_eval.core.records import ImagePart, ImageRef, Item, Part, TextPart, letters

#: The official token regex (MMMU-Pro infer scripts); ``N`` is the field number of ``image_N``.
TOKEN_PATTERN = r"<image\s+(\d+)>"
TOKEN = re.compile(TOKEN_PATTERN)

LAYOUTS = ("interleaved", "images-first", "text-then-images")

#: The rules for images no token refers to, as recorded in the protocol and its fingerprint.
#: ``append``'s text is the one every run recorded before ``official`` became the default, so a
#: run made then continues under ``--unreferenced-images append`` with its fingerprint unchanged.
UNREFERENCED_RULES = {
    "official": "not sent: only the images whose tokens occur, in token order (the official scripts)",
    "append": "kept: after the referenced images, in field order, once each",
}


def token_numbers(text: str) -> list[int]:
    """The image numbers of the tokens in ``text``, in textual order, repeats kept."""
    return [int(m.group(1)) for m in TOKEN.finditer(text)]


def check_references(item: Item) -> None:
    """Raise DataError(item.id) for the first token whose image the item does not have.

    The question is checked first, then the options in letter order, so the message names
    where the bad token is.
    """
    places = [("the question", item.question)]
    places += [(f"option {letter}", option) for letter, option in zip(letters(len(item.options)), item.options)]
    for place, text in places:
        for number in token_numbers(text):
            if item.image(number) is None:
                raise DataError(f"{place} refers to <image {number}> but {_what_it_has(item, number)}", item.id)


def referenced_images(item: Item, text: str) -> tuple[ImageRef, ...]:
    """The images the tokens of ``text`` refer to, in textual order, repeats kept."""
    return tuple(_resolve(item, n) for n in token_numbers(text))


def unreferenced_images(item: Item, text: str) -> tuple[ImageRef, ...]:
    """The item's images that no token of ``text`` refers to, in field order."""
    used = set(token_numbers(text))
    return tuple(ref for ref in item.images if ref.number not in used)


def question_and_options(item: Item) -> str:
    """The text whose ``<image N>`` tokens place an item's images: its question, then each option.

    Each option goes through ``str``: an official output file may carry an option that is itself a
    list (``validation_Accounting_29`` in the 2024 MMMU-Pro files), and its tokens still count.
    """
    return "\n".join((item.question, *(str(option) for option in item.options)))


def loose_images(item: Item) -> tuple[ImageRef, ...]:
    """The item's images that no token of its question or options refers to, in field order.

    Empty for an MMMU-Pro vision item: its screenshot is the question, not a loose image.
    """
    if item.setting == "vision":
        return ()
    return unreferenced_images(item, question_and_options(item))


def arrange(
    item: Item, text: str, layout: str, *, shown_as: Callable[[str], str], trailing: tuple[ImageRef, ...] = ()
) -> tuple[Part, ...]:
    """Lay out a prompt's text and images as request parts.

    Args:
        item: the item the prompt belongs to (its images are looked up, never loaded).
        text: the prompt with its ``<image N>`` tokens still in place.
        layout: ``interleaved``, ``images-first`` or ``text-then-images``.
        shown_as: turns ``text`` into the official prompt string (the text part of the two
            block layouts), e.g. replacing every token by ``<image>`` for MMMU-Pro.
        trailing: images no token places, sent after the referenced ones (the vision
            screenshot; loose images under ``--unreferenced-images append``).

    Returns:
        The parts in the order the model sees them.
    """
    extra = tuple(ImagePart(ref) for ref in trailing)
    if layout == "interleaved":
        parts: list[Part] = []
        start = 0
        for match in TOKEN.finditer(text):
            if match.start() > start:
                parts.append(TextPart(text[start : match.start()]))
            parts.append(ImagePart(_resolve(item, int(match.group(1)))))
            start = match.end()
        if start < len(text):
            parts.append(TextPart(text[start:]))
        return (*parts, *extra)
    images = tuple(ImagePart(ref) for ref in referenced_images(item, text)) + extra
    shown = shown_as(text)
    body = (TextPart(shown),) if shown else ()
    if layout == "images-first":
        return (*images, *body)
    if layout == "text-then-images":
        return (*body, *images)
    raise ValueError(f"unknown image layout {layout!r} (one of {', '.join(LAYOUTS)})")


def _resolve(item: Item, number: int) -> ImageRef:
    ref = item.image(number)
    if ref is None:
        raise DataError(f"the prompt refers to <image {number}> but {_what_it_has(item, number)}", item.id)
    return ref


def _what_it_has(item: Item, number: int) -> str:
    count = len(item.images)
    if count == 0:
        return "the item has no images"
    if number > count or number < 1:
        return f"the item has {count} image{'s' if count != 1 else ''}"
    present = ", ".join(ref.field for ref in item.images)
    return f"the item has no image_{number} (it has {present})"
