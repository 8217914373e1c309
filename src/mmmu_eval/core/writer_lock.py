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
- **Never through a link.** The lock file is opened with ``O_NOFOLLOW`` and refused when it has
  a second name (``nofollow``): a linked lock file had its target overwritten with the lock
  record (issue 40). A directory held inside another this context holds (a suite's run,
  harden's runs) is refused when a folder between them is a link.
- **Readers ask too.** ``writer_of`` says who holds a directory without taking its lock (a
  shared lock tried and let go at once, so no file is made): ``merge`` refuses a shard being
  written, ``score --save`` a run being written, and ``report`` prints such a run's figures as
  they stand, says who is writing it, and writes nothing (issue 40: a merge took a stale
  snapshot of a shard still being written).
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
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.nofollow import open_fd, open_file, refuse_linked_folders

__all__ = ["LOCK_FILE", "hold_directory", "refuse_while_written", "writer_of"]

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
    for outer in _HELD.get():  # a suite's run, harden's runs: never reached through a link inside
        refuse_linked_folders(outer, folder)
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


def writer_of(path: str | Path) -> str | None:
    """Who is writing the directory ``path`` now (``process 1234 (mmmu-eval run on host, since
    ...)``); None when no one is, or when it is this context's own holding (a step inside it).

    Takes no lock and writes nothing: the lock file, when there is one, is opened read-only (never
    through a link) and a shared lock is tried on it and let go, which fails exactly while a
    writer holds it.
    """
    folder = Path(path)
    if os.path.abspath(folder) in _HELD.get():
        return None
    file = folder / LOCK_FILE
    try:
        fd = open_fd(file, os.O_RDONLY)
    except (OSError, StoreError):  # none (no writer ever, or it let go), or unreadable: none we can name
        return None
    try:
        _lock(fd, shared=True)
    except _Busy:
        return _holder(file)
    except OSError:
        return None
    finally:
        os.close(fd)  # lets our shared lock go
    return None


def refuse_while_written(path: str | Path, doing: str) -> None:
    """Raise a StoreError naming the writer when one is writing ``path`` (``writer_of``).

    Args:
        path: the directory a reader is about to use.
        doing: what would go wrong, as the refusal says it (``a merge now would take ...``).
    """
    holder = writer_of(path)
    if holder is not None:
        raise StoreError(f"is being written by {holder}; {doing}: wait for it to finish (or stop it), then run the "
                         "same command again", path)


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
            fd = open_fd(file, os.O_RDWR | os.O_CREAT, 0o666, in_place=True)  # never a link's target
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
            with open_file(file) as fh:
                record = loads(fh.read().decode("utf-8") or "null")
        except (OSError, ValueError, StoreError):
            record = None
        if isinstance(record, dict) and isinstance(record.get("pid"), int):
            mine = " (this process)" if record["pid"] == os.getpid() and record.get("host") == socket.gethostname() else ""
            return (f"process {record['pid']}{mine} (mmmu-eval {record.get('command')} on {record.get('host')}, "
                    f"since {record.get('since')})")
        time.sleep(0.05)
    return "another process"


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int, *, shared: bool = False) -> None:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBRLCK if shared else msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            raise _Busy from exc
        if shared:  # a probe (writer_of): let go before the descriptor is closed
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import errno
    import fcntl

    def _lock(fd: int, *, shared: bool = False) -> None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _Busy from exc
            raise
