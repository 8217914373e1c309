"""The one interface every model backend implements.

A backend takes a sequence of prepared requests and yields a Response for each as soon as it
is ready (in any order), so that the store can save it at once. Local engines batch behind
this call, API clients fan out concurrently behind it, baselines answer at once. A backend
never reads the dataset, never scores, and never writes files.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, AsyncIterator, Protocol, Sequence, runtime_checkable

from mmmu_eval.core.errors import BackendError
from mmmu_eval.core.records import Request, Response

#: Where a preflight notes each probe request it sent (``{"bytes", "attempts", "prompt_tokens",
#: "completion_tokens"}``), so the run counts it in its usage and cost. ``evaluate`` sets a fresh
#: list around each run's preflight: a context variable, because the runs of a suite share one
#: backend and preflight at the same time, each in its own task.
PREFLIGHT_SENT: ContextVar[list[dict[str, Any]] | None] = ContextVar("preflight_sent", default=None)


class RunCannotSucceed(BackendError):
    """A server answered in a way no later request can pass (an exhausted quota, a refused key,
    a model it does not have). A backend raises it from ``generate`` right after it yielded the
    failed item, so the runner stops at once and leaves the rest unasked (``run/runner.py``).
    Its message is the real cause and the fix."""


@runtime_checkable
class Backend(Protocol):
    """What the runner drives."""

    spec: str
    """The model spec that built it (``openai:gpt-4o``, ``hf:/models/x``, ``random``)."""

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Check, before the first real request, that the run can work at all.

        Raises ConfigError with a message naming the fix (server unreachable, unknown model,
        too many images per request). Baselines do nothing.
        """
        ...

    def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield one Response per request, as each finishes; errors become ``error`` Responses."""
        ...

    async def aclose(self) -> None:
        """Release connections, models and worker threads."""
        ...

    def describe(self) -> dict[str, object]:
        """What the manifest records about this backend (never a secret)."""
        ...


@runtime_checkable
class Contacting(Backend, Protocol):
    """A backend that can start reaching its server before the run's requests exist."""

    def contact(self) -> None:
        """Start the first exchange with the server (the API client asks for its model list);
        ``preflight`` takes its outcome. Needs a running event loop; returns at once."""
        ...
