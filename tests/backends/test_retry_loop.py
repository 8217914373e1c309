"""The one retry loop: what it retries, how long it waits, when it gives up."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

from mmmu_eval.backends.retry import Failure, RetryPolicy, call_with_retries


class Script:
    """A call that raises the scripted failures in order, then returns ``value``."""

    def __init__(self, failures: list[Failure], value: str = "answer") -> None:
        self.failures = list(failures)
        self.value = value
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise Scripted(self.failures.pop(0))
        return self.value


class Scripted(Exception):
    def __init__(self, failure: Failure) -> None:
        self.failure = failure


def classify(exc: BaseException) -> Failure:
    if isinstance(exc, Scripted):
        return exc.failure
    return Failure("final", f"unknown: {exc}")


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


RATE = Failure("rate_limit", "HTTP 429: slow down", retry_after=7.0)
TEMP = Failure("temporary", "HTTP 503: overloaded")
BAD = Failure("malformed", "malformed answer: no choices")
FINAL = Failure("final", "HTTP 400: too many images")


async def run(script: Script, policy: RetryPolicy = RetryPolicy(), sleeps: Sleeps | None = None):
    return await call_with_retries(
        script, classify, policy=policy, item_id="validation_Art_1",
        sleep=sleeps or Sleeps(), rng=random.Random(0),
    )


@pytest.mark.parametrize(
    "failures, attempts, succeeded, reason",
    [
        ([], 1, True, "no failure: one attempt"),
        ([TEMP, TEMP], 3, True, "temporary faults are retried"),
        ([RATE, TEMP, BAD], 4, True, "mixed retryable faults are retried"),
        ([FINAL], 1, False, "a final failure stops at once"),
        ([TEMP, FINAL], 2, False, "a final failure after a temporary one stops"),
        ([TEMP] * 6, 6, False, "max_attempts (6) in all"),
        ([BAD, BAD, BAD], 3, False, "malformed answers are capped at max_malformed (3)"),
        ([BAD, TEMP, BAD, TEMP], 5, True, "two malformed answers stay under the cap"),
    ],
)
async def test_retry_table(failures, attempts, succeeded, reason):
    outcome = await run(Script(failures))
    assert outcome.attempts == attempts, reason
    assert (outcome.value == "answer") is succeeded, reason
    if failures:
        expected_last = failures[-1] if succeeded else failures[attempts - 1]
        assert outcome.failure == expected_last, "the last failure is reported"
    else:
        assert outcome.failure is None


async def test_retry_after_replaces_backoff_and_is_capped():
    sleeps = Sleeps()
    late = Failure("rate_limit", "HTTP 429", retry_after=500.0)
    await run(Script([RATE, late]), RetryPolicy(max_delay=60.0), sleeps)
    assert sleeps.waits == [7.0, 60.0]


async def test_backoff_doubles_with_jitter_and_cap():
    sleeps = Sleeps()
    await run(Script([TEMP] * 5), RetryPolicy(base_delay=1.0, max_delay=5.0, max_attempts=6), sleeps)
    # Attempt n waits min(5, 2**(n-1)) times a factor in [0.5, 1).
    for n, wait in enumerate(sleeps.waits, start=1):
        bound = min(5.0, 2.0 ** (n - 1))
        assert bound * 0.5 <= wait < bound, (n, wait)
    assert len(set(sleeps.waits)) == len(sleeps.waits), "jitter makes waits differ"


async def test_the_jitter_comes_from_the_generator_given():
    """Same seed, same waits; another seed, other waits (so the loop reads no global random state)."""
    waits = []
    for n, seed in enumerate((0, 0, 1)):
        sleeps = Sleeps()
        random.seed(n)  # a different global state each time: it must not matter
        await call_with_retries(Script([TEMP] * 3), classify, policy=RetryPolicy(), item_id="x",
                                sleep=sleeps, rng=random.Random(seed))
        waits.append(sleeps.waits)
    assert waits[0] == waits[1] and waits[0] != waits[2]


async def test_attempt_timeout_is_temporary():
    calls = 0

    async def stall() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(10)
        return "late answer"

    outcome = await call_with_retries(
        stall, classify, policy=RetryPolicy(timeout=0.05), item_id="x", sleep=Sleeps(),
    )
    assert outcome.value == "late answer" and outcome.attempts == 2
    assert "0.05 s" in outcome.failure.message


async def test_unknown_exception_is_final_not_retried():
    async def bug() -> str:
        raise KeyError("oops")

    outcome = await call_with_retries(bug, classify, policy=RetryPolicy(), item_id="x", sleep=Sleeps())
    assert outcome.attempts == 1 and outcome.value is None
    assert outcome.failure.kind == "final"


async def test_cancellation_is_not_swallowed():
    async def forever() -> str:
        await asyncio.sleep(10)
        return "never"

    task = asyncio.ensure_future(
        call_with_retries(forever, classify, policy=RetryPolicy(), item_id="x", sleep=Sleeps())
    )
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_each_retry_is_logged_with_item_attempt_and_wait_under_verbose(caplog):
    """At INFO (``-v``): by default the progress line counts retries rather than a WARNING a retry
    breaking the bar (issue 28)."""
    caplog.set_level(logging.INFO, logger="mmmu_eval.backends.retry")
    await run(Script([RATE]))
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        "validation_Art_1: attempt 1 of 6 failed (HTTP 429: slow down); retrying in 7.0 s"
    )


def test_policy_rejects_zero_attempts():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)


async def test_a_classifier_that_fails_costs_the_item_not_the_run():
    """A bug in reading a failure (issue 17: a half-imported module) ends that item's attempts
    with a final failure naming both errors; nothing is raised out of the loop."""
    def broken(exc: BaseException) -> Failure:
        raise AttributeError("partially initialized module 'openai' has no attribute 'APIStatusError'")

    async def fails() -> str:
        raise ValueError("not JSON")

    outcome = await call_with_retries(fails, broken, policy=RetryPolicy(), item_id="x", sleep=Sleeps())
    assert (outcome.value, outcome.attempts, outcome.failure.kind) == (None, 1, "final")
    assert "ValueError: not JSON" in outcome.failure.message and "APIStatusError" in outcome.failure.message
