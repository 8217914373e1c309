"""The exceptions mmmu-eval raises, one small family.

::

    MmmuEvalError                 base class; the CLI catches this and prints one line
    ├── ConfigError               a wrong setup: unknown subject, bad flag, missing API key
    ├── DataError                 a dataset problem; carries the item id when there is one
    ├── BackendError              a model call failed; carries the HTTP status and retryability
    └── StoreError                a run directory cannot be read or written; carries the path

A failed *item* (a corrupt image, a server that gave up) is not raised past the runner: it
becomes a stored response with status ``error``. Exceptions are for problems that make the
whole run meaningless, and for the layer below the runner to report an item's failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class MmmuEvalError(Exception):
    """Base class of every error mmmu-eval raises on purpose."""


class ConfigError(MmmuEvalError):
    """The run is set up wrongly; nothing was sent to a model."""


class DataError(MmmuEvalError):
    """A dataset row or file is unusable.

    The message starts with the item id when the problem belongs to one item, so that
    ``str(error)`` reads like ``validation_Art_12: the question refers to <image 3> but the
    item has 2 images``.
    """

    def __init__(self, message: str, item_id: str | None = None) -> None:
        self.item_id = item_id
        super().__init__(f"{item_id}: {message}" if item_id else message)


class BackendError(MmmuEvalError):
    """A model call failed.

    ``retryable`` says whether trying again can help (rate limits, 5xx, timeouts, dropped
    connections); ``retry_after`` is the server's own hint in seconds, when it gave one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        super().__init__(message)


class StoreError(MmmuEvalError):
    """A run directory is unreadable, inconsistent, or belongs to another protocol."""

    def __init__(self, message: str, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        super().__init__(f"{path}: {message}" if path is not None else message)


def did_you_mean(value: str, known: Iterable[str], *, n: int = 1, cutoff: float = 0.6) -> str:
    """``"; did you mean X?"`` (``"X, Y, Z"`` for ``n`` > 1) when ``value`` is close to one of
    ``known`` (``difflib``'s ratio at least ``cutoff``), else ``""``: the hint an error about an
    unknown setting, parser, prompt or item id ends with, worded one way everywhere."""
    import difflib  # only when there is an error to word

    close = difflib.get_close_matches(value, list(known), n=n, cutoff=cutoff)
    return f"; did you mean {', '.join(close)}?" if close else ""
