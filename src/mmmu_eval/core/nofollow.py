"""Nothing outside a run is touched: a run's files are never opened through a link.

A run directory can come from anywhere (a colleague's tarball, a shared disk, a folder someone
else prepared). Were its ``responses.jsonl`` a symbolic link to ``~/.bashrc``, resuming would
cut that file's last line off as a "torn tail" and append records to it; a linked
``.mmmu-eval.lock`` had its target overwritten with the lock record (issue 40). So every file in
a directory we read or write as a run (a run, a suite, a harden output, a shard) is opened here,
with ``O_NOFOLLOW``, and a link is refused with a StoreError naming it and where it points:
nothing is read from its target, nothing written, cut or replaced there.

The rules, in one place:

- **The directory the user names may be a link** (``--out runs/latest``): the user chose it.
  Links *inside* it are refused: a file, or a folder between a directory a command holds and a
  directory it writes in there (a suite's runs, harden's runs: ``refuse_linked_folders``).
- **Reading refuses a link too** (``open_file``): a report made from a file outside the run would
  describe something else, and show its content.
- **A file written whole is refused when its name is a link** (``refuse_link``, called by
  ``atomic.write_atomically``), though the rename would only replace the link and leave its
  target alone: one rule for every file is easier to trust than two, and a link the user made
  is not silently turned into a file.
- **A file written in place** (responses.jsonl appended to or cut, the lock file truncated) is
  refused also when it has a second name (a hard link, ``in_place=True``): writing it would
  change the other name's file, maybe outside the run.

Where ``O_NOFOLLOW`` does not exist (Windows), the name is checked with ``lstat`` before opening.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

from mmmu_eval.core.errors import StoreError

__all__ = ["NOFOLLOW", "exists", "linked", "open_fd", "open_file", "refuse_link", "refuse_linked_folders"]

#: ``os.O_NOFOLLOW`` where the system has it, else 0 (then ``lstat`` checks the name first).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_CLOEXEC = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)

_FIX = ("mmmu-eval never reads or writes a run's files through a link, so that nothing outside the run is "
        "touched; put the file itself there (or remove the link), then run the same command again")

#: ``open_file``'s modes and their flags.
_MODES = {
    "rb": os.O_RDONLY,
    "ab": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "r+b": os.O_RDWR,
    "create": os.O_WRONLY | os.O_CREAT,
}


def linked(path: str | Path) -> bool:
    """Whether ``path`` itself is a symbolic link (its target is not looked at)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def exists(path: str | Path) -> bool:
    """Whether anything has the name ``path``, a link included (``Path.exists`` follows a link,
    and a dangling one reads as absent, so a writer would create its target)."""
    return os.path.lexists(path)


def _refusal(path: Path, what: str = "file") -> StoreError:
    try:
        target = f" (to {os.readlink(path)})"
    except OSError:
        target = ""
    return StoreError(f"is a symbolic link{target}, not a {what}; {_FIX}", path)


def refuse_link(path: str | Path) -> None:
    """Raise the StoreError naming ``path`` when it is a symbolic link; a missing name is fine."""
    if linked(path):
        raise _refusal(Path(path))


def refuse_linked_folders(root: str | Path, path: str | Path) -> None:
    """Refuse a link among the folders from ``root`` (not included: the user may name a link)
    down to ``path`` (included), for a directory written inside one a command holds.

    Raises:
        StoreError: naming the first folder that is a link.
    """
    root, path = Path(root), Path(path)
    try:
        parts = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).parts
    except ValueError:  # not inside root
        return
    folder = root
    for part in parts:
        folder = folder / part
        if linked(folder):
            raise _refusal(folder, "folder")


def open_fd(path: str | Path, flags: int, mode: int = 0o666, *, in_place: bool = False) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (and with ``in_place``, a file with
    another name). The descriptor is not inherited by child processes.

    Raises:
        StoreError: ``path`` is a link, or (``in_place``) has another hard link; nothing was
            opened.
        OSError: as ``os.open`` (a missing file, no permission).
    """
    path = Path(path)
    if not NOFOLLOW:
        refuse_link(path)
    try:
        fd = os.open(path, flags | NOFOLLOW | _CLOEXEC, mode)
    except OSError:
        refuse_link(path)  # O_NOFOLLOW's ELOOP (EMLINK on some BSDs): say what it is
        raise
    if in_place:
        try:
            links = os.fstat(fd).st_nlink
        except OSError:
            os.close(fd)
            raise
        if links > 1:
            os.close(fd)
            raise StoreError(f"has {links} names (hard links), so writing it in place would change the file "
                             f"under its other name too; {_FIX.replace('(or remove the link)', '(a copy of it)')}",
                             path)
    return fd


def open_file(path: str | Path, mode: str = "rb", *, in_place: bool = False) -> IO[bytes]:
    """``open(path, mode)`` for ``rb``, ``ab``, ``r+b`` or ``create`` (made when missing, left as it
    is when there: ``touch``), refusing a link as ``open_fd`` does. Unbuffered for ``ab``: a
    record written is in the OS at once."""
    fd = open_fd(path, _MODES[mode], in_place=in_place or mode != "rb")
    try:
        return os.fdopen(fd, "wb" if mode == "create" else mode, buffering=0 if mode == "ab" else -1)
    except BaseException:
        os.close(fd)
        raise
