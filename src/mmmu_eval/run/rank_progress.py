"""Whether a rank's work advances: what its beat says (``run/distributed.py``), not just that the process runs.

A rank beats from a side thread, which runs as long as the process does. That proves little: a
main thread stuck in a C call, or in ``time.sleep`` inside a model, leaves the side thread beating
while the rank never finishes, and the others would wait for it forever. So the side thread beats
for progress only when it sees the main thread (the one the rank's work runs on) advance since
its last look; any of these counts:

- it used CPU time (``time.pthread_getcpuclockid``: a thread computing, even inside one long C
  call, is working; one blocked in ``sleep``, a lock or a read uses none);
- it stands somewhere else in the code (its stack of frames and instructions changed);
- it waits in the event loop's ``select``: idle while worker threads compute (a local model's
  batch, a model load) or requests are on the wire, with nothing of its own to do;
- it called ``tick`` (the rank's own waits for the others do, each time they look).

What stays unseen: a main thread spinning in a C loop forever (it burns CPU), and a worker thread
stuck while the main thread idles in the loop. ``where`` says where the main thread stands, for
the others' message when it has not advanced for ``--rank-timeout`` seconds.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import FrameType
from typing import Callable

__all__ = ["MainProgress", "process_runs"]

#: CPU seconds of the main thread between two looks that count as work (a thread woken to handle a
#: signal, then asleep again, uses microseconds).
_WORK_CPU_S = 0.002
_DEPTH = 64  # frames compared: enough to tell one call from another, cheap to take every few seconds


class MainProgress:
    """Looks at one thread (default: the one that makes it) from another, each ``advanced`` call."""

    def __init__(self, thread_id: int | None = None, *, cpu_clock: Callable[[], float] | None = None) -> None:
        self.thread_id = threading.get_ident() if thread_id is None else thread_id
        self._cpu = cpu_clock if cpu_clock is not None else _thread_cpu_clock(self.thread_id)
        self._ticks = 0
        self._seen_ticks = 0
        self._seen_stack: tuple[tuple[int, int], ...] | None = None
        self._seen_cpu = self._cpu() if self._cpu is not None else None

    def tick(self) -> None:
        """Say, from the watched thread, that it advances (a wait that polls the others)."""
        self._ticks += 1

    def advanced(self) -> bool:
        """Whether the thread advanced since the last call (see the module doc)."""
        ticks, frame = self._ticks, sys._current_frames().get(self.thread_id)
        stack = _stack(frame)
        cpu = self._cpu() if self._cpu is not None else None
        moved = (ticks != self._seen_ticks or stack != self._seen_stack or _idle_in_loop(frame)
                 or (cpu is not None and self._seen_cpu is not None and cpu - self._seen_cpu >= _WORK_CPU_S))
        self._seen_ticks, self._seen_stack, self._seen_cpu = ticks, stack, cpu
        return moved

    def where(self) -> str:
        """Where the thread stands: its innermost frames of our package and the innermost one."""
        frame = sys._current_frames().get(self.thread_id)
        if frame is None:
            return "its main thread has ended"
        places = [_place(frame)]
        outer = frame.f_back
        while outer is not None and len(places) < 3:
            if "mmmu_eval" in outer.f_code.co_filename:
                places.append(_place(outer))
            outer = outer.f_back
        return " < ".join(places)


def _thread_cpu_clock(thread_id: int) -> Callable[[], float] | None:
    try:
        clock = time.pthread_getcpuclockid(thread_id)
        time.clock_gettime(clock)
    except (AttributeError, OSError):  # no per-thread CPU clock here (macOS, Windows): the stack alone
        return None
    return lambda: time.clock_gettime(clock)


def _stack(frame: FrameType | None) -> tuple[tuple[int, int], ...]:
    out = []
    while frame is not None and len(out) < _DEPTH:
        out.append((id(frame.f_code), frame.f_lasti))
        frame = frame.f_back
    return tuple(out)


def _idle_in_loop(frame: FrameType | None) -> bool:
    """Whether the thread waits in an event loop's ``select`` for the next event."""
    return (frame is not None and frame.f_code.co_name == "select"
            and os.path.basename(frame.f_code.co_filename) == "selectors.py"
            and frame.f_back is not None and frame.f_back.f_code.co_name == "_run_once")


def _place(frame: FrameType) -> str:
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} in {frame.f_code.co_name}"


def process_runs(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie, dead and not yet reaped, does not):
    how a rank stopped by the launcher names the one whose process is gone."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True
