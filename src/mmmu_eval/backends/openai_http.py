"""The OpenAI backend's HTTP: one connection pool and one in-flight limit per endpoint.

Why it is built this way, and not on the ``openai`` SDK's own client:

- **CPU per request.** Requests go out through ``aiohttp`` (C-accelerated HTTP parsing, one
  pooled connector per endpoint) with the body already encoded, and no per-request timers,
  proxy or netrc look-ups. httpx's stack (httpcore, anyio,
  h11, the SDK's option models and header merging) cost 1.5 to 3 ms of event-loop CPU per
  request on this project's 2-core machine, against about 0.25 ms here: with it, one core drove
  about 300 requests a second; the latency, not the client, now bounds a run.
- **Start-up, and no import in flight.** ``import openai`` loads several hundred type modules
  (about a second), and a run never imports it, not even when something fails: a failed attempt
  is raised as ``StatusError`` (an HTTP answer of 4xx/5xx, with its status, headers and body, and
  the message the SDK would build from them) or ``Unreachable`` (no answer), and
  ``openai_errors.classify_error`` reads those without the SDK. An earlier design imported the
  SDK in a worker thread on the first failure, and the event loop, classifying a malformed answer
  meanwhile, read the half-imported module and died (issue 17).
- **One pool, shared.** An ``Endpoint`` holds the in-flight limit (``slots``, a semaphore of
  ``--concurrency``) and the connection pool. Every ``generate`` call of one backend goes through
  them, so several runs sharing a backend keep one pool of requests in flight per endpoint.
  Both are made inside the running event loop on first use and remade if the backend moves to
  another loop (``evaluate`` runs each call in its own).

The request headers are the ones the SDK sends that mean something to a server: the bearer key,
JSON content type and accept, ``OpenAI-Organization`` / ``OpenAI-Project`` from
``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID`` when set (as the SDK reads them), and a user agent that
names mmmu-eval. Proxies come from the environment (``HTTPS_PROXY``, ``NO_PROXY``), as with the SDK;
redirects are not followed, as the SDK's client does not follow them. A base URL's
``user:password@`` goes as HTTP Basic auth in place of the key, as the SDK's httpx sends it. Only a
2xx is an answer, every body read under ``--max-response-bytes`` (``openai_wire``).

Tests pass an httpx transport (``httpx.MockTransport``) instead of the network: everything above
the bytes (headers, bodies, errors, retries, limits) runs as in a real run.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import TYPE_CHECKING, AsyncIterator, Mapping, NamedTuple, Protocol, Sequence
from urllib.parse import urlsplit

from mmmu_eval.backends.openai_wire import (
    DEFAULT_MAX_RESPONSE_BYTES,
    AnswerTooLarge,
    Redirected,
    UnaskedEncoding,
    accept_encoding,
    content_length,
    loads,
    read_capped,
    shown_text,
)
from mmmu_eval.core.urls import basic_authorization, credentials_of, without_credentials
from mmmu_eval.core.version import __version__

if TYPE_CHECKING:  # imported for real only where used: see the module doc
    import httpx

__all__ = ["REDACTED", "Body", "Endpoint", "Redactor", "Redirected", "Reply", "StatusError", "Unreachable",
           "request_headers"]

#: Environment variables the SDK reads for these headers; read the same way here.
ORGANIZATION_ENV = "OPENAI_ORG_ID"
PROJECT_ENV = "OPENAI_PROJECT_ID"


class Reply(NamedTuple):
    """An HTTP answer, whole."""

    status: int
    headers: Mapping[str, str]
    content: bytes


class Unreachable(Exception):
    """The transport failed before an HTTP answer came: ``kind`` is ``timeout`` or ``connection``."""

    def __init__(self, kind: str, cause: BaseException) -> None:
        super().__init__(f"{kind}: {cause}")
        self.kind = kind
        self.cause = cause


#: What stands in an error text for a secret the server echoed back.
REDACTED = "[redacted]"


class Redactor:
    """Takes the secrets we sent (the API key, the values of the ``OpenAI-Organization`` and
    ``OpenAI-Project`` headers, a password in the base URL) out of a text the server sent back.

    A server or proxy may echo the request's headers in its error body; every error text is
    stored (responses.jsonl, report.html) and printed, so it passes through here first. A
    "secret" shorter than ``MIN_SECRET`` characters (the ``EMPTY`` placeholder of a local server,
    a test's ``k``) is no secret, and redacting it would mangle every message.
    """

    MIN_SECRET = 8

    def __init__(self, secrets: Sequence[str]) -> None:
        found = {s for s in secrets if s and len(s) >= self.MIN_SECRET}
        # JSON-escaped forms too, for a text that quotes a JSON body; the longest first
        found |= {json.dumps(s)[1:-1] for s in found}
        self.secrets = tuple(sorted(found, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: object) -> object:
        """``value`` (a parsed JSON body) with every string in it redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


_NO_SECRETS = Redactor(())


class StatusError(Exception):
    """The server answered with HTTP 4xx or 5xx.

    ``body`` is the answer's JSON with the ``{"error": {...}}`` wrapper taken off, or its text
    when it is not JSON, as the SDK's ``APIStatusError.body`` holds it; ``message`` is the
    SDK's message for it (``Error code: 500 - {...}``, or the plain text). Both have every
    secret we sent taken out (``redact``).
    """

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes, redact: Redactor = _NO_SECRETS,
                 *, basic_auth: bool = False) -> None:
        text = redact(content.decode("utf-8-sig", errors="replace").strip())  # a BOM is no part of the text
        body: object = text
        try:  # JSON of any depth or size: ``loads`` refuses what a walk of it could not take
            parsed = redact.value(loads(text))
        except ValueError:
            message = shown_text(text, 2000) or f"Error code: {status}"
        else:
            message = redact(f"Error code: {status} - {parsed}")
            body = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
        super().__init__(message)
        self.status_code = status
        self.basic_auth = basic_auth
        """Whether the request sent the base URL's credentials (not the key): a 401 is about them."""
        self.headers = headers
        self.body = body
        self.message = message


