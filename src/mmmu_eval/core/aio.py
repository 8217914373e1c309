"""The synchronous entry points' one way to run a coroutine, inside a running event loop too.

``asyncio.run`` refuses to start while a loop is running in the thread, which is always the case
in Jupyter (and IPython's autoawait, and any async web app calling us). There the coroutine runs
in a worker thread with a loop of its own, and the caller's thread waits for it: the same
result, the same exceptions, and Ctrl-C (a notebook's "interrupt the kernel") cancels the work,
which then stores what it finished exactly as a cancelled ``evaluate_async`` does, and the
caller sees KeyboardInterrupt as it would outside a notebook.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["loop_running", "run_coroutine"]

T = TypeVar("T")


def loop_running() -> bool:
    """True when this thread is running an event loop (a notebook cell, an async caller)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end and return its result, whether or not a loop is running here.

    Raises:
        whatever the coroutine raises; KeyboardInterrupt when the caller is interrupted while a
        worker thread runs it (the coroutine is cancelled first, and its cleanup awaited).
    """
    if not loop_running():
        return asyncio.run(coroutine)
    worker = _Worker(coroutine)
    try:
        worker.start()  # inside: Ctrl-C may land while start() returns, the coroutine already running
        worker.wait()
    except KeyboardInterrupt:
        if worker.ident is not None:  # it started: cancel it and wait for its cleanup
            worker.cancel()
            worker.wait()
        raise
    return worker.outcome()


class _Worker(threading.Thread):
    """A thread that runs one coroutine on a loop of its own and keeps its outcome."""

    def __init__(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        super().__init__(name="mmmu-eval-loop", daemon=True)
        self._coroutine = coroutine
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._started = threading.Event()
        self._done = threading.Event()  # not join(): a join cut short by Ctrl-C may not wait again
        self._result: Any = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._result = asyncio.run(self._main())
        except BaseException as exc:  # handed to the caller's thread, which raises it
            self._error = exc
        finally:
            self._started.set()
            self._done.set()

    def wait(self) -> None:
        """Until the coroutine has ended, in short waits so that a signal's handler runs at once."""
        while not self._done.wait(0.1):
            pass

    async def _main(self) -> Any:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        self._started.set()
        return await self._coroutine

    def cancel(self) -> None:
        """Cancel the coroutine from the caller's thread (it may still be starting)."""
        self._started.wait()
        if self._loop is not None and self._task is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._task.cancel)
            except RuntimeError:  # the loop closed in between: nothing left to cancel
                pass

    def outcome(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._result
