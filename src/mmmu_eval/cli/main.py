"""``mmmu-eval`` entry point: builds the argument parser from one module per subcommand.

Each subcommand module defines ``register(subparsers)``, which adds its parser and sets
``func`` to a function ``(args) -> int`` returning the exit status. Known errors
(MmmuEvalError) print one red line and exit 1 (2 for ConfigError, i.e. bad usage);
anything unexpected keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys

from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console
from mmmu_eval.core.version import __version__

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("run", "suite", "score", "rescore", "report", "compare", "audit", "doctor", "merge", "data", "harden")

EPILOG = """examples:
  mmmu-eval run --benchmark mmmu --split validation --data sample --model random
  mmmu-eval run --benchmark mmmu-pro --setting vision --model openai:gpt-4o
  mmmu-eval data show validation_Art_1 --data sample
"""


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the command line, only the subcommand it names is loaded (None: all).

    Each subcommand module imports what its flags need, so ``mmmu-eval run`` does not pay for
    the others; without a known subcommand (``--help``, a typo) every one is registered.
    """
    parser = argparse.ArgumentParser(
        prog="mmmu-eval",
        description="Evaluate vision-language models on MMMU and MMMU-Pro, the official way.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("-V", "--version", action="version", version=f"mmmu-eval {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = _command_in(argv)
    for name in (named,) if named else COMMANDS:
        importlib.import_module(f"mmmu_eval.cli.{name}").register(sub)
    return parser


def _command_in(argv: list[str] | None) -> str | None:
    """The subcommand a command line names: its first word that is not an option."""
    first = next((w for w in argv or () if not w.startswith("-")), None)
    return first if first in COMMANDS else None


def not_utf8(argv: list[str]) -> str | None:
    """What is wrong with a command line holding bytes that are not UTF-8, naming the flag; None if none.

    Python hands such bytes over as lone surrogates (``\\udcff`` for byte 0xff); nothing we write
    (the manifest, a path, a request) can hold them as given, so they are refused here, before
    anything is read or sent.
    """
    for n, word in enumerate(argv):
        bad = next((c for c in word if "\udc80" <= c <= "\udcff"), None)
        if bad is None:
            continue
        if word.startswith("--"):
            flag = word.partition("=")[0]
        elif n and argv[n - 1].startswith("-"):
            flag = argv[n - 1]
        else:
            flag = f"argument {n + 1}"
        return (f"{flag}: the value is not UTF-8 text (byte 0x{ord(bad) - 0xDC00:02x}); "
                "pass it in UTF-8 (convert the file or the name with iconv)")
    return None


class _StderrNow(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is at each record, not as it was when logging was set up.

    While a progress bar is live, rich routes ``sys.stderr`` through itself and prints what
    comes that way above the bar; a handler holding the original stream wrote under it instead,
    and every log line left one more copy of the bar in the scrollback.
    """

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    def format(self, record: logging.LogRecord) -> str:
        """The line with control characters escaped (``untrusted.for_terminal``): a log line
        carries server messages, model names and answers, which must not drive the terminal."""
        return for_terminal(super().format(record))

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # noqa: ANN001
        pass


class _Terminated:
    """Whether SIGTERM stopped this command (its exit status is then 143, as a killed one's)."""

    seen = False


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    """SIGTERM (``kill``, a job scheduler, ``docker stop``) stops a command as Ctrl-C does: the
    answers so far stay stored and the manifest says ``interrupted`` (it said ``running``)."""
    _Terminated.seen = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not _terminate_as_interrupt:
        handler(signal.SIGINT, frame)  # asyncio's own: cancels the running command, as Ctrl-C does
    else:  # no Python handler for SIGINT (a background job ignores it): interrupt here
        raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    _Terminated.seen = False
    try:  # SIGTERM as Ctrl-C, unless the embedding program handles it itself
        taken = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        if taken:
            signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    except ValueError:  # not the main thread: signals are the main thread's business
        taken = False
    try:
        status = _main(argv)
    finally:
        if taken:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return 128 + signal.SIGTERM if _Terminated.seen and status == 130 else status


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    problem = not_utf8(words)
    if problem is not None:
        make_console(stderr=True).print(f"[red]error:[/red] {for_rich(problem)}", soft_wrap=True)
        return 2
    parser = build_parser(words)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(levelname)s %(name)s: %(message)s",
        handlers=[_StderrNow()],
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    err = make_console(stderr=True)
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        err.print(f"[red]error:[/red] {for_rich(str(exc))}", soft_wrap=True)
        return 2
    except MmmuEvalError as exc:
        err.print(f"[red]error:[/red] {for_rich(str(exc))}", soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    except BrokenPipeError:
        # `mmmu-eval data list | head`: the reader left. Not an error worth a traceback; point
        # stdout at /dev/null so the interpreter's final flush does not raise again. Status 1,
        # as rich's own console gives when the same happens inside a table.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
