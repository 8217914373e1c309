"""What counts as a rank's progress (run/rank_progress.py): its main thread working, moving on, or
idle in the event loop while others work; not a thread blocked in a sleep or a stuck call."""

from __future__ import annotations

import asyncio
import threading
import time

from mmmu_eval.run.rank_progress import MainProgress


def _watch(target) -> tuple[MainProgress, threading.Event, threading.Thread]:
    """``target(stop)`` run in a thread, and a MainProgress looking at that thread."""
    stop, ready, box = threading.Event(), threading.Event(), {}

    def run() -> None:
        box["progress"] = MainProgress()
        ready.set()
        target(stop)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait()
    time.sleep(0.2)
    return box["progress"], stop, thread


def _looks(progress: MainProgress, n: int = 3, pause: float = 0.15) -> list[bool]:
    progress.advanced()  # the first look only sets where the thread stands
    out = []
    for _ in range(n):
        time.sleep(pause)
        out.append(progress.advanced())
    return out


def test_a_thread_blocked_in_a_sleep_makes_no_progress_and_says_where():
    def sleeper(stop: threading.Event) -> None:
        while not stop.is_set():
            time.sleep(30)  # one blocking call: what a stuck model does to the rank's main thread

    progress, stop, _ = _watch(sleeper)
    assert _looks(progress) == [False, False, False]
    assert "test_rank_progress.py:" in progress.where() and "in sleeper" in progress.where()
    progress.tick()  # the rank's own waits for the others say they advance
    assert progress.advanced() is True and progress.advanced() is False
    stop.set()


def test_a_thread_that_computes_makes_progress():
    def busy(stop: threading.Event) -> None:
        n = 0
        while not stop.is_set():
            n = (n * 31 + 7) % 1_000_003

    progress, stop, _ = _watch(busy)
    assert all(_looks(progress))
    stop.set()


def test_an_event_loop_waiting_for_a_worker_thread_or_a_timer_makes_progress():
    """A local model's batch runs in a worker thread, a server's answer comes over the wire: the
    loop's own thread idles in select meanwhile, which is the rank working, not stuck."""

    def loop(stop: threading.Event) -> None:
        async def main() -> None:
            timer = asyncio.ensure_future(asyncio.sleep(30))  # a timer pending beside the worker
            await asyncio.to_thread(stop.wait, 30)
            timer.cancel()

        asyncio.run(main())

    progress, stop, thread = _watch(loop)
    assert all(_looks(progress))
    stop.set()
    thread.join(10)