class Body:
    """A request body that the transport forgets once it is on the wire.

    A chat body of an MMMU item is about 400 KB; 256 of them waiting for their answers would
    hold 100 MB for nothing, so the sender keeps none and a retry builds the body again.
    """

    __slots__ = ("_parts", "length")

    def __init__(self, data: bytes | Sequence[bytes]) -> None:
        """``data``: the body, or the pieces it is made of, in order (``encode_body_parts``)."""
        self._parts: tuple[bytes, ...] | None = (data,) if isinstance(data, bytes) else tuple(data)
        self.length = sum(len(p) for p in self._parts)

    def take(self) -> tuple[bytes, ...]:
        """The pieces, once; the body holds nothing afterwards."""
        parts, self._parts = self._parts, None
        if parts is None:
            raise RuntimeError("this body was sent already; build it again to retry")
        return parts


class HTTPClient(Protocol):
    """What an endpoint sends through: one request in, one whole reply out."""

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: Body | None) -> Reply:
        """Raises Unreachable when no answer came (timeout, refused, dropped, TLS)."""
        ...

    async def aclose(self) -> None:
        ...


def request_headers(api_key: str, credentials: tuple[str, str] | None = None) -> dict[str, str]:
    """The headers of every request to an endpoint: the key as a bearer token, or ``credentials``
    (user, password: a base URL's ``user:password@``) as HTTP Basic auth instead."""
    headers = {
        "Authorization": f"Bearer {api_key}" if credentials is None else basic_authorization(*credentials),
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": accept_encoding(),
        "User-Agent": f"mmmu-eval/{__version__}",
    }
    for header, variable in (("OpenAI-Organization", ORGANIZATION_ENV), ("OpenAI-Project", PROJECT_ENV)):
        if os.environ.get(variable):
            headers[header] = os.environ[variable]
    return headers


