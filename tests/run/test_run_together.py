"""``runner.run_together``: a suite's runs and harden's models run side by side, and the first
failure stops the others before it is raised (they must not go on writing into their run
directories after the call has returned). The suite and harden each had a copy of this."""

from __future__ import annotations

import asyncio

import pytest

from mmmu_eval.run.runner import run_together


async def _waits_forever(name: str, stopped: list[str], started: list[str] | None = None) -> None:
    if started is not None:
        started.append(name)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        stopped.append(name)
        raise


async def _fails(message: str) -> None:
    await asyncio.sleep(0)  # one turn of the loop: the others have started
    raise ValueError(message)


def test_the_first_failure_stops_the_other_jobs_before_it_is_raised():
    stopped: list[str] = []

    async def scenario() -> None:
        with pytest.raises(ValueError, match="model 2 failed"):
            await run_together([_waits_forever("m1", stopped), _fails("model 2 failed"), _waits_forever("m3", stopped)])
        assert sorted(stopped) == ["m1", "m3"], "every other job was cancelled and has finished"

    asyncio.run(scenario())


def test_a_cancelled_caller_cancels_every_job():
    stopped: list[str] = []
    started: list[str] = []

    async def scenario() -> None:
        jobs = [_waits_forever("a", stopped, started), _waits_forever("b", stopped, started)]
        together = asyncio.ensure_future(run_together(jobs))
        while len(started) < 2:
            await asyncio.sleep(0)  # until both jobs are waiting
        together.cancel()  # what Ctrl-C does to the suite's and harden's main task
        with pytest.raises(asyncio.CancelledError):
            await together
        assert sorted(stopped) == ["a", "b"]

    asyncio.run(scenario())


def test_jobs_that_all_finish_return_normally():
    done: list[int] = []

    async def job(n: int) -> None:
        await asyncio.sleep(0)
        done.append(n)

    asyncio.run(run_together([job(1), job(2)]))
    assert sorted(done) == [1, 2]
