"""The torn tail of ``responses.jsonl``: where a run killed mid-write left an unfinished line.

Appends are whole lines, so only the last line can be unfinished. Before a resumed run appends
again, ``RunStore`` cuts that line off (or finishes one that lost only its newline); this module
finds where it starts without reading the whole file.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["start_of_last_line"]


def start_of_last_line(fh: IO[bytes], block: int = 1 << 16) -> int | None:
    """Offset where an unfinished last line starts; None when the file ends with a newline.

    Reads backwards a block at a time, so a large file is not loaded to find its tail.
    """
    end = fh.seek(0, os.SEEK_END)
    if end == 0:
        return None
    fh.seek(end - 1)
    if fh.read(1) == b"\n":
        return None
    position = end
    while position > 0:
        start = max(0, position - block)
        fh.seek(start)
        chunk = fh.read(position - start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        position = start
    return 0
