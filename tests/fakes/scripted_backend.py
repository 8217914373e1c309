"""A backend that serves a script: texts and errors, in order, one per request.

Each script entry answers the next request handed to ``generate``:

- a ``str``: an ``ok`` response with that text;
- a ``Response``: that record, with the request's item id put in;
- a ``BackendError`` (or any Exception) instance: an ``error`` response carrying its message,
  as a backend that gave up on the item would store it;
- ``Raise(exc)``: ``exc`` is raised out of ``generate`` (a DataError naming an item, a crash);
- ``Hang()``: waits forever, as a request stuck on a slow server (cancel the run to end it);
- ``Sigint()``: delivers a real SIGINT to the process, as Ctrl-C would.

The backend remembers every request it was handed (``asked``), so tests can check what the
runner sent, and refuses to run past the end of its script (a test bug, not a response).

    backend = ScriptedBackend(["A", BackendError("HTTP 500"), "B"])
"""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass, replace
from typing import AsyncIterator, Sequence

from mmmu_eval.core.records import Request, Response


@dataclass(frozen=True)
class Raise:
    """Raise ``exc`` from ``generate`` when this entry is reached."""

    exc: BaseException


@dataclass(frozen=True)
class Hang:
    """Wait forever when this entry is reached."""


@dataclass(frozen=True)
class Sigint:
    """Deliver a real SIGINT (Ctrl-C) to this process when this entry is reached."""


class ScriptedBackend:
    """Serves its script in order; see the module doc."""

    def __init__(self, script: Sequence[object], *, spec: str = "scripted") -> None:
        self.spec = spec
        self.script = list(script)
        self.position = 0
        self.asked: list[Request] = []
        self.preflighted: list[Request] | None = None
        self.closed = False

    async def preflight(self, requests: Sequence[Request]) -> None:
        self.preflighted = list(requests)

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            if self.position >= len(self.script):
                raise AssertionError(f"the script ran out at {request.item_id} (entry {self.position + 1})")
            entry = self.script[self.position]
            self.position += 1
            if isinstance(entry, Sigint):
                signal.raise_signal(signal.SIGINT)
                await asyncio.sleep(5)  # the loop's SIGINT handler cancels us here
                raise AssertionError("SIGINT did not interrupt the run")
            if isinstance(entry, Hang):
                await asyncio.Event().wait()
            if isinstance(entry, Raise):
                raise entry.exc
            self.asked.append(request)
            if isinstance(entry, str):
                yield Response(request.item_id, "ok", text=entry, finish_reason="stop")
            elif isinstance(entry, Response):
                yield replace(entry, item_id=request.item_id)
            elif isinstance(entry, BaseException):
                yield Response(request.item_id, "error", error=f"{request.item_id}: {entry}", attempts=3)
            else:
                raise AssertionError(f"unknown script entry {entry!r}")

    async def aclose(self) -> None:
        self.closed = True

    def describe(self) -> dict[str, object]:
        return {"backend": "scripted", "entries": len(self.script)}
