"""One line of ``responses.jsonl``: a Response as JSON, and the checked way back.

The store writes every response through ``response_to_json`` and reads every line through
``response_from_json``, which checks each field so that a hand-edited or damaged line is
refused with the field named, not turned into a Response that fails later in the scorer.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable

from mmmu_eval.errors import StoreError
from mmmu_eval.records import Response

__all__ = ["STATUSES", "response_from_json", "response_to_json"]

#: Statuses a stored response may have.
STATUSES = ("ok", "error", "truncated")


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


# What each field of a stored response must hold, with the words used when it does not.
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "item_id": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "status": (lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "text": (lambda v: isinstance(v, str), "a string"),
    "reasoning": (_opt_str, "a string or null"),
    "finish_reason": (_opt_str, "a string or null"),
    "prompt_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "completion_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "reasoning_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "latency_s": (_seconds, "a number of seconds >= 0"),
    "attempts": (lambda v: _count(v) and v >= 1, "a whole number >= 1"),
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


def response_from_json(d: Any, where: str) -> Response:
    """Check a stored record field by field and build the Response.

    Args:
        d: the decoded JSON value.
        where: what to name in an error, e.g. ``runs/x/responses.jsonl line 12``.

    Raises:
        StoreError: naming ``where`` and the field that is wrong.
    """
    if not isinstance(d, dict):
        raise StoreError(f"{where}: expected a JSON object, found {type(d).__name__}")
    for name in _REQUIRED:
        if name not in d:
            raise StoreError(f"{where}: the record has no {name!r}")
    unknown = sorted(set(d) - set(_FIELDS))
    if unknown:
        raise StoreError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    values: dict[str, Any] = {}
    for name, value in d.items():
        check = _CHECKS.get(name)
        if check is not None and not check[0](value):
            raise StoreError(f"{where}: {name} must be {check[1]}, found {value!r}"[:300])
        values[name] = tuple(value) if isinstance(value, list) else value
    return Response(**values)
