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

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePath


__all__ = ["BackendError", "ConfigError", "DataError", "MmmuEvalError", "StoreError", "argument", "did_you_mean",
           "same_again", "speaking_cli", "to_caller"]


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


class _Caller:
    """Who an error is worded for: a Python caller (None) or the command line (its flags, by
    keyword name). Set for the length of one command by ``cli/main.py``; a plain attribute, not a
    context variable, so that an error raised in a worker thread of the command reads the same."""

    flags: Mapping[str, str] | None = None


_NOT_GIVEN = object()


def argument(name: str, value: object = _NOT_GIVEN, *, typed: bool = False, flag: str | None = None) -> str:
    """An argument named as the caller wrote it, for an error message: the one place that spells
    one, so that Python errors name Python arguments and the CLI's its flags.

    ``name`` is the keyword (``split``, ``resume``); ``value``, when given, is shown with it.
    A Python caller reads ``split='devv'``, ``resume=True``, ``out=``; the command line reads
    ``--split 'devv'``, ``--resume``, ``--out`` (its own flag for the keyword, such as
    ``--parser`` for ``parsers``; else ``flag`` where the caller's name is another one, as
    ``EvalProtocol(mode=)`` is ``--prompt``; else the keyword with dashes). ``typed``: the command
    line shows the value as typed, unquoted (a path, ``--shard 3/2``).

    >>> argument("split", "devv"), argument("resume", True), argument("out")
    ("split='devv'", 'resume=True', 'out=')
    >>> with speaking_cli({"parsers": "--parser"}):
    ...     argument("split", "devv"), argument("resume", True), argument("html", False), argument("parsers")
    ("--split 'devv'", '--resume', '--no-html', '--parser')
    """
    flags = _Caller.flags
    if isinstance(value, PurePath):  # a path reads as the text it was given as, either way
        value = str(value)
    if flags is None:
        return f"{name}=" if value is _NOT_GIVEN else f"{name}={value!r}"
    flag = flags.get(name) or flag or "--" + name.replace("_", "-")
    if value is _NOT_GIVEN or value is True:
        return flag
    if value is False:
        return "--no-" + flag.removeprefix("--")
    return f"{flag} {value if typed else repr(value)}"


def same_again(*, resume: bool = True, start: bool = False) -> str:
    """How to continue work that stopped, as the caller does it: ``run the same command again (or
    add --resume)`` on the command line, ``make the same call again (or pass resume=True)`` in
    Python; either continues the run in its directory (``RunConfig.resume``). ``resume=False``:
    without the parenthesis, for work that has no such flag (a suite always continues).
    ``start``: it starts a sentence (a capital first letter)."""
    said = "make the same call again" if _Caller.flags is None else "run the same command again"
    if start:
        said = said[0].upper() + said[1:]
    return f"{said} (or {'pass' if _Caller.flags is None else 'add'} {argument('resume', True)})" if resume else said


def to_caller(*, cli: str, python: str) -> str:
    """The one of two wordings that fits the caller, for a hint no argument name covers: the
    command to type (``mmmu-eval score RUN --save``) or the call to make (``mmmu_eval.score(run, save=True)``)."""
    return python if _Caller.flags is None else cli


@contextmanager
def speaking_cli(flags: Mapping[str, str]) -> Iterator[None]:
    """Word the errors raised inside for the command line: ``flags`` maps a keyword to the flag
    that sets it where the two differ (``{"parsers": "--parser"}``)."""
    before = _Caller.flags
    _Caller.flags = dict(flags)
    try:
        yield
    finally:
        _Caller.flags = before
