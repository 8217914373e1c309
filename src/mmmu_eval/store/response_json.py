"""One line of ``responses.jsonl``: a Response as JSON, and the checked way back.

The store writes every response through ``response_to_json`` and reads every line through
``response_from_json``, which checks each field so that a hand-edited or damaged line is
refused with the field named, not turned into a Response that fails later in the scorer.

The writer and the reader accept exactly the same records: one table of checks (``_CHECKS``,
built on ``records.is_count`` and ``records.is_seconds``, which the backends use too) judges
both what is read and what is about to be written (``record_problem``), so the store never
writes a line it would refuse to read. A run directory cannot be poisoned by its own writer.
"""

from __future__ import annotations

import json
from dataclasses import fields
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # json.dumps's own, ensure_ascii=False
from typing import Any, Callable, Iterator, Mapping

from mmmu_eval.core.atomic import TEXT_ERRORS

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import MAX_COUNT, Response, is_count, is_seconds

__all__ = ["STATUSES", "encoded_line", "record_problem", "response_from_json", "response_to_json"]

#: Statuses a stored response may have.
STATUSES = ("ok", "error", "truncated")


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


_COUNT = f"a whole number from 0 to {MAX_COUNT} or null"


# What each field of a stored response must hold, with the words used when it does not.
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "item_id": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "status": (lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "text": (lambda v: isinstance(v, str), "a string"),
    "reasoning": (_opt_str, "a string or null"),
    "finish_reason": (_opt_str, "a string or null"),
    "prompt_tokens": (lambda v: v is None or is_count(v), _COUNT),
    "completion_tokens": (lambda v: v is None or is_count(v), _COUNT),
    "reasoning_tokens": (lambda v: v is None or is_count(v), _COUNT),
    "latency_s": (is_seconds, "a number of seconds >= 0 (finite)"),
    "attempts": (lambda v: is_count(v) and v >= 1, "a whole number >= 1"),
    "error": (_opt_str, "a string or null"),
    "notes": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
}
_FIELDS = tuple(f.name for f in fields(Response))
_REQUIRED = ("item_id", "status")


def response_to_json(r: Response) -> dict[str, Any]:
    """A Response as a JSON-ready dict (tuples become lists); one line of responses.jsonl."""
    out: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(r, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def record_problem(d: Any) -> str | None:
    """What makes ``d`` (a decoded line, or ``response_to_json`` of a Response about to be
    written) no valid record: one sentence naming the field; None when it is one."""
    if not isinstance(d, dict):
        return f"expected a JSON object, found {type(d).__name__}"
    for name in _REQUIRED:
        if name not in d:
            return f"the record has no {name!r}"
    unknown = sorted(set(d) - set(_FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})"
    for name, value in d.items():
        check = _CHECKS.get(name)
        if check is not None and not check[0](value):
            return f"{name} must be {check[1]}, found {value!r}"[:300]
    return None


def response_from_json(d: Any, where: str) -> Response:
    """Check a stored record field by field (``record_problem``) and build the Response.

    Args:
        d: the decoded JSON value.
        where: what to name in an error, e.g. ``runs/x/responses.jsonl line 12``.

    Raises:
        StoreError: naming ``where`` and the field that is wrong.
    """
    problem = record_problem(d)
    if problem is not None:
        raise StoreError(f"{where}: {problem}")
    return Response(**{name: tuple(value) if isinstance(value, list) else value for name, value in d.items()})


#: Characters of a long text encoded at a time (``encoded_line``).
_SLICE = 1 << 20


def encoded_line(record: Mapping[str, Any]) -> Iterator[bytes]:
    """The bytes of ``record`` as one line of responses.jsonl, newline included, in pieces.

    The same bytes as ``json.dumps(record, ensure_ascii=False, separators=(",", ":"))`` encoded
    to UTF-8 with ``TEXT_ERRORS`` (a lone surrogate becomes its JSON escape), and ``"\\n"``. A long
    text (a 20 MB answer) is encoded a slice at a time, so storing it never holds a second and
    third copy of it (the line as text, then as bytes). Raises ValueError for NaN or infinity,
    which ``record_problem`` refuses first.
    """
    yield b"{"
    for n, (name, value) in enumerate(record.items()):
        head = ("," if n else "") + encode_basestring(name) + ":"
        if isinstance(value, str) and len(value) > _SLICE:
            yield (head + '"').encode()
            for start in range(0, len(value), _SLICE):  # escapes are per character: slices join exactly
                yield encode_basestring(value[start:start + _SLICE])[1:-1].encode("utf-8", TEXT_ERRORS)
            yield b'"'
        else:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
            yield (head + text).encode("utf-8", TEXT_ERRORS)
    yield b"}\n"
