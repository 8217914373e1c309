"""Plain lines for the terminal, wrapped at word boundaries to its width.

A terminal folds a long line wherever the width runs out, mid-word (``w|orth``,
``validation_A|rt_1``). ``echo`` folds it between words instead, and keeps a line's indent on
its continuation lines, so an indented list stays one. Item ids and paths are never split, even
where one is wider than the terminal. Output to a file or a pipe is wrapped only when
``COLUMNS`` asks for a width: a script reading it gets whole lines.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import TextIO

from mmmu_eval.core.untrusted import for_terminal

__all__ = ["echo", "width", "wrap"]


def width(stream: TextIO | None = None) -> int | None:
    """Columns to wrap at: the terminal's (or ``COLUMNS``); None when writing to a file or pipe."""
    stream = stream or sys.stdout
    if os.environ.get("COLUMNS", "").isdigit():
        return max(int(os.environ["COLUMNS"]), 20)
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(shutil.get_terminal_size().columns, 20)


def wrap(text: str, columns: int | None) -> list[str]:
    """``text`` folded between words at ``columns`` (each line of it on its own; indent kept)."""
    if columns is None:
        return text.split("\n")
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= columns:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line.strip(" "), columns, initial_indent=indent, subsequent_indent=indent + "  ",
                                 break_long_words=False, break_on_hyphens=False) or [""])
    return out


def echo(text: str = "", *, file: TextIO | None = None) -> None:
    """Print ``text`` wrapped at word boundaries to the terminal's width, control characters
    escaped (``untrusted.for_terminal``: the lines carry ids, answers, file names)."""
    stream = file or sys.stdout
    for line in wrap(for_terminal(text), width(stream)):
        print(line, file=stream)
