"""OpenAI-compatible chat backend: OpenAI, vLLM, SGLang, TGI, Ollama, llama.cpp, ``transformers serve``.

Built on the ``openai`` SDK's ``AsyncOpenAI``. What it does, and why:

- **Lossless images, in prompt order.** Each image part becomes an ``image_url`` data URL of the
  dataset's stored bytes, untouched (see ``backends/images.py``); text parts stay text.
- **Saturates the server, keeps memory flat.** Each endpoint gets ``concurrency`` workers (one
  limit per endpoint); workers pull the next request from one shared queue, so several
  ``--base-url`` spread the load and a fast server takes more. Request bodies (image bytes ->
  base64 -> JSON) are built by a small thread pool just ahead of need, into a short bounded
  queue, so the event loop only moves bytes and a worker sends its next request the moment an
  answer arrives; only requests in flight or about to be sent hold encoded images.
- **Little CPU per request.** Each endpoint has one ``AsyncOpenAI`` client: it runs the
  preflight, and its headers (``default_headers`` and ``auth_headers``: the key, user agent and
  ``X-Stainless-*``) and its status errors (``_make_status_error_from_response``) are the ones
  the chat requests use. Those requests are sent by each worker's own single-connection
  ``httpx.AsyncClient`` (same TLS context, timeout and proxy settings from the environment)
  with the ready body as ``content=`` bytes, and failures are raised as the SDK raises them
  (``APITimeoutError``, ``APIConnectionError``, ``APIStatusError``). The SDK's request path
  (option models, header merging, auth hooks) and httpcore's scan of every pooled connection on
  each request cost about 1 ms of event-loop CPU per item, a third of the harness's CPU.
- **Survives faults.** Failures are classified here (``classify_error``) and retried by the one
  loop in ``backends/retry.py``. An item that never gets an answer becomes a Response with
  status ``error`` and the last error message; an error is never turned into answer text.
- **Preflight.** Before the run, one probe per endpoint checks the server answers, lists the
  model, and accepts as many images in one request as the run needs.
- **Reasoning models.** ``<think>...</think>`` is removed from the parsed text and kept in
  ``Response.reasoning``, with ``reasoning_content`` / ``reasoning`` fields servers return;
  an answer cut by the token limit is ``truncated``.

The API key comes from ``OPENAI_API_KEY`` (or ``--api-key-env NAME``) and is never written
anywhere. A server on loopback (127.0.0.1, localhost, ::1) needs no key: local vLLM and
``transformers serve`` ignore it, so a placeholder is sent when none is set.

    backend = OpenAIBackend.from_config("gpt-4o", RunConfig(model="openai:gpt-4o"), items)
    await backend.preflight(requests)
    async for response in backend.generate(requests): ...
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import email.utils
import ipaddress
import json
import logging
import os
import random
import ssl
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Callable, Sequence
from urllib.parse import urlsplit, urlunsplit

import httpx
import openai

try:  # about 2.5x faster than the standard library on a 300 KB image; same bytes
    from pybase64 import b64encode
except ImportError:  # pragma: no cover - pybase64 is a dependency, but keep working without it
    from base64 import b64encode

from mmmu_eval.backends.images import image_data_url, prepare_image, tiny_png
from mmmu_eval.backends.reasoning import split_reasoning
from mmmu_eval.backends.retry import Failure, RetryPolicy, call_with_retries
from mmmu_eval.config import RunConfig
from mmmu_eval.errors import BackendError, ConfigError, MmmuEvalError
from mmmu_eval.records import ImagePart, Item, Request, Response, TextPart

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_CONCURRENCY = 64
DEFAULT_MAX_ATTEMPTS = 6
DEFAULT_REQUEST_TIMEOUT = 600.0
#: The start-up probe tries at most this often, and waits at most this long for /models.
PREFLIGHT_MAX_ATTEMPTS = 3
PREFLIGHT_LISTING_TIMEOUT = 30.0
#: Sent as the key to loopback servers when no key is set; they do not check it.
LOCAL_PLACEHOLDER_KEY = "EMPTY"
#: Threads that build request bodies ahead of need (reading images, base64). Base64 holds the GIL,
#: so more threads only contend with the event loop; two overlap reading with encoding.
BODY_THREADS = 2
#: httpcore's pool checks every pooled connection on every request event (a poll() and a
#: getpeername() per idle one; quadratic in the pool size: one pool of 64 cost 18 ms of CPU per
#: item), so each worker sends through its own HTTP client holding one keep-alive connection.
CONNECTIONS_PER_WORKER = 1


class MalformedAnswer(Exception):
    """The server answered 200 with something that is not a usable chat completion."""


class OpenAIBackend:
    """Chat completions against one or more OpenAI-compatible endpoints. See the module doc."""

    def __init__(
        self,
        model: str,
        *,
        base_urls: Sequence[str] = (DEFAULT_BASE_URL,),
        api_key: str,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: RetryPolicy = RetryPolicy(),
        max_image_pixels: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        """
        Args:
            model: the model name the server knows (``gpt-4o``, a vLLM served name, a path).
            base_urls: one or more endpoints; the load is spread over them.
            api_key: the key sent as the bearer token (never logged or stored).
            concurrency: requests in flight per endpoint.
            policy: attempts, back-off and per-attempt timeout (seconds).
            max_image_pixels: down-scale larger images to this many pixels; None never scales.
            transport: an httpx transport for tests (``httpx.MockTransport``).
            clock, sleep, rng: time and jitter, as parameters so tests control them.
        """
        if concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        if not base_urls:
            raise ConfigError("openai: no base URL given")
        self.model = model
        self.spec = f"openai:{model}"
        self.base_urls = tuple(_normalise_url(u) for u in base_urls)
        self.concurrency = concurrency
        self.policy = policy
        self.max_image_pixels = max_image_pixels
        self.api_key_env: str | None = None
        """The variable the key came from (for the manifest); None when given directly or not needed."""
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._pool: ThreadPoolExecutor | None = None
        # Stands in for image data while the body is serialised; random, so no prompt has it.
        self._marker = f"mmmu-eval-image-{uuid.uuid4().hex}-"
        self._transport = transport
        # One TLS context for all clients: loading the CA bundle costs ~25 ms per context.
        self._ssl_context = httpx.create_ssl_context()
        # One SDK client per endpoint: preflight, the headers of every request, status errors.
        self._clients = [
            openai.AsyncOpenAI(
                base_url=url,
                api_key=api_key,
                max_retries=0,  # the one retry loop is ours (backends/retry.py)
                timeout=policy.timeout,
                http_client=self._http_client(),
            )
            for url in self.base_urls
        ]
        # Per endpoint, the senders of its workers (made by the first generate(), then reused).
        self._senders: list[list[_Sender]] = [[] for _ in self.base_urls]

    def _http_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=self._transport,
            verify=self._ssl_context,
            timeout=httpx.Timeout(self.policy.timeout),
            limits=httpx.Limits(max_connections=CONNECTIONS_PER_WORKER,
                                max_keepalive_connections=CONNECTIONS_PER_WORKER),
        )

    @classmethod
    def from_config(cls, name: str, config: RunConfig, items: Sequence[Item] = ()) -> "OpenAIBackend":
        """The backend for ``--model openai:NAME``, with the key taken from the environment.

        Raises:
            ConfigError: no model name, or no key for a server that is not on loopback.
        """
        if not name:
            raise ConfigError("--model openai: needs a model name, e.g. openai:gpt-4o")
        urls = _split_urls(config.base_urls) or _split_urls((os.environ.get("OPENAI_BASE_URL", ""),))
        urls = urls or (DEFAULT_BASE_URL,)
        env = config.api_key_env or "OPENAI_API_KEY"
        key = os.environ.get(env, "")
        if not key:
            if config.api_key_env is None and all(_is_loopback(u) for u in urls):
                key = LOCAL_PLACEHOLDER_KEY
            elif config.api_key_env is None:
                raise ConfigError(
                    f"OPENAI_API_KEY is not set (needed by openai:{name}); "
                    "set it or pass --api-key-env NAME"
                )
            else:
                raise ConfigError(f"{env} is not set (needed by openai:{name}, named by --api-key-env); set it")
        policy = RetryPolicy(
            max_attempts=_given(config.max_attempts, DEFAULT_MAX_ATTEMPTS),
            timeout=_given(config.request_timeout, DEFAULT_REQUEST_TIMEOUT),
        )
        backend = cls(
            name,
            base_urls=urls,
            api_key=key,
            concurrency=_given(config.concurrency, DEFAULT_CONCURRENCY),
            policy=policy,
            max_image_pixels=config.max_image_pixels,
        )
        backend.api_key_env = env if os.environ.get(env) else None  # None: a loopback server, no key
        return backend

    def describe(self) -> dict[str, object]:
        """For the manifest: where and how requests went. Never the key."""
        return {
            "backend": "openai",
            "model": self.model,
            "base_urls": [_without_credentials(u) for u in self.base_urls],
            "concurrency_per_endpoint": self.concurrency,
            "max_attempts": self.policy.max_attempts,
            "request_timeout_s": self.policy.timeout,
            "max_image_pixels": self.max_image_pixels,
            "api_key_env": self.api_key_env,
        }

    # ----------------------------------------------------------------------------- preflight

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Check every endpoint: reachable, serves the model, takes the run's most images.

        Raises:
            ConfigError: naming the endpoint and the fix.
        """
        widest = max(requests, key=lambda r: len(r.images), default=None)
        n_images = len(widest.images) if widest else 0
        extra = dict(widest.generation.extra_body) if widest else {}
        await asyncio.gather(
            *(self._preflight_one(url, client, n_images, widest, extra)
              for url, client in zip(self.base_urls, self._clients))
        )

    async def _preflight_one(
        self, url: str, client: openai.AsyncOpenAI, n_images: int,
        widest: Request | None, extra: dict[str, Any],
    ) -> None:
        shown = _without_credentials(url)
        # The probe must fail fast: a server that accepts connections but never answers would
        # otherwise hold the run silent for the full request timeout times every attempt.
        policy = RetryPolicy(
            max_attempts=min(PREFLIGHT_MAX_ATTEMPTS, self.policy.max_attempts),
            base_delay=self.policy.base_delay,
            max_delay=min(10.0, self.policy.max_delay),
            timeout=self.policy.timeout,
        )
        listing_policy = dataclasses.replace(policy, timeout=min(PREFLIGHT_LISTING_TIMEOUT, policy.timeout))
        listing = await call_with_retries(
            lambda: client.models.list(), _classify_preflight, policy=listing_policy,
            item_id=f"preflight {shown}", sleep=self._sleep, rng=self._rng,
        )
        if listing.failure is not None and listing.value is None:
            failure = listing.failure
            if "HTTP 401" in failure.message or "HTTP 403" in failure.message:
                raise ConfigError(f"{shown} rejected the API key ({failure.message}); check the key's variable")
            if "HTTP 404" in failure.message:
                log.warning("%s has no /models listing (%s); not checking the model name", shown, failure.message)
            else:
                raise ConfigError(
                    f"cannot reach {shown} ({failure.message}); start the server or fix --base-url "
                    "(OpenAI-compatible servers usually end in /v1)"
                )
        else:
            served = [m.id for m in listing.value.data]
            if served and self.model not in served:
                listed = ", ".join(served[:10]) + (" ..." if len(served) > 10 else "")
                raise ConfigError(
                    f"model {self.model!r} is not served by {shown}; it serves: {listed}. "
                    "Pass --model openai:<one of those>"
                )
        parts: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": image_data_url(tiny_png(i))[0]}} for i in range(n_images)
        ]
        parts.append({"type": "text", "text": "Reply with one letter."})
        probe = await call_with_retries(
            lambda: client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": parts}], max_tokens=1,
                extra_body=extra or None,
            ),
            classify_error, policy=policy, item_id=f"preflight {shown}", sleep=self._sleep, rng=self._rng,
        )
        if probe.value is None:
            assert probe.failure is not None
            if probe.failure.kind == "final" and n_images > 1:
                raise ConfigError(
                    f"{shown} refused a request with {n_images} images ({probe.failure.message}); "
                    f"the run needs up to {n_images} images in one request (item {widest.item_id}). "
                    f"For vLLM start the server with --limit-mm-per-prompt '{{\"image\": {n_images}}}'; "
                    "otherwise choose a server and model that take several images"
                )
            raise ConfigError(
                f"{shown} did not answer a probe request for {self.model!r} "
                f"after {probe.attempts} attempt(s): {probe.failure.message}"
            )

    # ----------------------------------------------------------------------------- generate

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield one Response per request as each finishes (any order); see the module doc.

        Bodies are built ahead by ``BODY_THREADS`` preparers into a small bounded queue, so a
        worker whose answer arrives sends its next request at once: building a body (reading
        and base64-encoding the images) never sits between one answer and the next request.
        Memory stays flat: bodies exist only in flight, in the queue, or in a preparer's hands.
        """
        if not requests:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(BODY_THREADS, thread_name_prefix="mmmu-eval-body")
        pending = iter(requests)  # shared by the preparers: each request is taken exactly once
        total_workers = min(self.concurrency, len(requests)) * len(self._clients)
        ready: asyncio.Queue[tuple[Request, bytes, tuple[str, ...]] | None] = asyncio.Queue(
            maxsize=max(BODY_THREADS, total_workers // 8)
        )
        done: asyncio.Queue[Response | BaseException] = asyncio.Queue()
        per_endpoint = min(self.concurrency, len(requests))
        # Workers are started endpoint by endpoint in turn, so a small run spreads too; worker w
        # of an endpoint sends through that endpoint's sender w (one connection each).
        for client, senders in zip(self._clients, self._senders):
            while len(senders) < per_endpoint:
                senders.append(_Sender(client, self._http_client(), self.policy.timeout))
        workers = [
            asyncio.ensure_future(self._worker(senders[w], ready, done))
            for w in range(per_endpoint)
            for senders in self._senders
        ]
        feeder = asyncio.ensure_future(self._feed(pending, ready, done, len(workers)))
        try:
            for _ in range(len(requests)):
                got = await done.get()
                if isinstance(got, BaseException):
                    raise got
                yield got
        finally:
            for task in (feeder, *workers):
                task.cancel()
            await asyncio.gather(feeder, *workers, return_exceptions=True)

    async def _feed(self, pending, ready: asyncio.Queue, done: asyncio.Queue, workers: int) -> None:
        """Prepare bodies with BODY_THREADS preparers, then tell each worker to stop."""
        try:
            await asyncio.gather(*(self._prepare(pending, ready, done) for _ in range(BODY_THREADS)))
            for _ in range(workers):
                await ready.put(None)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug: surface it through generate(), do not hang
            done.put_nowait(exc)

    async def _prepare(self, pending, ready: asyncio.Queue, done: asyncio.Queue) -> None:
        loop = asyncio.get_running_loop()
        for request in pending:
            try:
                body, notes = await loop.run_in_executor(self._pool, self.encode_body, request)
            except (MmmuEvalError, ValueError, OSError) as exc:
                # No log line here: the runner logs each stored error once, with its id.
                # Preparing it was the one attempt: never sent, and resume retries it.
                done.put_nowait(Response(request.item_id, "error", attempts=1, error=_with_id(request.item_id, exc)))
                continue
            await ready.put((request, body, notes))  # waits while the queue is full

    async def _worker(self, sender: "_Sender", ready: asyncio.Queue, done: asyncio.Queue) -> None:
        try:
            while (job := await ready.get()) is not None:
                done.put_nowait(await self._answer(sender, *job))
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug: surface it through generate(), do not hang
            done.put_nowait(exc)

    async def _answer(self, sender: "_Sender", request: Request, body: bytes,
                      notes: tuple[str, ...]) -> Response:
        start = self._clock()

        async def attempt() -> Response:
            # The JSON is read here, in a few dict look-ups, instead of through the SDK's
            # pydantic models (0.5 ms per item).
            answer = await sender.post(body)
            return parse_completion(request.item_id, json.loads(answer.content), notes=notes)

        outcome = await call_with_retries(
            attempt,
            classify_error, policy=self.policy, item_id=request.item_id, sleep=self._sleep, rng=self._rng,
        )
        latency = self._clock() - start
        last_error = outcome.failure.message if outcome.failure else None
        if outcome.value is None:
            log.warning("%s: gave up after %d attempt(s): %s", request.item_id, outcome.attempts, last_error)
            return Response(request.item_id, "error", latency_s=latency, attempts=outcome.attempts,
                            error=last_error, notes=notes)
        return dataclasses.replace(outcome.value, latency_s=latency, attempts=outcome.attempts, error=last_error)

    def encode_body(self, request: Request) -> tuple[bytes, tuple[str, ...]]:
        """The request's JSON body, ready to send, and the image notes. Runs in a body thread.

        The body is serialised here rather than by ``chat.completions.create``: the SDK walks
        every message part against its type hints and encodes the JSON on the event loop (about
        3 ms per MMMU item), which would cap a run near 300 items/s on one core.
        """
        images: list[tuple[bytes, str]] = []

        def placeholder(payload: bytes, media_type: str) -> str:
            images.append((payload, media_type))
            return f"{self._marker}{len(images) - 1:04d}"

        messages, notes = build_messages(request, self.max_image_pixels, url_of=placeholder)
        body = {"model": self.model, "messages": messages, **generation_params(request)}
        text = json.dumps(body, separators=(",", ":"))
        # Splice the base64 in as bytes: JSON-escaping a 400 KB string that needs no escaping
        # costs more than encoding it. Base64 and the data-URL prefix are plain JSON-safe ASCII.
        chunks: list[bytes] = []
        for n, (payload, media_type) in enumerate(images):
            before, found, text = text.partition(f"{self._marker}{n:04d}")
            assert found, "every image placeholder is in the body"
            chunks += [before.encode(), b"data:", media_type.encode(), b";base64,", b64encode(payload)]
        chunks.append(text.encode())
        return b"".join(chunks), notes

    async def aclose(self) -> None:
        """Close the HTTP connections and the body threads."""
        for client in self._clients:
            await client.close()
        for senders in self._senders:
            for sender in senders:
                await sender.http.aclose()
            senders.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class _Sender:
    """Posts ready chat bodies for one worker, as ``client.post`` would, with less CPU.

    The request carries the SDK client's own headers (its key, user agent and ``X-Stainless-*``
    fields) and goes to its base URL; a failure is raised as the SDK raises it: a timeout as
    ``APITimeoutError``, a transport error as ``APIConnectionError``, a 4xx/5xx as the status
    error its ``_make_status_error_from_response`` builds (``RateLimitError``, ...), so
    ``classify_error`` reads both paths alike. Only the SDK's per-request option models and
    header merging are skipped; they change nothing for a fixed key and no per-request options.
    """

    __slots__ = ("sdk", "http", "url", "headers", "extensions")

    def __init__(self, sdk: openai.AsyncOpenAI, http: httpx.AsyncClient, timeout: float | None) -> None:
        self.sdk = sdk
        self.http = http
        self.url = httpx.URL(str(sdk.base_url).rstrip("/") + "/chat/completions")
        sdk_headers = {**sdk.default_headers, **sdk.auth_headers, "X-Stainless-Retry-Count": "0"}
        if timeout is not None:
            sdk_headers["X-Stainless-Read-Timeout"] = str(timeout)
        # As client.build_request merges them: httpx's defaults (Accept-Encoding, Connection),
        # then the SDK's; omitted ones (OpenAI-Organization without an organisation) not sent.
        merged = httpx.Headers(http.headers)
        merged.update({k: v for k, v in sdk_headers.items() if isinstance(v, str)})
        self.headers = merged.multi_items()
        self.extensions = {"timeout": httpx.Timeout(timeout).as_dict()}

    async def post(self, body: bytes) -> httpx.Response:
        request = httpx.Request("POST", self.url, headers=self.headers, content=body,
                                extensions=self.extensions)
        try:
            response = await self.http.send(request)
        except httpx.TimeoutException as exc:
            raise openai.APITimeoutError(request=request) from exc
        except (httpx.RequestError, ssl.SSLError) as exc:
            raise openai.APIConnectionError(request=request) from exc
        if response.status_code >= 400:
            raise self.sdk._make_status_error_from_response(response)
        return response


# --------------------------------------------------------------------------------- requests

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
    url_of = url_of or _data_url
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
        payload, media_type, note = prepare_image(part.image.load(), max_pixels=max_image_pixels)
        if note:
            notes.append(f"{part.image.field} (image part {seen}): {note}")
        content.append({"type": "image_url", "image_url": {"url": url_of(payload, media_type)}})
    messages.append({"role": "user", "content": content})
    return messages, tuple(notes)


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


def _data_url(payload: bytes, media_type: str) -> str:
    return f"data:{media_type};base64,{base64.b64encode(payload).decode('ascii')}"


# -------------------------------------------------------------------------------- responses

def parse_completion(item_id: str, data: Any, *, notes: tuple[str, ...] = ()) -> Response:
    """A Response from a chat completion's JSON.

    Raises:
        MalformedAnswer: not a completion (no choices, no message): retried, with a cap.
    """
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list):
        raise MalformedAnswer(f"the answer has no choices: {_short(repr(data), 120)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedAnswer(f"the first choice has no message: {_short(repr(choice), 120)}")
    content = message.get("content")
    if isinstance(content, list):  # a few servers answer in parts, like the request
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    text, think = split_reasoning(content if isinstance(content, str) else "")
    reasoning = [r for r in (message.get("reasoning_content"), message.get("reasoning"), think)
                 if isinstance(r, str) and r]
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    return Response(
        item_id,
        "truncated" if finish == "length" else "ok",
        text=text,
        reasoning="\n\n".join(reasoning) or None,
        finish_reason=finish,
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
        reasoning_tokens=reasoning_tokens(usage),
        notes=notes,
    )


def reasoning_tokens(usage: dict[str, Any]) -> int | None:
    """``usage.completion_tokens_details.reasoning_tokens``, where the server reports it."""
    details = usage.get("completion_tokens_details")
    return _int_or_none(details.get("reasoning_tokens")) if isinstance(details, dict) else None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------- classification

def classify_error(exc: BaseException) -> Failure:
    """Read one failed attempt: rate limit, temporary, malformed, or final.

    429 is a rate limit (its ``Retry-After`` honoured), except an exhausted quota, which no
    wait fixes; 408, 409 and 5xx are temporary, as are timeouts and dropped connections;
    bodies that are not a chat completion are malformed; other 4xx, and anything unknown, final.
    """
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message = f"HTTP {status}: {_short(_status_detail(exc))}"
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
        return Failure("temporary", f"connection failed: {_short(str(exc.__cause__ or exc))}")
    if isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError, MalformedAnswer)):
        return Failure("malformed", f"malformed answer: {_short(str(exc))}")
    if isinstance(exc, httpx.TransportError):
        return Failure("temporary", f"connection failed: {_short(str(exc))}")
    if isinstance(exc, BackendError):
        kind = "final" if not exc.retryable else ("rate_limit" if exc.status == 429 else "temporary")
        return Failure(kind, _short(str(exc)), exc.retry_after)
    return Failure("final", f"{type(exc).__name__}: {_short(str(exc))}")


def _classify_preflight(exc: BaseException) -> Failure:
    """As ``classify_error``, but a refused connection is final: the server is not there."""
    failure = classify_error(exc)
    if isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError):
        return Failure("final", failure.message)
    return failure


def retry_after_seconds(headers: httpx.Headers, now: datetime | None = None) -> float | None:
    """The server's requested wait: ``retry-after-ms``, or ``Retry-After`` in seconds or as a date."""
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


