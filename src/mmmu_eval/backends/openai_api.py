"""OpenAI-compatible chat backend: OpenAI, vLLM, SGLang, TGI, Ollama, llama.cpp, ``transformers serve``.

What it does, and why:

- **Lossless images, in prompt order.** Each image part becomes an ``image_url`` data URL of the
  dataset's stored bytes, untouched (see ``prompt/images.py``); text parts stay text. The
  messages are the request's chat form (``prompt/messages.py``), serialised to the wire bytes by
  ``backends/openai_body.py``.
- **Saturates the server, keeps memory flat.** Each endpoint allows ``concurrency`` requests in
  flight (one limit per endpoint, shared by every ``generate`` call on this backend); workers
  pull the next request from one queue, so several ``--base-url`` spread the load and a fast
  server takes more. Request bodies (image bytes -> base64 -> JSON) are built by a small thread
  pool just ahead of need, into a short bounded queue, so the event loop only moves bytes and a
  worker sends its next request the moment an answer arrives; only requests in flight or about
  to be sent hold encoded images.
- **Little CPU per request, quick start.** Requests go out through ``aiohttp``, and the ``openai``
  SDK is never imported, not even when something fails: failures are read from the HTTP answer
  with the SDK's messages (see ``backends/openai_http.py``): about 0.25 ms of CPU per request
  instead of 1.5 to 3 ms, and about a second less before the first request.
- **Survives faults.** Failures are classified (``backends/openai_errors.py``) and retried by the
  one loop in ``backends/retry.py``; every bad answer (an HTTP error, a 200 that is not a
  completion, no answer) is a failed attempt of its item, never an exception out of the run. An item that never gets an answer becomes a Response with
  status ``error`` and the last error message; an error is never turned into answer text.
  An answer no request can pass stops the run: nothing new is sent, and the requests in flight
  finish their attempt first (``openai_inflight.py``).
- **Preflight.** Before the run, one probe per endpoint checks the server answers, lists the
  model, and accepts as many images in one request as the run needs (``openai_preflight.py``).
  Which servers, shown how, with whose key: ``openai_servers.py``.
- **Reasoning models.** ``<think>...</think>`` is removed from the parsed text and kept in
  ``Response.reasoning``, with ``reasoning_content`` / ``reasoning`` fields servers return;
  an answer cut by the token limit is ``truncated``.

The API key comes from ``OPENAI_API_KEY`` (or ``--api-key-env NAME``) and is never written
anywhere. A server on loopback (127.0.0.1, localhost, ::1) needs no key: local vLLM and
``transformers serve`` ignore it, so a placeholder is sent when none is set.

    backend = OpenAIBackend.from_settings("gpt-4o", OpenAISettings(concurrency=16))
    await backend.preflight(requests)
    async for response in backend.generate(requests): ...
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence

from mmmu_eval.backends.base import RunCannotSucceed
from mmmu_eval.backends.openai_body import (
    answer_text,
    completion_from_text,
    encode_body,
    encode_body_parts,
    generation_params,
    parse_completion,
    preflight_probe,
)
from mmmu_eval.backends.openai_errors import (
    MalformedAnswer,
    classify_error,
    redacting,
    retry_after_seconds,
)
from mmmu_eval.backends.openai_http import Body, Endpoint
from mmmu_eval.backends.openai_inflight import Halt, Halted, Job
from mmmu_eval.backends.openai_wire import DEFAULT_MAX_RESPONSE_BYTES
from mmmu_eval.backends.openai_preflight import DEFAULT_PROBE_TIMEOUT, check_listing, probe
from mmmu_eval.backends.openai_servers import (
    DEFAULT_BASE_URL,
    api_key,
    endpoint_urls,
    normalise_url,
    without_credentials,
)
from mmmu_eval.backends.retry import RetryPolicy, call_with_retries
from mmmu_eval.backends.settings import OpenAISettings
from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.core.records import Request, Response

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_BASE_URL", "MalformedAnswer", "OpenAIBackend", "classify_error", "endpoint_urls",
    "generation_params", "parse_completion", "retry_after_seconds",
]

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 64
DEFAULT_MAX_ATTEMPTS = 6
DEFAULT_REQUEST_TIMEOUT = 600.0
#: Threads that build request bodies ahead of need (reading images, base64). Base64 holds the GIL,
#: so more threads only contend with the event loop; two overlap reading with encoding.
BODY_THREADS = 2
#: Seconds the requests in flight may take to finish their attempt when the run stops at an
#: answer no request can pass (at most the request timeout).
STOP_GRACE = 30.0


class OpenAIBackend:
    """Chat completions against one or more OpenAI-compatible endpoints. See the module doc.

    One backend may serve several runs at once (``generate`` called concurrently): they share
    each endpoint's connections and its ``concurrency`` limit.
    """

    def __init__(
        self,
        model: str,
        *,
        base_urls: Sequence[str] = (DEFAULT_BASE_URL,),
        api_key: str,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: RetryPolicy = RetryPolicy(),
        max_image_pixels: int | None = None,
        probe_timeout: float | None = None,
        max_response_bytes: int | None = None,
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
            probe_timeout: seconds each start-up request may take (None: the preflight's default).
            max_response_bytes: most bytes of one answer, decoded (None: ``DEFAULT_MAX_RESPONSE_BYTES``).
            transport: an httpx transport to send through instead of the network (tests pass
                ``httpx.MockTransport``).
            clock, sleep, rng: time and jitter, as parameters so tests control them.
        """
        if concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        if not base_urls:
            raise ConfigError("openai: no base URL given")
        self.model = model
        self.spec = f"openai:{model}"
        self.base_urls = tuple(normalise_url(u) for u in base_urls)
        self.concurrency = concurrency
        self.policy = policy
        self.max_image_pixels = max_image_pixels
        self.probe_timeout = DEFAULT_PROBE_TIMEOUT if probe_timeout is None else probe_timeout
        self.max_response_bytes = _given(max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES)
        self.api_key_env: str | None = None
        """The variable the key came from (for the manifest); None when given directly or not needed."""
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._pool: ThreadPoolExecutor | None = None
        self._listing: asyncio.Future[Any] | None = None
        self._endpoints = [
            Endpoint(url, api_key, concurrency=concurrency, timeout=policy.timeout,
                     max_response_bytes=self.max_response_bytes, transport=transport)
            for url in self.base_urls
        ]

    @classmethod
    def from_settings(cls, name: str, settings: OpenAISettings) -> "OpenAIBackend":
        """The backend for ``--model openai:NAME``, with the key taken from the environment.

        Raises:
            ConfigError: no model name, or no key for a server that is not on loopback.
        """
        if not name:
            raise ConfigError("--model openai: needs a model name, e.g. openai:gpt-4o")
        urls = endpoint_urls(settings)
        key, key_env = api_key(name, settings, urls)
        policy = RetryPolicy(
            max_attempts=_given(settings.max_attempts, DEFAULT_MAX_ATTEMPTS),
            timeout=_given(settings.request_timeout, DEFAULT_REQUEST_TIMEOUT),
        )
        backend = cls(
            name,
            base_urls=urls,
            api_key=key,
            concurrency=_given(settings.concurrency, DEFAULT_CONCURRENCY),
            policy=policy,
            max_image_pixels=settings.max_image_pixels,
            probe_timeout=settings.probe_timeout,
            max_response_bytes=settings.max_response_bytes,
        )
        backend.api_key_env = key_env
        return backend

    def describe(self) -> dict[str, object]:
        """For the manifest: where and how requests went. Never the key."""
        return {
            "backend": "openai",
            "model": self.model,
            "base_urls": [without_credentials(u) for u in self.base_urls],
            "concurrency_per_endpoint": self.concurrency,
            "max_attempts": self.policy.max_attempts,
            "request_timeout_s": self.policy.timeout,
            "probe_timeout_s": self.probe_timeout,
            "max_response_bytes": self.max_response_bytes,
            "max_image_pixels": self.max_image_pixels,
            "api_key_env": self.api_key_env,
        }

    # ----------------------------------------------------------------------------- preflight

    def contact(self) -> None:
        """Start asking every endpoint for its model list, to be checked by ``preflight``.

        ``evaluate`` calls this before it reads the dataset (for a new run, where nothing can be
        refused), so the first request goes out at once and its answer arrives while the data
        loads. Calling it again while the answers are awaited does nothing.
        """
        if self._listing is None:
            for endpoint in self._endpoints:
                endpoint.open()
            self._listing = asyncio.gather(*(check_listing(e, self.model, self.policy, sleep=self._sleep, rng=self._rng,
                                                          probe_timeout=self.probe_timeout)
                                            for e in self._endpoints))
            # Preflight raises the outcome; when the run stops before it (bad data, Ctrl-C), the
            # outcome is nobody's business and must not be logged as never retrieved.
            self._listing.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Check every endpoint: reachable, serves the model, takes the run's most images.

        Raises:
            ConfigError: naming the endpoint and the fix.
        """
        body, widest = preflight_probe(self.model, requests)
        self.contact()
        listing, self._listing = self._listing, None  # the next run's preflight asks again
        assert listing is not None
        await listing
        await asyncio.gather(*(probe(e, self.model, body, widest, self.policy, sleep=self._sleep, rng=self._rng,
                                     probe_timeout=self.probe_timeout)
                               for e in self._endpoints))

    # ----------------------------------------------------------------------------- generate

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield one Response per request as each finishes (any order); see the module doc.

        Bodies are built ahead by ``BODY_THREADS`` preparers into a small bounded queue, so a
        worker whose answer arrives sends its next request at once: building a body (reading
        and base64-encoding the images) never sits between one answer and the next request.
        Memory stays flat: bodies exist only in flight, in the queue, or in a preparer's hands.
        A worker takes an endpoint slot before it takes a body, so concurrent calls share each
        endpoint's limit and hold no more bodies than it allows.
        """
        if not requests:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(BODY_THREADS, thread_name_prefix="mmmu-eval-body")
        pending = iter(requests)  # shared by the preparers: each request is taken exactly once
        per_endpoint = min(self.concurrency, len(requests))
        total_workers = per_endpoint * len(self._endpoints)
        ready: asyncio.Queue[Job | None] = asyncio.Queue(
            maxsize=max(BODY_THREADS, total_workers // 8)
        )
        done: asyncio.Queue[Response | BaseException] = asyncio.Queue()
        halt = Halt()
        # Workers are started endpoint by endpoint in turn, so a small run spreads too.
        workers = [
            asyncio.ensure_future(self._worker(endpoint, ready, done, halt))
            for _ in range(per_endpoint)
            for endpoint in self._endpoints
        ]
        feeder = asyncio.ensure_future(self._feed(pending, ready, done, len(workers)))
        try:
            for _ in range(len(requests)):
                got = await done.get()
                if isinstance(got, RunCannotSucceed):
                    # No new request goes out; the answers of those in flight are still theirs.
                    for late in await halt.wind_down(feeder, workers, done, grace=min(STOP_GRACE, self.policy.timeout or STOP_GRACE)):
                        yield late
                    raise got
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
                parts, notes = await loop.run_in_executor(self._pool, self._encode_parts, request)
            except (MmmuEvalError, ValueError, OSError) as exc:
                # No log line here: the runner logs each stored error once, with its id.
                # Preparing it was the one attempt: never sent, and resume retries it.
                done.put_nowait(Response(request.item_id, "error", attempts=1, error=_with_id(request.item_id, exc)))
                continue
            await ready.put(Job(request, Body(parts), notes))  # waits while the queue is full

    async def _worker(self, endpoint: Endpoint, ready: asyncio.Queue, done: asyncio.Queue, halt: Halt) -> None:
        me = asyncio.current_task()
        try:
            while True:
                async with endpoint.slots:
                    job = await ready.get()
                    if job is None or halt.is_set():  # a job taken after the halt stays unasked
                        return
                    halt.busy.add(me)
                    try:
                        response, stops_run = await self._answer(endpoint, job, halt)
                    finally:
                        halt.busy.discard(me)
                    done.put_nowait(response)
                    if stops_run is not None:  # stored first, then the run stops (RunCannotSucceed)
                        done.put_nowait(RunCannotSucceed(stops_run))
                        return
        except (asyncio.CancelledError, Halted):
            return
        except BaseException as exc:  # a bug: surface it through generate(), do not hang
            done.put_nowait(exc)

    async def _answer(self, endpoint: Endpoint, job: Job, halt: Halt | None = None) -> tuple[Response, str | None]:
        """The item's response, and the real cause when no later request can pass either.

        Once ``halt`` is set no retry goes out: ``Halted`` leaves the item unanswered (unasked
        in the store, so asked again when the run is continued)."""
        request, notes = job.request, job.notes
        start = self._clock()

        async def sleep(delay: float) -> None:
            if halt is not None and halt.is_set():
                raise Halted
            await self._sleep(delay)
            if halt is not None and halt.is_set():
                raise Halted

        async def attempt() -> Response:
            if job.body is None:  # a retry: the first body was forgotten once it was sent
                loop = asyncio.get_running_loop()
                job.body = Body((await loop.run_in_executor(self._pool, self._encode_parts, request))[0])
            body, job.body = job.body, None
            text = answer_text(await endpoint.post_chat(body))  # the answer's bytes go once they are text
            return completion_from_text(request.item_id, text, notes=notes)

        outcome = await call_with_retries(
            attempt,
            redacting(classify_error, endpoint.redact), policy=self.policy, item_id=request.item_id, sleep=sleep, rng=self._rng,
        )
        latency = self._clock() - start
        last_error = outcome.failure.message if outcome.failure else None
        if outcome.value is None:
            # DEBUG: the runner logs each item that ends in an error once, as a WARNING.
            log.debug("%s: gave up after %d attempt(s): %s", request.item_id, outcome.attempts, last_error)
            stops_run = outcome.failure.stops_run if outcome.failure else None
            return Response(request.item_id, "error", latency_s=latency, attempts=outcome.attempts,
                            error=last_error, notes=notes), stops_run
        return dataclasses.replace(outcome.value, latency_s=latency, attempts=outcome.attempts, error=last_error), None

    def encode_body(self, request: Request) -> tuple[bytes, tuple[str, ...]]:
        """The request's JSON body, ready to send, and the image notes."""
        return encode_body(request, self.model, self.max_image_pixels)

    def _encode_parts(self, request: Request) -> tuple[tuple[bytes, ...], tuple[str, ...]]:
        """The body as it is sent (in pieces) and the image notes. Runs in a body thread."""
        return encode_body_parts(request, self.model, self.max_image_pixels)

    async def aclose(self) -> None:
        """Close the connections and the body threads. Safe to call again; a later call reopens them."""
        listing, self._listing = self._listing, None
        if listing is not None:  # contacted, never preflighted: the run stopped before
            listing.cancel()
        for endpoint in self._endpoints:
            await endpoint.aclose()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


# ------------------------------------------------------------------------------------- small

def _with_id(item_id: str, exc: BaseException) -> str:
    text = str(exc)
    return text if text.startswith(item_id) else f"{item_id}: {text}"


def _given(value: Any, default: Any) -> Any:
    """The configured value, or the default only when none was given (0 is not "not given")."""
    return default if value is None else value
