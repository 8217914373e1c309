"""How the OpenAI backend reads a failed attempt: rate limit, temporary, malformed, or final.

The one retry loop (``backends/retry.py``) acts on the ``Failure`` returned here. Failures arrive
as the ``openai`` SDK raises them (see ``backends/openai_http.py``), so the messages are the ones
users of the SDK know: ``HTTP 429: Rate limit reached ...``, ``connection failed: ...``.

The SDK and httpx are looked up in ``sys.modules`` rather than imported: an exception of theirs
can only exist once they are loaded, and a run that never fails never loads them.
"""

from __future__ import annotations

import email.utils
import json
import sys
from datetime import datetime, timezone
from typing import Any, Mapping

from mmmu_eval.backends.retry import Failure
from mmmu_eval.errors import BackendError

__all__ = ["MalformedAnswer", "classify_error", "classify_preflight", "retry_after_seconds", "short"]


class MalformedAnswer(Exception):
    """The server answered 200 with something that is not a usable chat completion."""


def classify_error(exc: BaseException) -> Failure:
    """Read one failed attempt: rate limit, temporary, malformed, or final.

    429 is a rate limit (its ``Retry-After`` honoured), except an exhausted quota, which no
    wait fixes; 408, 409 and 5xx are temporary, as are timeouts and dropped connections;
    bodies that are not a chat completion are malformed; other 4xx, and anything unknown, final.
    """
    openai = sys.modules.get("openai")
    if openai is not None:
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = f"HTTP {status}: {short(_status_detail(exc))}"
            if status == 429:
                if _error_field(exc, "code") == "insufficient_quota":
                    return Failure("final", message)
                return Failure("rate_limit", message, retry_after_seconds(exc.response.headers))
            if status >= 500 or status in (408, 409):
                return Failure("temporary", message, retry_after_seconds(exc.response.headers))
            return Failure("final", message)
        if isinstance(exc, openai.APITimeoutError):
            return Failure("temporary", "the request timed out")
        if isinstance(exc, openai.APIConnectionError):
            return Failure("temporary", f"connection failed: {short(str(exc.__cause__ or exc))}")
        if isinstance(exc, openai.APIResponseValidationError):
            return Failure("malformed", f"malformed answer: {short(str(exc))}")
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError, MalformedAnswer)):
        return Failure("malformed", f"malformed answer: {short(str(exc))}")
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(exc, httpx.TransportError):
        return Failure("temporary", f"connection failed: {short(str(exc))}")
    if isinstance(exc, BackendError):
        kind = "final" if not exc.retryable else ("rate_limit" if exc.status == 429 else "temporary")
        return Failure(kind, short(str(exc)), exc.retry_after)
    return Failure("final", f"{type(exc).__name__}: {short(str(exc))}")


def classify_preflight(exc: BaseException) -> Failure:
    """As ``classify_error``, but a refused connection is final: the server is not there."""
    failure = classify_error(exc)
    openai = sys.modules.get("openai")
    if (openai is not None and isinstance(exc, openai.APIConnectionError)
            and not isinstance(exc, openai.APITimeoutError)):
        return Failure("final", failure.message)
    return failure


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The server's requested wait: ``retry-after-ms``, or ``Retry-After`` in seconds or as a date.

    ``headers`` must look names up without regard to case (``httpx.Headers``, aiohttp's).
    """
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def short(text: str, limit: int = 300) -> str:
    """One line of at most ``limit`` characters, for logs and stored errors."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error_field(exc: Any, name: str) -> object:
    """A field of the error body, whether the SDK kept the ``{"error": {...}}`` wrapper or not."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get(name) is not None:
            return inner[name]
        if name == "message" and isinstance(inner, str):
            return inner
    return getattr(exc, name, None)


def _status_detail(exc: Any) -> str:
    return str(_error_field(exc, "message") or exc.message)
