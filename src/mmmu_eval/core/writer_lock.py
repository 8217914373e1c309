"""One writer per directory: an OS file lock a command holds while it writes a run, suite,
harden output or merge.

Two processes resuming one run directory at once would each ask every missing item and both
store the answers (issue 29: 30 missing items, 60 requests). So every command that writes a
directory takes ``hold_directory`` first, before it sends its first request (the model listing
included); a second one is refused at once with the holder's pid.

Why this shape:

- **The kernel owns the lock.** ``flock`` on ``LOCK_FILE`` inside the directory: the kernel drops
  it when the holder's process ends, however it ends, so a SIGKILL leaves nothing to clean. The
  file may stay behind after a kill; without its lock it means nothing, and the next writer
  takes it. (Windows: ``msvcrt.locking`` on the file's first byte, released the same way.)
- **The file says who holds it.** The holder writes its pid, host and command into the file,
  which is what a refused process names.
- **Nesting is one holding.** A command that holds a directory and calls another step that
  holds the same one (``harden all`` runs filter, augment and render in ``out``) holds it once:
  the held paths are a context variable, so only the calls made inside the holding share it. A
  second, independent call in the same process (two notebook tasks) is refused like another
  process.
- **Leaves nothing when done.** The holder removes the file before it lets the lock go (a
  process that opened the old file meanwhile sees it gone and tries again), and removes the
  directory too when it made it and nothing else was written there: a refused run leaves no
  folder behind.
- **Read-only fails first.** Taking the lock writes in the directory, so a read-only ``--out``
  fails here, before a request, with one line.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from mmmu_eval.core.atomic import LOCK_FILE
from mmmu_eval.core.errors import StoreError

__all__ = ["LOCK_FILE", "hold_directory"]

_HELD: ContextVar[frozenset[str]] = ContextVar("mmmu_eval_held_directories", default=frozenset())


class _Busy(Exception):
    """Another open file description holds the lock."""


@contextmanager
def hold_directory(path: str | Path, command: str) -> Iterator[Path]:
    """Hold the one-writer lock of ``path`` (created when missing) for the ``with`` block.

    Args:
        path: the directory the command writes (a run, a suite, a harden output, a merge's out).
        command: what holds it, as a refused process should read it (``run``, ``harden filter``).

    Raises:
        StoreError: another process (or another call in this one) holds it, naming its pid; or
            the directory cannot be created or written (read-only, a file in the way).
    """
    folder = Path(path)
    key = os.path.abspath(folder)
    if key in _HELD.get():
        yield folder
        return
    if folder.exists() and not folder.is_dir():
        raise StoreError("is a file, not a directory; choose another --out", folder)
    made = _make_folders(folder)
    try:
        fd = _acquire(folder, command)
    except BaseException:
        _remove_made(made)
        raise
    token = _HELD.set(_HELD.get() | {key})
    try:
        yield folder
    finally:
        _HELD.reset(token)
        _release(folder, fd)
        _remove_made(made)


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones made, deepest first."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot write ({exc.strerror or exc}); choose a writable --out", folder) from exc
    return missing


def _remove_made(made: list[Path]) -> None:
    """Remove the folders ``_make_folders`` made, deepest first, while they are empty."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:  # something was written there (or another writer took it): keep it
            return


def _acquire(folder: Path, command: str) -> int:
    """The open, locked lock file's descriptor, with this process written into it."""
    file = folder / LOCK_FILE
    while True:
        try:
            fd = os.open(file, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileNotFoundError:  # the folder went with a holder's clean-up: make it again
            _make_folders(folder)
            continue
        except OSError as exc:
            raise StoreError(
                f"cannot write ({exc.strerror or exc}); choose a writable --out (nothing was sent to a model)",
                folder) from exc
        try:
            _lock(fd)
        except _Busy:
            os.close(fd)
            raise StoreError(
                f"is being written by {_holder(file)}; wait for it to finish (or stop it), then run the "
                "same command again. Two writers in one directory would ask and store the same items twice",
                folder,
            ) from None
        except OSError as exc:
            os.close(fd)
            raise StoreError(f"cannot lock {LOCK_FILE} ({exc.strerror or exc}); choose another --out", folder) from exc
        if _still_there(file, fd):
            break
        os.close(fd)  # the holder before us removed this file as it let go: lock the new one
    record = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": command,
                         "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    try:
        os.ftruncate(fd, 0)
        os.write(fd, (record + "\n").encode())
    except OSError as exc:  # a full disk: the lock holds all the same, only the name is missing
        if exc.errno not in (28, 122):  # ENOSPC, EDQUOT
            os.close(fd)
            raise StoreError(f"cannot write ({exc.strerror or exc}); choose a writable --out", folder) from exc
    return fd


def _release(folder: Path, fd: int) -> None:
    try:
        (folder / LOCK_FILE).unlink(missing_ok=True)  # while still held: see the module doc
    except OSError:
        pass
    os.close(fd)  # closing the last descriptor lets the lock go


def _still_there(file: Path, fd: int) -> bool:
    try:
        return os.stat(file).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _holder(file: Path) -> str:
    """``process 1234 (mmmu-eval run on host, since ...)`` from the lock file, as far as it says."""
    for _ in range(20):  # the holder writes its name just after it takes the lock
        try:
            record = json.loads(file.read_text(encoding="utf-8") or "null")
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict) and isinstance(record.get("pid"), int):
            mine = " (this process)" if record["pid"] == os.getpid() and record.get("host") == socket.gethostname() else ""
            return (f"process {record['pid']}{mine} (mmmu-eval {record.get('command')} on {record.get('host')}, "
                    f"since {record.get('since')})")
        time.sleep(0.05)
    return "another process"


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            raise _Busy from exc
else:
    import errno
    import fcntl

    def _lock(fd: int) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _Busy from exc
            raise
