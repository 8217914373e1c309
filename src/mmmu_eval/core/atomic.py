"""Atomic writes: a whole file is written beside its target and renamed over it.

Every file the package writes whole (``manifest.json``, ``results.json``, ``report.html``,
``suite.json``, ``harden.json``, harden's report and rendered pages, the digest cache) goes
through ``write_atomically``, so a crash never leaves half a file and every one of them is made
the same way. This module is layer L0 (it imports only ``nofollow``, whose rule it keeps: a
link is never written through or replaced) because the dataset's digest cache, below the
store, writes one too.

The temporary file is created with mode 0666 less the umask, as ``open(path, "w")`` would make
it. ``tempfile.mkstemp`` creates it 0600 whatever the umask (it is meant for secrets), and the
rename keeps the mode: the results of a run on a shared machine came out unreadable to the
user's group (issue 17). ``temporary_beside`` is for a writer that stages several files and
renames them together (``harden.writer.Beside``).

A process killed between creating its temporary file and the rename leaves that file behind.
It is not content: ``holds_anything`` does not count it when a command asks whether a folder it
is told to write to is empty, and ``remove_leftovers`` clears it when the folder's writer starts
again. Without that, a run killed while writing its first manifest left a folder that every
later attempt refused as "a non-empty directory without a manifest.json".
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

from mmmu_eval.core.nofollow import refuse_link

__all__ = ["LOCK_FILE", "TEXT_ERRORS", "holds_anything", "is_leftover", "remove_leftovers", "temporary_beside", "write_atomically"]

#: The one-writer lock inside a directory being written (``writer_lock``): never content either.
LOCK_FILE = ".mmmu-eval.lock"

#: How every text file we write encodes what UTF-8 cannot hold: a lone surrogate (``\ud800``, a
#: server's JSON escape of half a character, or a byte of a non-UTF-8 file name) is written as its
#: escape, ``\ud800``. Inside a JSON string that escape *is* the JSON for the same character, so
#: responses.jsonl, results.json and the manifest read back exactly what was received; in a page
#: it shows as the escape. UTF-8 encodes every other character, so nothing else changes. (One
#: limit, JSON's own: a high surrogate followed by a low one reads back as the pair's character.)
TEXT_ERRORS = "backslashreplace"

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


_SUFFIX = ".tmp"
#: The name ``temporary_beside`` gives: the target's name hidden, 48 random bits in hex, the suffix.
_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{12}" + re.escape(_SUFFIX))


def temporary_beside(target: Path) -> tuple[int, str]:
    """A new, empty file in ``target``'s directory (a hidden name that starts with its own);
    its descriptor, open for writing, and its path. Rename it over ``target`` when written."""
    folder = target.parent
    while True:
        path = folder / f".{target.name}.{secrets.token_hex(6)}{_SUFFIX}"
        try:
            return os.open(path, _FLAGS, 0o666), str(path)
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue


def write_atomically(target: Path, content: str | bytes | Iterable[str]) -> Path:
    """Write ``content`` (text as UTF-8 with ``TEXT_ERRORS``, bytes as they are, or text in chunks) to ``target``
    through a temporary file beside it, synced to disk before the rename; returns ``target``.

    On any failure the temporary file is removed and the error raised; ``target`` is then as it
    was. The folder must exist.

    Raises:
        StoreError: ``target`` is a symbolic link (``nofollow.refuse_link``): the rename would
            replace the link and leave its target alone, but a link is refused wherever we write,
            so nothing written is ever mistaken for an update of the file it pointed to.
        OSError: the file cannot be written.
    """
    target = Path(target)
    refuse_link(target)
    fd, tmp = temporary_beside(target)
    try:
        if isinstance(content, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
        else:
            with os.fdopen(fd, "w", encoding="utf-8", errors=TEXT_ERRORS) as fh:
                for chunk in (content,) if isinstance(content, str) else content:
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
        refuse_link(target)  # made while the content was written (a long page): still never replaced
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def is_leftover(path: Path) -> bool:
    """Whether ``path`` is a temporary file of ``temporary_beside`` (a write whose process died
    before the rename, when it is not being written now)."""
    return _TEMPORARY.fullmatch(path.name) is not None and path.is_file()


def holds_anything(folder: Path) -> bool:
    """Whether ``folder`` exists and is a file, or a directory with an entry other than leftovers
    and the writer's lock file."""
    if not folder.exists():
        return False
    return not folder.is_dir() or any(not (is_leftover(entry) or entry.name == LOCK_FILE) for entry in folder.iterdir())


def remove_leftovers(folder: Path) -> None:
    """Delete the leftovers of killed writes in ``folder``: call it only as the folder's one
    writer, starting (a temporary file of a write in progress elsewhere would go too)."""
    for entry in folder.iterdir() if folder.is_dir() else ():
        if is_leftover(entry):
            entry.unlink(missing_ok=True)
