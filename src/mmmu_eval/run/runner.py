"""Drive a backend over prepared requests and store every response the moment it arrives.

The runner does not know what kind of backend it drives (an API client fanning out, a local
engine batching, a baseline answering at once): it consumes ``backend.generate(requests)`` and
appends each response to the run store before asking for the next. Concurrency is the
backend's. What the runner adds:

- **Order.** Requests are handed over in the order given (the dataset's), so batching and
  seeded baselines are deterministic.
- **Nothing lost.** Each response is on disk (flushed) before the next is taken; Ctrl-C or a
  cancelled task stops the backend, and everything answered so far stays stored for
  ``--resume``.
- **One bad item does not stop the run.** A backend that raises a DataError naming one of the
  items (an image that cannot be read) gets that item stored as an ``error`` response and is
  started again on the items still pending. The log names the first few failed items and then
  counts the rest in one line (``failure_log.py``): every one is in responses.jsonl.
- **A dead endpoint does.** ``STOP_AFTER_FAILED_IN_A_ROW`` responses in a row that failed after
  retries (a server that went away mid-run) stop the session instead of spending every
  remaining item's retries on it; the items not yet answered are left unasked, so the same
  command (``--resume``) takes them up once the server is back. With ``--max-attempts 1`` there
  are no retries, so every sent request that failed counts.
- **So does an answer no request can pass.** A backend that meets one (an exhausted quota, a
  revoked key, a model the server does not have: ``backends.base.RunCannotSucceed``) stops the
  session after that first answer, which is stored; the rest stay unasked, and the log says the
  real cause.

As ``evaluate_async`` drives it (a sketch)::

    summary = await run_requests(backend, requests, store, display=ProgressDisplay())
    summary.ok, summary.errors
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Awaitable, Callable, Sequence

from mmmu_eval.backends.base import Backend, RunCannotSucceed
from mmmu_eval.core.errors import DataError
from mmmu_eval.run.failure_log import FailureLog
from mmmu_eval.run.progress import Display, NullDisplay
from mmmu_eval.core.records import NOT_SENT, Request, Response, is_count, is_seconds
from mmmu_eval.store.response_json import record_problem, response_to_json
from mmmu_eval.store.rundir import RESPONSES, RunStore

__all__ = ["AskedTally", "RunSummary", "asked_so_far", "counting_asked", "run_requests"]

log = logging.getLogger(__name__)

#: Consecutive ``error`` responses that each took more than one attempt before the session stops.
#: Errors on the first attempt (an unreadable image, a request the server rejects as malformed)
#: are item problems and never count, unless the backend makes one attempt only; any answered
#: item resets the count.
STOP_AFTER_FAILED_IN_A_ROW = 32


class _StopEarly(Exception):
    """Raised inside the drain loop when the endpoint looks dead; carries the reason."""


@dataclass(frozen=True)
class RunSummary:
    """What one session of the runner did."""

    asked: int
    """Requests handed to the runner."""
    ok: int
    truncated: int
    errors: int
    """Responses stored with status ``error`` in this session."""
    interrupted: bool
    """True when Ctrl-C or a cancellation stopped the session early."""
    elapsed_s: float
    """Seconds from the first request to the end of the session."""
    stopped_early: str | None = None
    """Why the session stopped with items unasked (a dead endpoint); None when it ran through."""

    @property
    def answered(self) -> int:
        return self.ok + self.truncated + self.errors


@dataclass
class AskedTally:
    """Answers the runner got back from backends inside a ``counting_asked`` block."""

    asked: int = 0


_TALLY: ContextVar[AskedTally | None] = ContextVar("mmmu_eval_asked_tally", default=None)


@contextmanager
def counting_asked() -> Iterator[AskedTally]:
    """Count what the runs inside the block asked: the requests that came back answered (ok,
    truncated or failed), never an answer found stored or inherited, nor an item that failed
    before it was sent. What `run` says it asked, one process or the sum over the ranks."""
    tally = AskedTally()
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        _TALLY.reset(token)


def asked_so_far() -> int:
    """What the innermost ``counting_asked`` block has counted so far (0 outside one)."""
    tally = _TALLY.get()
    return tally.asked if tally is not None else 0


async def run_requests(
    backend: Backend,
    requests: Sequence[Request],
    store: RunStore,
    *,
    display: Display | None = None,
    clock: Callable[[], float] = time.monotonic,
    already_done: int = 0,
    already_errors: int = 0,
    failures: FailureLog | None = None,
) -> RunSummary:
    """Ask ``backend`` every request and append each response to ``store`` as it finishes.

    Args:
        backend: any Backend (preflight is the caller's, before this).
        requests: the requests to run, in the order to hand them over.
        store: the run store; responses are appended, never rewritten.
        display: progress display (started and stopped here); None shows nothing.
        clock: seconds, monotonic (tests pass their own).
        already_done, already_errors: items of the same run answered in earlier sessions (or
            stored by the caller), so the display counts the whole run.
        failures: where failed items are logged; None: a log of this session's own, closed at
            its end (a caller that passes one, having logged its own failures there, closes it).

    Returns:
        The session's counts. When interrupted, the CancelledError or KeyboardInterrupt is
        re-raised after the store and display are settled.

    Raises:
        DataError: the backend raised one that names no pending item (not one item's problem).
        Whatever else the backend raises, after the responses before it were stored.
    """
    display = display or NullDisplay()
    own_log = failures is None
    failure_log = FailureLog(store.path / RESPONSES) if failures is None else failures
    started = clock()
    counts = {"ok": 0, "truncated": 0, "error": 0}
    pending: dict[str, Request] = {r.item_id: r for r in requests}
    if len(pending) != len(requests):
        raise ValueError("run_requests: two requests share an item id")
    display.start(already_done + len(requests), done=already_done, errors=already_errors)

    failed_in_a_row = 0
    # Without retries (--max-attempts 1) a dead endpoint's errors come on the first attempt too.
    single_attempt = getattr(getattr(backend, "policy", None), "max_attempts", None) == 1

    def record(response: Response) -> None:
        nonlocal failed_in_a_row
        response = storable(response)
        store.append(response)
        counts[response.status] += 1
        display.advance(response)
        if response.status != "error":
            failed_in_a_row = 0
            return
        error = response.error or "failed"
        failure_log.add(response.item_id, error)
        if response.attempts > 1 or (single_attempt and NOT_SENT not in response.notes):
            failed_in_a_row += 1
            if failed_in_a_row >= STOP_AFTER_FAILED_IN_A_ROW and pending:
                raise _StopEarly(
                    f"the last {failed_in_a_row} items all failed after retries (last: {error}); "
                    f"stopping with {len(pending)} items not asked. Fix the server or key, then run the "
                    "same command again (or add --resume): only failed and unasked items are asked"
                )

    interrupted = False
    stopped_early: str | None = None
    try:
        while pending:
            try:
                await _drain(backend, list(pending.values()), pending, record)
            except _StopEarly as stop:
                stopped_early = str(stop)
                log.error("%s", stopped_early)
                break
            except RunCannotSucceed as stop:
                stopped_early = (
                    f"{stop}. Stopped at the first such answer with {len(pending)} items not asked; once it is "
                    "fixed, run the same command again (or add --resume): only failed and unasked items are asked"
                )
                log.error("%s", stopped_early)
                break
            except DataError as exc:
                if exc.item_id not in pending:
                    raise
                # One item could not be prepared inside the backend: store it, go on with the rest.
                del pending[exc.item_id]
                record(Response(exc.item_id, "error", error=str(exc), attempts=1))
                continue
            if pending:
                # The backend ended without answering some requests: a backend bug, stored as
                # errors so the run says so and --resume asks them again.
                for item_id in list(pending):
                    del pending[item_id]
                    record(Response(item_id, "error", error=f"{item_id}: the backend {backend.spec} returned no answer"))
    except (asyncio.CancelledError, KeyboardInterrupt):
        interrupted = True
        log.info("interrupted: %d responses stored this session, %d requests not asked", sum(counts.values()), len(pending))
        raise
    finally:
        display.stop()
        store.close()
        if own_log:
            failure_log.close()
        tally = _TALLY.get()
        if tally is not None:
            tally.asked += sum(counts.values())
        summary = RunSummary(
            asked=len(requests),
            ok=counts["ok"],
            truncated=counts["truncated"],
            errors=counts["error"],
            interrupted=interrupted,
            elapsed_s=clock() - started,
            stopped_early=stopped_early,
        )
    return summary


def storable(response: Response) -> Response:
    """``response``, or, when the store would refuse it (a backend that let a negative token
    count through), an ``error`` record saying why: the item is asked again on resume, and the
    run neither stops nor writes a line it cannot read back."""
    problem = record_problem(response_to_json(response))
    if problem is None:
        return response
    attempts = response.attempts if is_count(response.attempts) and response.attempts >= 1 else 1
    latency = response.latency_s if is_seconds(response.latency_s) else 0.0
    return Response(response.item_id, "error", attempts=attempts, latency_s=latency,
                    error=f"{response.item_id}: the backend's answer could not be stored ({problem})")


async def _drain(
    backend: Backend,
    requests: list[Request],
    pending: dict[str, Request],
    record: Callable[[Response], None],
) -> None:
    """Consume one ``generate`` call, recording each response for a pending request."""
    stream = backend.generate(requests)
    try:
        async for response in stream:
            if response.item_id not in pending:
                log.warning("%s: the backend answered an item that was not pending; ignored", response.item_id)
                continue
            del pending[response.item_id]
            record(response)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()


async def run_together(jobs: Sequence[Awaitable[object]]) -> None:
    """Run the jobs side by side (a suite's runs, harden's models); the first to raise (an error,
    Ctrl-C's cancellation) cancels the rest, which are awaited before it is raised, so no job
    goes on writing into a run directory after the call has returned."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
