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
  name when every item with images saw the same one, else the count of items per layout;
- ``dropped_text``: the request's text that the rendered prompt lacks. A template that reads text
  parts from a key we do not send renders the images and nothing else (an older pixtral-12b
  template read only ``"content"``): the run must stop rather than measure nothing.
  ``text_keys_for`` finds the keys a template reads (``text``, or ``text`` and ``content``);
- ``template_adds``: text of the template's own in a rendered prompt, neither ours nor markup (a
  default system message; Mistral-Small-3.1's carries today's date), for the manifest;
- ``defuse_placeholders``: text that spells the processor's own image placeholder (MMMU-Pro's
  standard prompt writes ``<image>``, which is llava-hf's image token) would be read as an image
  slot; such text is written with other brackets (``[image]``), and the response says so.

    prompt = render_prompt(processor, request)
    layout_of(request, prompt, placeholders(processor))    # "images-first"
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from mmmu_eval.backends.local_chat import chat_messages, template_kwargs
from mmmu_eval.core.records import ImagePart, Request, TextPart

AS_ASKED = "as-asked"
"""The template kept the request's order of text and images."""
UNKNOWN = "unknown"
"""The placeholders or the text parts could not all be found in the rendered prompt."""

# What a template writes for an image, by the processor attribute that names it: Gemma 3 writes
# its begin-of-image token (which the processor expands), every other family its image token.
_PLACEHOLDER_ATTRIBUTES = ("boi_token", "image_token", "start_image_token")


def render_prompt(processor: Any, request: Request, text_keys: tuple[str, ...] = ("text",)) -> str:
    """The request through the processor's chat template, as text: what the model is given,
    image placeholders not yet expanded into image tokens."""
    return processor.apply_chat_template(
        chat_messages(request, text_keys=text_keys), add_generation_prompt=True, tokenize=False,
        **template_kwargs(request.generation),
    )


_PROBE = "Which option is correct?"


def text_keys_for(processor: Any) -> tuple[str, ...]:
    """The keys text parts must carry for the processor's template to render their text.

    transformers passes content parts to the template as given, and its processors' templates
    read ``text``; an older copy of pixtral-12b's template (and that checkpoint's model card)
    used ``content`` and renders nothing for a part without it. A probe with ``text`` alone
    decides: when its text is missing, ``content`` is sent as well (the same string). A template
    that renders neither keeps ``text`` alone, and ``dropped_text`` stops the run.
    """
    probe = Request("probe", (TextPart(_PROBE),))
    for keys in (("text",), ("text", "content")):
        try:
            if _PROBE in render_prompt(processor, probe, keys):
                return keys
        except Exception:  # noqa: BLE001 - a template's own exception type is anyone's; rendering reports it
            return ("text",)
    return ("text",)


def _squeezed(text: str) -> str:
    return "".join(text.split())


def dropped_text(request: Request, prompt: str) -> str | None:
    """The first of the request's text parts (adjacent ones joined) that ``prompt`` lacks,
    whitespace aside (templates trim parts or add spaces between them); None when all are there."""
    rendered = _squeezed(prompt)
    for kind, text in _asked_order(request):
        if kind == "text" and _squeezed(text) not in rendered:
            return text
    return None


def dropped_text_error(spec: str, name: str, request: Request, missing: str) -> str:
    """The message that stops a run whose template lost ``missing`` from ``request``'s prompt."""
    texts = [text for kind, text in _asked_order(request) if kind == "text"]
    what = "the text parts" if len(texts) == 1 else "a text part"
    sees = "only its images" if request.images else "none of the question"
    shown = missing if len(missing) <= 80 else missing[:77] + "..."
    return (
        f"{spec}: the chat template of {name} drops {what} of the prompt ({request.item_id}): the model would "
        f"see {sees}; missing: {shown!r}. The template reads its text from a key this backend does not send "
        f"(it sends \"text\", and \"content\" too when the template reads only that); fix the checkpoint's "
        f"template (chat_template.jinja or .json) to read \"text\"; `mmmu-eval data show {request.item_id} --model {spec}` "
        "prints what it rendered"
    )


def spelled_apart(mark: str) -> str:
    """``mark`` in other brackets, so the processor does not read it as an image slot:
    ``<image>`` -> ``[image]``, ``[IMG]`` -> ``(IMG)``; otherwise a space after its first character.

    >>> spelled_apart("<image>")
    '[image]'
    """
    if len(mark) > 2 and mark[0] == "<" and mark[-1] == ">":
        return f"[{mark[1:-1]}]"
    if len(mark) > 2 and mark[0] == "[" and mark[-1] == "]":
        return f"({mark[1:-1]})"
    return f"{mark[0]} {mark[1:]}"


