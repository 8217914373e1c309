"""What the model's own chat template made of a request: the prompt text, and where the images went.

A local backend hands the checkpoint's chat template the request's parts in order (text, image,
text...), and the template decides what the model sees. Most templates keep the order; some do
not: llava-hf's LLaVA-1.5 and LLaVA-OneVision templates write every image first and then the text
parts, whatever ``--image-layout`` asked. We leave the template in charge (it is the prompt the
model was trained on, which is what a user evaluating it wants measured) and only say what it did:

- ``render_prompt``: the prompt exactly as the template renders it, before the processor expands
  each image placeholder into the model's image tokens (``data show --model hf:DIR`` prints it);
- ``layout_of``: finds each image placeholder and each text part in that prompt and names the
  order the model saw (``as-asked``, ``images-first``, ``text-then-images`` or ``reordered``);
- ``effective_layout``: the run's summary for the manifest (``effective_layout``): one layout
  name when every item with images saw the same one, else the count of items per layout.

    prompt = render_prompt(processor, request)
    layout_of(request, prompt, placeholders(processor))    # "images-first"
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mmmu_eval.backends.local_chat import chat_messages, template_kwargs
from mmmu_eval.records import ImagePart, Request, TextPart

AS_ASKED = "as-asked"
"""The template kept the request's order of text and images."""
UNKNOWN = "unknown"
"""The placeholders or the text parts could not all be found in the rendered prompt."""

# What a template writes for an image, by the processor attribute that names it: Gemma 3 writes
# its begin-of-image token (which the processor expands), every other family its image token.
_PLACEHOLDER_ATTRIBUTES = ("boi_token", "image_token", "start_image_token")


def render_prompt(processor: Any, request: Request) -> str:
    """The request through the processor's chat template, as text: what the model is given,
    image placeholders not yet expanded into image tokens."""
    return processor.apply_chat_template(
        chat_messages(request), add_generation_prompt=True, tokenize=False, **template_kwargs(request.generation)
    )


def placeholders(processor: Any) -> list[str]:
    """The strings a template may write for one image, most specific first."""
    found: list[str] = []
    for holder in (processor, getattr(processor, "tokenizer", None)):
        for name in _PLACEHOLDER_ATTRIBUTES:
            value = getattr(holder, name, None)
            if isinstance(value, str) and value and value not in found:
                found.append(value)
    return found


def _asked_order(request: Request) -> list[tuple[str, str]]:
    """The request's parts as ("text", stripped text) / ("image", "") in order; blank text left out,
    adjacent texts joined (as ``chat_messages`` sends them)."""
    order: list[tuple[str, str]] = []
    for part in request.parts:
        if isinstance(part, ImagePart):
            order.append(("image", ""))
        elif isinstance(part, TextPart) and part.text:
            if order and order[-1][0] == "text":
                order[-1] = ("text", order[-1][1] + part.text)
            else:
                order.append(("text", part.text))
    return [(kind, text.strip()) for kind, text in order if kind == "image" or text.strip()]


def layout_of(request: Request, prompt: str, marks: Sequence[str]) -> str | None:
    """Where the template put the request's images relative to its text.

    The image placeholder is the first of ``marks`` that occurs in ``prompt`` exactly as often as
    the request has images; each text part (stripped: templates such as Gemma 3's trim them) is
    looked for after the one before it, the first after the system text. None for a request
    without images.

    Returns:
        ``as-asked`` when the rendered order is the request's; otherwise ``images-first`` (every
        image before every text), ``text-then-images`` (every image after), ``reordered``; or
        ``unknown`` when a placeholder or a text part is not in the prompt.
    """
    count = len(request.images)
    if not count:
        return None
    mark = next((m for m in marks if prompt.count(m) == count), None)
    if mark is None:
        return UNKNOWN
    events: list[tuple[int, str]] = []
    start = 0
    for _ in range(count):
        at = prompt.index(mark, start)
        events.append((at, "image"))
        start = at + len(mark)
    asked = _asked_order(request)
    cursor = 0
    if request.system and request.system.strip() in prompt:  # its words may recur in the question's
        cursor = prompt.index(request.system.strip()) + len(request.system.strip())
    for kind, text in asked:
        if kind != "text":
            continue
        at = prompt.find(text, cursor)
        if at < 0:
            return UNKNOWN
        events.append((at, "text"))
        cursor = at + len(text)
    seen = [kind for _, kind in sorted(events)]
    if seen == [kind for kind, _ in asked]:
        return AS_ASKED
    images = [i for i, kind in enumerate(seen) if kind == "image"]
    texts = [i for i, kind in enumerate(seen) if kind == "text"]
    if not texts or max(images) < min(texts):
        return "images-first"
    if min(images) > max(texts):
        return "text-then-images"
    return "reordered"


def effective_layout(layouts: Iterable[str | None], asked: str) -> str | dict[str, int] | None:
    """The run's ``effective_layout``: one name when every item with images saw the same layout,
    else ``{layout: items}``; ``as-asked`` reads as the layout asked. None when no item had images.
    """
    counts = Counter(asked if layout == AS_ASKED else layout for layout in layouts if layout is not None)
    if not counts:
        return None
    if len(counts) == 1:
        return next(iter(counts))
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def differs(layout: str | Mapping[str, int] | None, asked: str) -> bool:
    """Whether some item saw another layout than the one asked."""
    if layout is None:
        return False
    return layout != asked


def scan_layouts(processor: Any, requests: Sequence[Request], asked: str) -> tuple[str | dict[str, int] | None, str | None]:
    """Render every request through ``processor``'s template and summarise the layouts
    (``effective_layout``); also the first item whose layout is not the one asked, or None.
    A prompt the template refuses counts as ``unknown`` (its generation reports the error)."""
    marks = placeholders(processor)
    layouts: list[str | None] = []
    moved = None
    for request in requests:
        try:
            layout = layout_of(request, render_prompt(processor, request), marks)
        except Exception:  # noqa: BLE001 - a template's own exception type is anyone's
            layout = UNKNOWN if request.images else None
        layouts.append(layout)
        if moved is None and layout not in (None, AS_ASKED):
            moved = request.item_id
    return effective_layout(layouts, asked), moved
