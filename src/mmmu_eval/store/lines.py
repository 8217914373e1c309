"""Appending one whole line to responses.jsonl: all of it, or none of it.

A usual line goes out in one ``write``, so a killed process leaves at most the last line torn,
which reading skips and resuming cuts off. A huge line (a 20 MB answer, encoded a slice at a time
by ``response_json.encoded_line``) goes out in several; a kill can still tear only it. A write
that fails half way (a full disk, Ctrl-C) takes its part line back: later lines must never
follow a broken one, which would then be a damaged line in the middle of the file.
"""

from __future__ import annotations

import os
from contextlib import suppress
from typing import Iterable, Iterator

__all__ = ["append_line"]

#: Bytes of a line gathered before they are written (a usual line is written in one go).
WRITE_AT_ONCE = 1 << 20


def append_line(fd: int, pieces: Iterable[bytes]) -> None:
    """Write ``pieces`` (one line, newline included) at the end of the file ``fd``, unbuffered.

    Raises:
        OSError: the write failed; the file is as it was before the call.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        for chunk in _batched(pieces, WRITE_AT_ONCE):
            _write_all(fd, chunk)
    except BaseException:
        with suppress(OSError):
            os.ftruncate(fd, start)
        raise


def _batched(pieces: Iterable[bytes], size: int) -> Iterator[bytes]:
    """The pieces joined into chunks of at least ``size`` bytes (the last one shorter)."""
    held: list[bytes] = []
    length = 0
    for piece in pieces:
        held.append(piece)
        length += len(piece)
        if length >= size:
            yield b"".join(held)
            held, length = [], 0
    if held:
        yield b"".join(held)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a write may take fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