def _error_field(exc: openai.APIStatusError, name: str) -> object:
    """A field of the error body, whether the SDK kept the ``{"error": {...}}`` wrapper or not."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get(name) is not None:
            return inner[name]
        if name == "message" and isinstance(inner, str):
            return inner
    return getattr(exc, name, None)


def _status_detail(exc: openai.APIStatusError) -> str:
    return str(_error_field(exc, "message") or exc.message)


# ------------------------------------------------------------------------------------- small

def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _with_id(item_id: str, exc: BaseException) -> str:
    text = str(exc)
    return text if text.startswith(item_id) else f"{item_id}: {text}"


def _split_urls(values: Sequence[str] | None) -> tuple[str, ...]:
    """Base URLs from flags or the environment; commas also separate, for ``OPENAI_BASE_URL``."""
    out: list[str] = []
    for value in values or ():
        out.extend(u.strip() for u in value.split(",") if u.strip())
    return tuple(out)


def _normalise_url(url: str) -> str:
    """``http://host:8000`` -> ``http://host:8000/v1``: a bare server address means its /v1 API."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--base-url {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    if parts.path in ("", "/"):
        url = url + "/v1"
    return url


def _is_loopback(url: str) -> bool:
    host = urlsplit(url if "//" in url else f"http://{url}").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


def _given(value: Any, default: Any) -> Any:
    """The configured value, or the default only when none was given (0 is not "not given")."""
    return default if value is None else value
