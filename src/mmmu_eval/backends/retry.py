"""The one retry loop: a backend says what kind of failure it saw, this loop decides what to do.

A backend classifies each exception into a ``Failure`` (a rate limit, a temporary fault, a
malformed answer, or a final refusal) and says when the server asked it to come back. The loop
then acts the same way for every backend:

- ``rate_limit`` and ``temporary``: wait and try again, up to ``max_attempts`` in all;
- ``malformed`` (a body that is not JSON, no choices): try again, but at most
  ``max_malformed`` times, because a server that keeps answering garbage will not stop;
- ``final`` (e.g. HTTP 400): stop at once.

Waits grow exponentially with jitter (``base_delay * 2**(n-1)``, times a random factor in
[0.5, 1)), never beyond ``max_delay``; a server's ``Retry-After`` replaces the computed wait
(also capped). Each retry is logged at WARNING with the item id, the attempt and the wait. When
the attempts run out the caller gets the last error back, never an answer: the backend stores
it as a response with status ``error``, which is never scored.

    policy = RetryPolicy(max_attempts=6)
    outcome = await call_with_retries(lambda: send(body), classify, policy=policy, item_id=i)
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from dataclasses import dataclass
from typing import Awaitable, Callable, Generic, Literal, TypeVar

log = logging.getLogger(__name__)

_HAS_TIMEOUT = sys.version_info >= (3, 11)

T = TypeVar("T")
FailureKind = Literal["rate_limit", "temporary", "malformed", "final"]


@dataclass(frozen=True, slots=True)
class Failure:
    """A backend's reading of one failed attempt."""

    kind: FailureKind
    """What happened: ``rate_limit``, ``temporary``, ``malformed`` or ``final``."""
    message: str
    """One line for the log and the stored response (``HTTP 503: overloaded``)."""
    retry_after: float | None = None
    """The server's requested wait in seconds (``Retry-After``); None when it gave none."""
    stops_run: str | None = None
    """Why no other request to this server can succeed either (an exhausted quota, a refused
    key, a model or path the server does not have), said as the real cause and its fix; None for
    a failure of this request only. Always ``final``: the run stops after it (``runner.py``)."""

    @property
    def retryable(self) -> bool:
        return self.kind != "final"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try. The defaults suit a shared API or a busy local server."""

    max_attempts: int = 6
    """Attempts in all, the first one included."""
    max_malformed: int = 3
    """Most attempts that may end in a malformed answer before the item is given up."""
    base_delay: float = 1.0
    """Seconds to wait after the first failure, before jitter."""
    max_delay: float = 60.0
    """Longest wait in seconds, for back-off and for ``Retry-After`` alike."""
    timeout: float | None = 600.0
    """Seconds one attempt may take, end to end; None waits for ever."""
    timeout_flag: str = "--request-timeout"
    """The flag that sets ``timeout``, named when an attempt runs out of it."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def wait(self, attempt: int, failure: Failure, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if failure.retry_after is not None:
            return min(max(failure.retry_after, 0.0), self.max_delay)
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return backoff * (0.5 + rng.random() / 2)


def _classified(classify: Callable[[BaseException], Failure], exc: Exception) -> Failure:
    """``classify(exc)``, or a final failure naming both errors when reading it fails.

    A classifier with a bug must cost one item, not a ten-hour run: the item is stored as an
    error that shows what went wrong, and the run goes on.
    """
    try:
        return classify(exc)
    except Exception as bug:
        log.error("could not read a failed attempt (%r): %r", exc, bug)
        return Failure("final", f"{type(exc).__name__}: {exc} (reading this error failed: {type(bug).__name__}: {bug})")


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """What the loop ended with: a value, or the failure that ended it."""

    value: T | None
    """The call's result; None when every attempt failed."""
    attempts: int
    """Attempts made, the last one included."""
    failure: Failure | None
    """The last failure: why it ended (no value), or the last retried error (value)."""


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    classify: Callable[[BaseException], Failure],
    *,
    policy: RetryPolicy,
    item_id: str,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> Outcome[T]:
    """Run ``call`` until it succeeds, fails finally, or runs out of attempts.

    Args:
        call: makes one attempt; a new awaitable each time it is called.
        classify: turns an exception raised by ``call`` into a Failure. Exceptions it does
            not recognise should come back as ``final``, so bugs are not retried forever.
        policy: attempts, waits and the per-attempt timeout.
        item_id: names the item in the log.
        sleep: waits between attempts (tests pass a recorder).
        rng: jitter source (tests pass a seeded one).

    Returns:
        An Outcome. Cancellation (Ctrl-C) is never swallowed.
    """
    rng = rng or random.Random()
    last: Failure | None = None
    malformed = 0
    attempt = 0
    while True:
        attempt += 1
        try:
            if policy.timeout is None:
                value = await call()
            elif _HAS_TIMEOUT:  # no extra task per attempt, unlike wait_for
                async with asyncio.timeout(policy.timeout):
                    value = await call()
            else:
                value = await asyncio.wait_for(call(), policy.timeout)
            return Outcome(value, attempt, last)
        except asyncio.CancelledError:
            raise
        except asyncio.TimeoutError:
            last = Failure("temporary", f"no answer within {policy.timeout:g} s ({policy.timeout_flag})")
        except Exception as exc:  # classify decides; anything it does not know is final
            last = _classified(classify, exc)
        if last.kind == "malformed":
            malformed += 1
        if (
            not last.retryable
            or attempt >= policy.max_attempts
            or malformed >= policy.max_malformed
        ):
            return Outcome(None, attempt, last)
        delay = policy.wait(attempt, last, rng)
        # INFO, not WARNING: a retry is routine (the progress line counts them); its detail is
        # for -v. The item's final failure, if it comes, is logged once by the runner.
        log.info(
            "%s: attempt %d of %d failed (%s); retrying in %.1f s",
            item_id, attempt, policy.max_attempts, last.message, delay,
        )
        await sleep(delay)
