"""Your own model, in-process: a plain function or a small object made into a Backend.

lmms-eval and VLMEvalKit users add a model class; Inspect users register a provider. Here the
least a model needs to be is a function from OpenAI chat messages to the answer text::

    def my_model(messages: list[dict]) -> str:      # images arrive as data URLs, in token order
        return "The answer is (A)."

    mmmu_eval.evaluate(model=my_model, benchmark="mmmu", data="sample")

It is run in a pool of ``concurrency`` threads (an ``async def`` is awaited instead, at most
``concurrency`` at a time), each answer stored as it finishes, an exception stored as that
item's error (asked again on resume), never the end of the run. The messages are byte for byte
what ``openai:`` sends (``prompt/messages.build_messages``), so the same function can front a
local engine or a remote API.

An object with its own ``generate(requests)`` (an async iterator of ``Response``, the Backend's
method) is the next step up, for a model that batches; ``preflight``, ``aclose``, ``describe``
and ``spec`` are optional there and filled in here. A full ``Backend`` passes unchanged.

Third-party packages register backends under the entry-point group ``mmmu_eval.backends``
(``registry.py`` finds them), so ``--model NAME:ARG`` works from the shell too. What such a
backend is told about the run is a ``CustomSettings`` (``backends/settings.py``), the same record
a function model's pool is sized from here.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

from mmmu_eval.backends.base import Backend
from mmmu_eval.backends.settings import CustomSettings
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.prompt.messages import build_messages
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.core.records import Request, Response

__all__ = ["ChatFunction", "Generates", "as_backend", "model_spec"]

#: Threads (or awaits) in flight for a function model when the run sets no ``concurrency``.
DEFAULT_CONCURRENCY = 8


class _Carried(Exception):
    """A ``SystemExit`` or ``KeyboardInterrupt`` from the model function, carried out of its
    answer's task: raised in a task as it is, it would stop the event loop at once, and the run
    would only see itself cancelled, never what ended it (``store/run_stop.py``)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.exc = exc


@runtime_checkable
class ChatFunction(Protocol):
    """The smallest model: OpenAI chat messages in, the answer text out (sync or ``async def``)."""

    def __call__(self, messages: list[dict[str, Any]]) -> str: ...


@runtime_checkable
class Generates(Protocol):
    """A model that answers batches itself: the Backend's ``generate`` alone."""

    def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]: ...


def model_spec(model: object) -> str:
    """The spec a model object is recorded and resumed under: its ``spec``, else ``python:MODULE.NAME``.

    Stable across sessions (never an object id), so the same function resumes its own run.

    >>> def my_model(messages): return "A"
    >>> model_spec(my_model)
    'python:mmmu_eval.backends.custom.my_model'
    """
    spec = getattr(model, "spec", None)
    if isinstance(spec, str) and spec:
        return spec
    named = model if inspect.isfunction(model) or inspect.ismethod(model) else type(model)
    qualname = getattr(named, "__qualname__", type(model).__name__).replace(".<locals>.", ".")
    module = getattr(named, "__module__", None)
    return f"python:{qualname}" if module in (None, "__main__") else f"python:{module}.{qualname}"


def as_backend(model: object, settings: CustomSettings | None = None) -> Backend:
    """``model`` as a Backend: a Backend as it is, a ``generate`` object or a function wrapped.

    ``settings``: a function model's pool size (``concurrency``) and image down-scaling
    (``max_image_pixels``); None: the defaults.

    Raises:
        ConfigError: ``model`` is none of those (the message says what is accepted).
    """
    settings = settings or CustomSettings()
    if isinstance(model, Backend):
        return model
    if isinstance(model, Generates) and not inspect.isclass(model):
        return GeneratingModel(model)
    if callable(model) and not inspect.isclass(model):
        return FunctionModel(model, concurrency=settings.concurrency or DEFAULT_CONCURRENCY,
                             max_image_pixels=settings.max_image_pixels)
    raise ConfigError(
        f"model={model!r} is not a model: give a spec string (openai:NAME, hf:PATH, random ...), a function "
        "messages -> str (sync or async), an object with an async generate(requests), or a Backend "
        "(see the custom model guide)"
    )


class GeneratingModel:
    """An object with ``generate``, completed into a Backend (its own methods win where it has them)."""

    def __init__(self, model: Generates) -> None:
        self.model = model
        self.spec = model_spec(model)

    async def preflight(self, requests: Sequence[Request]) -> None:
        check = getattr(self.model, "preflight", None)
        if check is not None:
            await check(requests)

    def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        return self.model.generate(requests)

    async def aclose(self) -> None:
        await _close(self.model)

    def describe(self) -> dict[str, object]:
        own = getattr(self.model, "describe", None)
        return dict(own()) if own is not None else {"backend": "python", "model": self.spec}


class FunctionModel:
    """A chat function as a Backend: each request's messages in, its answer stored as it finishes."""

    def __init__(self, function: Callable[[list[dict[str, Any]]], Any], *, concurrency: int,
                 max_image_pixels: int | None = None) -> None:
        self.function = function
        self.spec = model_spec(function)
        self.concurrency = concurrency
        self.max_image_pixels = max_image_pixels
        self.is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            getattr(function, "__call__", None))
        self._pool: ThreadPoolExecutor | None = None

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="mmmu-eval-model")
        gate = asyncio.Semaphore(self.concurrency)
        tasks = [asyncio.ensure_future(self._answer(request, gate)) for request in requests]
        try:
            for finished in asyncio.as_completed(tasks):
                try:
                    response = await finished
                except _Carried as carried:  # raised here, in the run's own task, as the function raised it
                    raise carried.exc from None
                yield response
        finally:
            for task in tasks:
                task.cancel()

    async def _answer(self, request: Request, gate: asyncio.Semaphore) -> Response:
        async with gate:
            started = time.monotonic()
            loop = asyncio.get_running_loop()
            try:  # the images are read here: off the event loop, as every backend does
                messages, notes = await loop.run_in_executor(self._pool, build_messages, request, self.max_image_pixels)
            except (ValueError, OSError) as exc:
                return Response(request.item_id, "error", error=f"the request cannot be built: {exc}")
            try:
                if self.is_async:
                    reply = await self.function(messages)
                else:
                    reply = await loop.run_in_executor(self._pool, self.function, messages)
            except Exception as exc:  # the item's error, stored and asked again on resume
                return Response(request.item_id, "error", latency_s=time.monotonic() - started,
                                error=f"the model function raised {type(exc).__name__}: {exc}")
            except (SystemExit, KeyboardInterrupt) as exc:  # not an item's error: the run's end
                raise _Carried(exc) from None
            if not isinstance(reply, str):
                return Response(request.item_id, "error", latency_s=time.monotonic() - started,
                                error=f"the model function returned {type(reply).__name__}, not the answer's text (str)")
            text, reasoning = split_reasoning(reply)
            return Response(request.item_id, "ok", text=text, reasoning=reasoning, finish_reason="stop",
                            latency_s=time.monotonic() - started, notes=notes)

    async def aclose(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        await _close(self.function)

    def describe(self) -> dict[str, object]:
        return {"backend": "python", "model": self.spec, "calls": "async" if self.is_async else "thread pool",
                "concurrency": self.concurrency}


async def _close(model: object) -> None:
    """The model's own ``aclose`` (awaited) or ``close``, where it has one."""
    closer = getattr(model, "aclose", None) or getattr(model, "close", None)
    if closer is None:
        return
    result = closer()
    if inspect.isawaitable(result):
        await result
