"""What the OpenAI backend sends and how it reads the answer: chat bodies in, Responses out.

- **Bodies.** The messages are the request's chat form (``prompt/messages.py``: the prompt's
  order, each image a data URL of the stored bytes). ``encode_body`` serialises a whole request to
  the bytes that go on the wire, in a body thread: the JSON is built with a short placeholder
  for each image, and the base64 is spliced in as bytes afterwards (JSON-escaping a 400 KB
  string that needs no escaping costs more than encoding it).
- **Answers.** ``read_completion`` turns the bytes of a 200 answer into a Response, or raises
  ``MalformedAnswer`` saying what is wrong with them (not UTF-8, cut short, not JSON, a stream
  that was not asked for, no choices, no content): every such answer is one failed attempt of
  its item, retried by the loop up to its cap, never an exception out of the run.
  ``parse_completion`` reads a chat completion's JSON in a few dict look-ups (the
  SDK's pydantic models cost about 0.5 ms per item): text, reasoning, usage, finish reason.

    body, notes = encode_body(request, model="gpt-4o")
    response = read_completion(request.item_id, answer_bytes)
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

try:  # about 2.5x faster than the standard library on a 300 KB image; same bytes
    from pybase64 import b64encode
except ImportError:  # pragma: no cover - pybase64 is a dependency, but keep working without it
    from base64 import b64encode

from mmmu_eval.backends.openai_errors import MalformedAnswer, short
from mmmu_eval.backends.openai_wire import loads
from mmmu_eval.prompt.images import data_url_prefix, image_data_url, tiny_png
from mmmu_eval.prompt.messages import build_messages
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.core.records import MAX_COUNT, REFUSAL_NOTE, Request, Response, is_count

__all__ = ["answer_text", "completion_from_text", "encode_body", "encode_body_parts", "generation_params",
           "parse_completion", "PROBE_TEXT", "preflight_probe", "probe_body", "read_completion"]

#: Stands in for image data while a body is serialised; random, so no prompt contains it.
_MARKER = f"mmmu-eval-image-{uuid.uuid4().hex}-"


def generation_params(request: Request) -> dict[str, Any]:
    """The body fields for the request's generation settings (unset ones are not sent), with
    the extra body fields merged in at the top level, as servers expect them."""
    g = request.generation
    params: dict[str, Any] = {}
    for name in ("max_tokens", "temperature", "top_p", "seed"):
        value = getattr(g, name)
        if value is not None:
            params[name] = value
    params.update(g.extra_body)
    return params


def encode_body(request: Request, model: str, max_image_pixels: int | None = None) -> tuple[bytes, tuple[str, ...]]:
    """The request's JSON body, ready to send, and the image notes. Reads the images.

    The same JSON as ``json.dumps`` of the body with compact separators, byte for byte.
    """
    parts, notes = encode_body_parts(request, model, max_image_pixels)
    return b"".join(parts), notes


def encode_body_parts(
    request: Request, model: str, max_image_pixels: int | None = None
) -> tuple[tuple[bytes, ...], tuple[str, ...]]:
    """``encode_body`` as the pieces that make it up, in order, and the image notes.

    The JSON around the images comes in short pieces and each image's base64 in one: sending
    them one after another needs no copy of a 400 KB body into a new buffer (each such buffer
    costs about 100 fresh pages of memory, which is most of the CPU of building a large body).
    """
    images: list[tuple[bytes, str]] = []

    def placeholder(payload: bytes, media_type: str) -> str:
        images.append((payload, media_type))
        return f"{_MARKER}{len(images) - 1:04d}"

    messages, notes = build_messages(request, max_image_pixels, url_of=placeholder)
    text = json.dumps({"model": model, "messages": messages, **generation_params(request)}, separators=(",", ":"))
    # Base64 and the data-URL prefix are plain JSON-safe ASCII: spliced in as they are.
    parts: list[bytes] = []
    for n, (payload, media_type) in enumerate(images):
        before, found, text = text.partition(f"{_MARKER}{n:04d}")
        assert found, "every image placeholder is in the body"
        parts += [(before + data_url_prefix(media_type)).encode(), b64encode(payload)]
    parts.append(text.encode())
    return tuple(parts), notes


#: The probe's one line of text.
PROBE_TEXT = "Reply with one letter."


def preflight_probe(model: str, requests: Sequence[Request]) -> tuple[bytes, Request | None]:
    """The probe body the preflight sends each endpoint for a run's requests, and the request it stands for.

    The probe carries as many images as the run's widest request (so a server that takes fewer
    refuses it now, not on item 600) and that request's ``extra_body``. ``OpenAIBackend.preflight``
    sends it and ``plan_run`` counts it, from this one function, so ``--dry-run`` counts the
    bytes that go out.
    """
    widest = max(requests, key=lambda r: len(r.images), default=None)
    n_images = len(widest.images) if widest else 0
    extra = dict(widest.generation.extra_body) if widest else {}
    return probe_body(model, n_images, extra), widest


def probe_body(model: str, n_images: int, extra: dict[str, Any]) -> bytes:
    """The preflight's chat body: ``n_images`` tiny images and a one-token answer."""
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": image_data_url(tiny_png(i))[0]}} for i in range(n_images)
    ]
    parts.append({"type": "text", "text": PROBE_TEXT})
    body = {"model": model, "messages": [{"role": "user", "content": parts}], "max_tokens": 1, **extra}
    return json.dumps(body, separators=(",", ":")).encode()


