"""Reading ``responses.jsonl`` back, line by line: every record, a torn tail skipped or cut, a damaged line named.

``rundir.py`` owns the run directory and writes it; this module is the one reader of the
responses file, kept apart because its rule is a contract of its own: only the last line can be
unfinished (appends are whole lines, ``lines.py``), so an unfinished last line is a run killed
mid-write, skipped when read and cut off before a resumed run appends; any other unreadable line
means the file was damaged or edited, and reading stops with a StoreError naming the line and
the fix. Lines are read one at a time, never the file at once (CoT answers make big files).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Iterable

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.nofollow import exists, open_file
from mmmu_eval.core.records import Response
from mmmu_eval.store.response_json import response_from_json
from mmmu_eval.store.torn_tail import start_of_last_line

__all__ = ["count_lines", "read_records", "repair_torn_tail"]

# The run store's log lines keep the name users and their filters know (``RunStore`` reads through here).
log = logging.getLogger("mmmu_eval.store.rundir")

# What to do about a damaged line of responses.jsonl, said after every such error.
_DAMAGED = "; fix or delete that line, then run the same command again (an item whose line is gone is asked again)"


def read_records(file: Path) -> Iterable[Response]:
    """Every record in file order, read a line at a time (CoT answers make big files); never
    through a link (``nofollow``: a StoreError naming it)."""
    if not exists(file):
        return
    number = 0
    with open_file(file) as fh:
        for raw in fh:  # not enumerate(): its reused tuple would keep each line alive a turn longer
            number += 1
            if not raw.strip():
                continue
            where = f"{file} line {number}"
            finished = raw.endswith(b"\n")  # only the last line can lack its newline
            try:
                text = raw.decode("utf-8")
                del raw  # a 20 MB answer: its bytes go before its text is parsed
                value = loads(text)  # nested 100,000 deep or a 5,000-digit number: damage like any other
            except (UnicodeDecodeError, ValueError) as exc:
                if not finished:
                    log.warning("%s is an unfinished record (the run stopped mid-write); ignored", where)
                    return
                raise StoreError(f"{where}: not valid JSON ({exc}){_DAMAGED}") from exc
            del text
            try:
                response = response_from_json(value, where)
            except StoreError as exc:
                raise StoreError(f"{exc}{_DAMAGED}") from exc
            yield response


def count_lines(file: Path) -> int:
    """How many non-blank lines the file holds (0 when it is missing), without parsing them."""
    if not exists(file):
        return 0
    with open_file(file) as fh:
        return sum(1 for line in fh if line.strip())


def repair_torn_tail(file: Path) -> None:
    """Cut an unfinished last line off responses.jsonl, so appends start on a clean line.

    A last line that is complete JSON but lost only its newline is kept and finished.
    Every line is checked on the way (a damaged file is refused before we add to it). A link or
    a file with a second name is refused before anything is read or cut (``nofollow``): the
    line cut would be another file's.
    """
    if not exists(file):
        open_file(file, "create").close()
        return
    open_file(file, "r+b").close()  # refused as a link or a hard link before its lines are judged
    for _ in read_records(file):  # raises on a damaged line other than a torn tail
        pass
    with open_file(file, "r+b") as fh:
        cut = start_of_last_line(fh)
        if cut is None:
            return  # empty, or ends with a newline
        fh.seek(cut)
        tail = fh.read()
        try:
            response_from_json(loads(tail.decode("utf-8")), f"{file} last line")
        except (ValueError, StoreError):
            log.warning("%s: removing an unfinished last record (%d bytes) before resuming", file, len(tail))
            fh.truncate(cut)
            return
        fh.seek(0, os.SEEK_END)
        fh.write(b"\n")