class Endpoint:
    """One base URL: its headers, its in-flight limit and its connection pool.

    ``post_chat`` and ``get`` return the body of a 2xx answer, and raise ``Redirected`` (3xx),
    ``StatusError`` (4xx/5xx), ``AnswerTooLarge``, ``UnaskedEncoding`` (``openai_wire``) or
    ``Unreachable`` (no answer). Take a slot (``async with endpoint.slots``) around each item's request and retries.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        concurrency: int,
        timeout: float | None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        credentials = credentials_of(base_url)
        self.base_url = without_credentials(base_url).rstrip("/")
        """Where requests go, without credentials: every URL sent, shown or logged is this one."""
        self.chat_url = self.base_url + "/chat/completions"
        self.models_url = self.base_url + "/models"
        self.concurrency = concurrency
        self.max_response_bytes = max_response_bytes
        self.headers = request_headers(api_key, credentials)
        self.redact = Redactor(_secrets_of(self.headers, api_key, credentials))
        """Takes what we sent that is secret out of a text the server sent back."""
        self._timeout = timeout
        self._transport = transport
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: HTTPClient | None = None
        self._slots: asyncio.Semaphore | None = None

    @property
    def slots(self) -> asyncio.Semaphore:
        """At most ``concurrency`` requests in flight to this endpoint, whoever sends them."""
        self._bind()
        assert self._slots is not None
        return self._slots

    async def post_chat(self, body: Body | bytes) -> bytes:
        """POST a ready JSON body to ``/chat/completions``; the answer's body.

        A ``Body`` is taken (forgotten once sent): send a new one to retry.
        """
        return await self._send("POST", self.chat_url, body if isinstance(body, Body) else Body(body))

    async def get(self, url: str) -> bytes:
        """GET ``url`` (``models_url``); the answer's body."""
        return await self._send("GET", url, None)

    def open(self) -> None:
        """Make the connection pool now (importing aiohttp) rather than at the first request.

        Needs a running event loop. A caller about to start work in another thread opens first,
        so that the two threads never import at the same time.
        """
        self._bind()

    async def aclose(self) -> None:
        """Close the connections; the next request opens new ones. Safe to call again."""
        client = self._client
        self._client, self._loop, self._slots = None, None, None
        if client is not None:
            await client.aclose()

    # -- inside -------------------------------------------------------------------------------

    def _bind(self) -> HTTPClient:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._client is None:
            # A new event loop (another evaluate() call): a pool made on the old one cannot serve it.
            self._loop = loop
            self._slots = asyncio.Semaphore(self.concurrency)
            self._client = (_AiohttpClient(self.concurrency, env_proxy(self.base_url), self.max_response_bytes)
                            if self._transport is None else
                            _HttpxClient(self._transport, self._timeout, self.max_response_bytes))
        return self._client

    async def _send(self, method: str, url: str, body: Body | None) -> bytes:
        reply = await self._bind().request(method, url, self.headers, body)
        if 200 <= reply.status < 300:
            return reply.content
        if 300 <= reply.status < 400:  # whatever its body holds, never an answer
            raise Redirected(reply.status, reply.headers.get("Location"), url)
        raise StatusError(reply.status, reply.headers, reply.content, self.redact,
                          basic_auth=self.headers["Authorization"].startswith("Basic "))