def read_completion(item_id: str, payload: bytes, *, notes: tuple[str, ...] = ()) -> Response:
    """A Response from the body of a 200 answer to a chat request (``answer_text``, then
    ``completion_from_text``).

    Raises:
        MalformedAnswer: the body is not a chat completion; the message says how.
    """
    return completion_from_text(item_id, answer_text(payload), notes=notes)


def answer_text(payload: bytes) -> str:
    """The body of a 200 answer as text. A UTF-8 byte order mark before the JSON is skipped
    (some proxies add one).

    A caller that passes the bytes straight in (``answer_text(await post(...))``) lets them go
    as soon as they are text: a 20 MB answer is then held as bytes, text and parsed content
    at no moment all three.

    Raises:
        MalformedAnswer: an event stream that was not asked for, or not UTF-8.
    """
    head = payload[:64].lstrip()
    if head.startswith((b"data:", b"event:", b":")):
        raise MalformedAnswer(
            f"the server answered with an event stream to a request that did not ask for one: {_shown(payload)}")
    try:
        return payload.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MalformedAnswer(f"the answer is not UTF-8 ({exc.reason} at byte {exc.start}): {_shown(payload)}") from None


def completion_from_text(item_id: str, text: str, *, notes: tuple[str, ...] = ()) -> Response:
    """A Response from the text of a 200 answer (``answer_text``).

    Raises:
        MalformedAnswer: not JSON, cut short, or not a chat completion (``parse_completion``).
    """
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        what = f"the answer is cut short ({len(text)} characters)" if cut else f"the answer is not JSON ({exc.msg})"
        raise MalformedAnswer(f"{what}: {_shown(text[:200].encode())}") from None
    except ValueError as exc:  # past Python's 4300 digits, or nested too deep (openai_wire.loads)
        raise MalformedAnswer(f"the answer is not JSON we can read ({exc}): {_shown(text[:200].encode())}") from None
    return parse_completion(item_id, data, notes=notes)


def _shown(payload: bytes) -> str:
    return short(payload[:200].decode("utf-8", errors="replace"), 120)


def parse_completion(item_id: str, data: Any, *, notes: tuple[str, ...] = ()) -> Response:
    """A Response from a chat completion's JSON.

    A refusal is an answer: ``content: null`` with a ``refusal`` text (OpenAI's structured
    refusal) gives that text, and ``finish_reason: content_filter`` gives whatever content came
    (often none); both are ``ok``, carry a ``REFUSAL_NOTE``, and are scored as the official
    parser scores their text.

    Raises:
        MalformedAnswer: not a completion (no choices, no message, no content where an answer
            should be, a token count out of range): retried, with a cap.
    """
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list):
        raise MalformedAnswer(f"the answer has no choices: {short(repr(data), 120)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedAnswer(f"the first choice has no message: {short(repr(choice), 120)}")
    content = message.get("content")
    finish = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
    if isinstance(content, list):  # a few servers answer in parts, like the request
        texts = [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text"
                 and isinstance(p.get("text"), str)]
        if content and not texts:
            raise MalformedAnswer(f"the answer's content has no text part: {short(repr(content), 120)}")
        content = "".join(texts)
    refusal = _refusal(message, content, finish)
    if refusal is not None:
        notes = (*notes, refusal[1])
        if not content:
            content = refusal[0]
    given_reasoning = [r for r in (message.get("reasoning_content"), message.get("reasoning"))
                       if isinstance(r, str) and r]
    if content is None and not given_reasoning and finish != "length":
        # No answer and no reason for none: a broken gateway, not what the model said.
        raise MalformedAnswer(f"the answer's content is null: {short(repr(message), 120)}")
    if content is not None and not isinstance(content, str):
        raise MalformedAnswer(f"the answer's content is a {type(content).__name__}, not text: {short(repr(content), 120)}")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    prompt_tokens, completion_tokens = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
    thinking = reasoning_tokens(usage)
    text, think = split_reasoning(content or "")
    reasoning = given_reasoning + ([think] if think else [])
    return Response(
        item_id,
        "truncated" if finish == "length" else "ok",
        text=text,
        reasoning="\n\n".join(reasoning) or None,
        finish_reason=finish,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=thinking,
        notes=notes,
    )


def _refusal(message: dict[str, Any], content: object, finish: str | None) -> tuple[str, str] | None:
    """(the refusal's text, its note) when the server refused to answer; None otherwise."""
    given = message.get("refusal")
    if isinstance(given, str) and given and not content:
        return given, f"{REFUSAL_NOTE}the server refused to answer (message.refusal); its text is the answer"
    if finish == "content_filter":
        return "", f"{REFUSAL_NOTE}the server's content filter stopped the answer (finish_reason content_filter)"
    return None


def reasoning_tokens(usage: dict[str, Any]) -> int | None:
    """``usage.completion_tokens_details.reasoning_tokens``, where the server reports it."""
    details = usage.get("completion_tokens_details")
    return _count(details, "reasoning_tokens", "usage.completion_tokens_details") if isinstance(details, dict) else None


def _count(usage: dict[str, Any], name: str, where: str = "usage") -> int | None:
    """A reported token count; None when not reported (absent, null, not a whole number).

    Raises:
        MalformedAnswer: a whole number out of range (below 0, above ``MAX_COUNT``): the answer
            reports nonsense, so the attempt fails, named, and is asked again.
    """
    value = usage.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if not is_count(value):
        digits = str(abs(value))
        shown = str(value) if len(digits) <= 20 else f"{'-' if value < 0 else ''}{digits[:6]}... ({len(digits)} digits)"
        raise MalformedAnswer(f"{where}.{name} is {shown}, not a token count (0 to {MAX_COUNT})")
    return value