def defuse_placeholders(request: Request, marks: Sequence[str]) -> tuple[Request, tuple[str, ...]]:
    """``request`` with every image placeholder of ``marks`` that its text spells written apart
    (``spelled_apart``), and a note for each one changed.

    The processor expands each placeholder in the text into image tokens and counts them against
    the images given: text that spells one (MMMU-Pro's standard prompt writes ``<image>`` where
    each image was, and llava-hf's image token is ``<image>``) fails a text-only request ("Found N
    ``<image>`` tokens in the text but no images were passed") and would take an image's slot in
    one with images. The model reads the same words, in other brackets.
    """
    notes: list[str] = []

    def apart(text: str) -> str:
        for mark in marks:
            if mark in text:
                text = text.replace(mark, spelled_apart(mark))
                note = f"the text's {mark} written {spelled_apart(mark)}: it is the model's image placeholder"
                if note not in notes:
                    notes.append(note)
        return text

    parts = tuple(replace(p, text=apart(p.text)) if isinstance(p, TextPart) else p for p in request.parts)
    system = apart(request.system) if request.system else request.system
    if not notes:
        return request, ()
    return replace(request, parts=parts, system=system), tuple(notes)


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
    return layout_summary(Counter(asked if layout == AS_ASKED else layout for layout in layouts if layout is not None))


def layout_summary(counts: Mapping[str, int]) -> str | dict[str, int] | None:
    """``effective_layout`` from the items per layout: one name when only one layout has items,
    else ``{layout: items}``, most items first; None when no item had images. A merged run sums
    its shards' counts (``run/merge_totals.py``) and summarises them through this too."""
    counts = {layout: n for layout, n in counts.items() if n}
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


def scan_layouts(
    render: Callable[[Request], str], requests: Sequence[Request], marks: Sequence[str], asked: str
) -> tuple[str | dict[str, int] | None, str | None]:
    """Render every request (``render``: through the model's template) and summarise the layouts
    (``effective_layout``); also the first item whose layout is not the one asked, or None.
    A prompt the template refuses counts as ``unknown`` (its generation reports the error)."""
    layouts: list[str | None] = []
    moved = None
    for request in requests:
        try:
            layout = layout_of(request, render(request), marks)
        except Exception:  # noqa: BLE001 - a template's own exception type is anyone's
            layout = UNKNOWN if request.images else None
        layouts.append(layout)
        if moved is None and layout not in (None, AS_ASKED):
            moved = request.item_id
    return effective_layout(layouts, asked), moved


def markup_tokens(processor: Any) -> list[str]:
    """The special tokens of the processor's tokenizer (``<s>``, ``[INST]``, ``<|im_start|>``...),
    longest first: what a template writes as markup."""
    tokenizer = getattr(processor, "tokenizer", processor)
    found = set(getattr(tokenizer, "all_special_tokens", None) or [])
    for token in (getattr(tokenizer, "added_tokens_decoder", None) or {}).values():
        found.add(str(token))
    return sorted((t for t in found if t), key=len, reverse=True)


_MIN_WORDS = 4  # role labels ("USER:", "system", "<|im_start|>assistant") are shorter


def template_adds(request: Request, prompt: str, markup: Sequence[str]) -> list[str]:
    """What ``prompt`` holds beyond ``request``'s text and the template's markup: each stretch
    between markup (``markup``: special tokens and image placeholders) and our text that has at
    least four words, stripped. Role labels and separators are shorter, so what is left is
    text the template wrote of its own accord, such as a default system message.

    >>> prompt = "<s>[SYS]You are a helpful assistant.[/SYS][INST]2 + 2?[/INST]"
    >>> template_adds(Request("x", (TextPart("2 + 2?"),)), prompt, ["<s>", "[SYS]", "[/SYS]", "[INST]", "[/INST]"])
    ['You are a helpful assistant.']
    """
    ours = {text for kind, text in _asked_order(request) if kind == "text"}
    if request.system and request.system.strip():
        ours.add(request.system.strip())
    pieces = [prompt]
    for cut in [*sorted(ours, key=len, reverse=True), *markup]:
        pieces = [bit for piece in pieces for bit in piece.split(cut)]
    return [piece.strip() for piece in pieces if len(piece.split()) >= _MIN_WORDS]
