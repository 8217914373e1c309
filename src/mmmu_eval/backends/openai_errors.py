"""How the OpenAI backend reads a failed attempt: rate limit, temporary, malformed, or final.

The one retry loop (``backends/retry.py``) acts on the ``Failure`` returned here. The backend's
own failures are ``StatusError`` (an HTTP 4xx/5xx answer) and ``Unreachable`` (no answer), from
``backends/openai_http.py``; the messages are the ones users of the SDK know (``HTTP 429: Rate
limit reached ...``, ``connection failed: ...``).

Nothing here imports or looks up the ``openai`` SDK or httpx. Errors raised by them (a caller
that sends through the SDK and classifies here) are recognised by the names of their classes,
walked up the exception's own type: an exception that exists has its class complete, whereas the
module may at that moment be half-imported by another thread, without the attributes an
``isinstance`` test would read (the crash of issue 17).
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from mmmu_eval.backends.openai_http import StatusError, Unreachable
from mmmu_eval.backends.openai_wire import AnswerTooLarge, NotJSON, Redirected, UnaskedEncoding
from mmmu_eval.backends.retry import Failure
from mmmu_eval.core.errors import BackendError

__all__ = ["MalformedAnswer", "classify_error", "classify_preflight", "classify_probe", "redacting", "retry_after_seconds", "short"]


class MalformedAnswer(Exception):
    """The server answered 200 with something that is not a usable chat completion."""


def classify_error(exc: BaseException) -> Failure:
    """Read one failed attempt: rate limit, temporary, malformed, or final.

    429 is a rate limit (its ``Retry-After`` honoured), except an exhausted quota, which no
    wait fixes; 408, 409 and 5xx are temporary, as are timeouts and dropped connections;
    bodies that are not a chat completion are malformed (not JSON at any depth or size, or in
    an encoding not asked for); other 4xx, and anything unknown, final. A redirect and an answer
    past ``--max-response-bytes`` are final for their item, which a resumed run asks again (a
    server that redirects every request is stopped by the preflight: ``classify_preflight``).
    """
    if isinstance(exc, (Redirected, AnswerTooLarge)):
        return Failure("final", str(exc))
    if isinstance(exc, (NotJSON, UnaskedEncoding)):
        return Failure("malformed", f"malformed answer: {short(str(exc))}")
    lineage = _class_names(exc)
    if isinstance(exc, StatusError) or "openai.APIStatusError" in lineage:
        return _status_failure(exc, exc.status_code, _headers_of(exc))
    if isinstance(exc, Unreachable):
        if exc.kind == "timeout":
            return Failure("temporary", "the request timed out")
        return Failure("temporary", f"connection failed: {short(str(exc.cause))}")
    if "openai.APITimeoutError" in lineage:
        return Failure("temporary", "the request timed out")
    if "openai.APIConnectionError" in lineage:
        return Failure("temporary", f"connection failed: {short(str(exc.__cause__ or exc))}")
    if "openai.APIResponseValidationError" in lineage:
        return Failure("malformed", f"malformed answer: {short(str(exc))}")
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError, MalformedAnswer)):
        return Failure("malformed", f"malformed answer: {short(str(exc))}")
    if "httpx.TransportError" in lineage:
        return Failure("temporary", f"connection failed: {short(str(exc))}")
    if isinstance(exc, BackendError):
        kind = "final" if not exc.retryable else ("rate_limit" if exc.status == 429 else "temporary")
        return Failure(kind, short(str(exc)), exc.retry_after)
    return Failure("final", f"{type(exc).__name__}: {short(str(exc))}")


def _status_failure(exc: Any, status: int, headers: Mapping[str, str]) -> Failure:
    message = f"HTTP {status}: {short(_status_detail(exc))}"
    if status == 429:
        if "insufficient_quota" in (_error_field(exc, "code"), _error_field(exc, "type")):
            return Failure("final", message, stops_run=f"the API key's quota is exhausted ({message}); no wait "
                           "fixes that: add credit or raise the limit, or use another key (--api-key-env)")
        return Failure("rate_limit", message, retry_after_seconds(headers))
    if status >= 500 or status in (408, 409):
        return Failure("temporary", message, retry_after_seconds(headers))
    return Failure("final", message, stops_run=_never_passes(status, message, getattr(exc, "basic_auth", False)))


def _never_passes(status: int, message: str, basic_auth: bool = False) -> str | None:
    """The real cause of an answer no request to this server can pass; None for one request's."""
    if status in (401, 403) and basic_auth:
        return (f"the server refused the user name and password in --base-url ({message}); check them "
                "(they are sent as HTTP Basic auth, in place of the API key)")
    if status == 401:
        return (f"the server rejected the API key ({message}); check the key in OPENAI_API_KEY "
                "(or the variable --api-key-env names)")
    if status == 403:
        return (f"the server refused the API key ({message}); the key has no access to this model or "
                "project: use a key that has, or another --model")
    if status == 404:
        return (f"the server has no such model or no chat endpoint at this address ({message}); check "
                "--model and --base-url (OpenAI-compatible servers usually end in /v1)")
    return None


def _class_names(exc: BaseException) -> frozenset[str]:
    """``package.ClassName`` for every class the exception is an instance of (``openai.APIError``
    for ``openai._exceptions.APIError``): both SDKs re-export their errors at the top."""
    return frozenset(f"{cls.__module__.partition('.')[0]}.{cls.__qualname__}" for cls in type(exc).__mro__)


def _headers_of(exc: Any) -> Mapping[str, str]:
    """The answer's headers: ours carry them, the SDK's keep them on ``exc.response``."""
    headers = getattr(exc, "headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    return headers if headers is not None else {}


def redacting(classify: Callable[[BaseException], Failure], redact: Callable[[str], str]) -> Callable[[BaseException], Failure]:
    """``classify``, with every secret we sent taken out of what its failure says (a server's
    message or a redirect's Location may echo one): what is logged, stored and raised holds none."""
    def read(exc: BaseException) -> Failure:
        failure = classify(exc)
        return dataclasses.replace(failure, message=redact(failure.message),
                                   stops_run=None if failure.stops_run is None else redact(failure.stops_run))
    return read


def classify_probe(exc: BaseException) -> Failure:
    """As ``classify_error``, but a redirect or an answer past the cap at start-up stops the run
    with what it is (not "cannot reach", not "refused the images")."""
    failure = classify_error(exc)
    if isinstance(exc, (Redirected, AnswerTooLarge)):
        return dataclasses.replace(failure, stops_run=failure.message)
    return failure


def classify_preflight(exc: BaseException) -> Failure:
    """As ``classify_probe``, but a refused connection is final: the server is not there."""
    failure = classify_probe(exc)
    lineage = _class_names(exc)
    refused = (isinstance(exc, Unreachable) and exc.kind == "connection") or (
        "openai.APIConnectionError" in lineage and "openai.APITimeoutError" not in lineage)
    return dataclasses.replace(failure, kind="final") if refused else failure


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
