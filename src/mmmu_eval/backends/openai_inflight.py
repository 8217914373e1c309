"""What one ``OpenAIBackend.generate`` call has in flight, and how it stops.

``openai_api.py`` runs the flow (preparers build bodies into a queue, workers send them); this
module holds the two things that travel through it: ``Job``, a request on its way with its body
until it is sent, and ``Halt``, the stop after an answer no request can pass
(``RunCannotSucceed``). They live apart because the stop's rule (nothing new is sent, the
requests in flight finish their attempt up to a grace, the answers that came meanwhile are
kept) is a contract of its own, read and tested apart from how requests are sent.
"""

from __future__ import annotations

import asyncio
from typing import Any, Sequence

from mmmu_eval.backends.openai_http import Body
from mmmu_eval.core.records import Request, Response

__all__ = ["Halt", "Halted", "Job"]


class Halted(Exception):
    """The run is stopping (``Halt``): a request between attempts goes no further."""


class Halt:
    """One ``generate`` call's stop after an answer no request can pass (``RunCannotSucceed``):
    nothing new is sent, and the requests in flight may finish their attempt, up to a grace, so
    that an answer already on its way is stored rather than asked again."""

    def __init__(self) -> None:
        self._set = False
        self.busy: set[asyncio.Future[Any] | None] = set()
        """The workers inside an attempt now."""

    def is_set(self) -> bool:
        return self._set

    async def wind_down(self, feeder: asyncio.Future[Any], workers: Sequence[asyncio.Future[Any]],
                        done: asyncio.Queue, *, grace: float) -> list[Response]:
        """Stop sending, let the busy workers end their attempt (at most ``grace`` seconds),
        and return the answers that came meanwhile."""
        self._set = True
        feeder.cancel()
        for worker in workers:
            if worker not in self.busy:
                worker.cancel()
        in_flight = [w for w in workers if w in self.busy]
        if in_flight:
            await asyncio.wait(in_flight, timeout=grace)
        for worker in workers:
            worker.cancel()
        await asyncio.gather(feeder, *workers, return_exceptions=True)
        late: list[Response] = []
        while not done.empty():
            got = done.get_nowait()
            if isinstance(got, Response):
                late.append(got)
        return late


class Job:
    """A request on its way: its body until sent (``Body``), and the notes its images left."""

    __slots__ = ("request", "body", "notes")

    def __init__(self, request: Request, body: Body, notes: tuple[str, ...]) -> None:
        self.request, self.body, self.notes = request, body, notes