def _secrets_of(headers: Mapping[str, str], api_key: str, credentials: tuple[str, str] | None) -> list[str]:
    """What we send that a server must not get stored back: the key (bare and as its header),
    the organisation and project headers, the base URL's user and password (and their Basic
    token). The other headers (content type, accept, user agent) are the same public words for everyone."""
    authorization = headers.get("Authorization", "")
    secrets = [api_key, f"Bearer {api_key}", authorization, authorization.partition(" ")[2],
               *(headers.get(name, "") for name in ("OpenAI-Organization", "OpenAI-Project"))]
    return secrets + (list(credentials) if credentials else [])


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``ALL_PROXY``, ...), unless
    ``NO_PROXY`` exempts its host; None for a direct connection. As httpx and the SDK read them."""
    import urllib.request  # aiohttp has it loaded already

    parts = urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all") or None


class _AiohttpClient:
    """The network path: one aiohttp session whose connector keeps at most ``limit`` connections."""

    def __init__(self, limit: int, proxy: str | None, cap: int) -> None:
        import aiohttp

        self._errors = (aiohttp.ClientError, OSError)
        self._proxy = proxy
        self._cap = cap
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=limit, limit_per_host=0),
            # No timers of its own: the retry loop bounds every attempt (--request-timeout).
            timeout=aiohttp.ClientTimeout(total=None, connect=None, sock_connect=None, sock_read=None),
            # The proxy is read from the environment once (``env_proxy``), not per request: with
            # trust_env aiohttp looks up the proxy and ~/.netrc in a thread for every request.
            trust_env=False,
            # Bodies are decoded by read_capped, under the cap, never by aiohttp whole.
            auto_decompress=False,
        )

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: Body | None) -> Reply:
        data = None
        if body is not None:
            # Streamed from a generator that hands the bytes over and keeps nothing; the stated
            # length keeps it one plain (not chunked) body, as a bytes body would be.
            headers = {**headers, "Content-Length": str(body.length)}
            data = _handed_over(body)
        try:
            async with self._session.request(method, url, data=data, headers=headers, proxy=self._proxy,
                                             allow_redirects=False) as response:
                if 300 <= response.status < 400:  # no answer: its body is not read
                    response.close()
                    return Reply(response.status, response.headers, b"")
                try:
                    content = await read_capped(response.content.iter_any(), cap=self._cap,
                                                encoding=response.headers.get("Content-Encoding"),
                                                declared=content_length(response.headers))
                except (AnswerTooLarge, UnaskedEncoding):
                    response.close()  # the rest of the body is never read: the connection goes
                    raise
                return Reply(response.status, response.headers, content)
        except asyncio.TimeoutError as exc:  # aiohttp's own (the retry loop's arrives as CancelledError)
            raise Unreachable("timeout", exc) from exc
        except self._errors as exc:  # refused, reset, dropped mid-answer, TLS
            raise Unreachable("connection", exc) from exc

    async def aclose(self) -> None:
        await self._session.close()


async def _handed_over(body: Body) -> AsyncIterator[bytes]:
    parts = list(body.take())
    parts.reverse()
    while parts:  # each piece is let go once it is written
        yield parts.pop()


class _HttpxClient:
    """Requests through an httpx transport: the seam tests use (``httpx.MockTransport``)."""

    def __init__(self, transport: httpx.AsyncBaseTransport, timeout: float | None, cap: int) -> None:
        import ssl

        import httpx

        self._httpx = httpx
        self._cap = cap
        self._errors = (httpx.RequestError, ssl.SSLError)
        self._client = httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(timeout))

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: Body | None) -> Reply:
        try:
            async with self._client.stream(method, url, headers=headers,
                                           content=None if body is None else b"".join(body.take())) as response:
                # The raw stream, still encoded (a test's response, made whole, is already "read")
                content = b"" if 300 <= response.status_code < 400 else await read_capped(
                    response.stream, encoding=response.headers.get("Content-Encoding"),
                    declared=content_length(response.headers), cap=self._cap)
        except self._httpx.TimeoutException as exc:
            raise Unreachable("timeout", exc) from exc
        except self._errors as exc:
            raise Unreachable("connection", exc) from exc
        return Reply(response.status_code, response.headers, content)

    async def aclose(self) -> None:
        await self._client.aclose()
