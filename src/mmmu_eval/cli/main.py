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
import sys

from rich.console import Console
from rich.markup import escape

from mmmu_eval.errors import ConfigError, MmmuEvalError

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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = _command_in(argv)
    for name in (named,) if named else COMMANDS:
        importlib.import_module(f"mmmu_eval.cli.{name}").register(sub)
    return parser


def _command_in(argv: list[str] | None) -> str | None:
    """The subcommand a command line names: its first word that is not an option."""
    first = next((w for w in argv or () if not w.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    err = Console(stderr=True, highlight=False)
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        return 2
    except MmmuEvalError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
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
