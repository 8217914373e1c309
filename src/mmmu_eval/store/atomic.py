"""Temporary files for atomic writes, created with the user's umask.

Every file the package writes whole (``manifest.json``, ``results.json``, ``report.html``,
``suite.json``, ``harden.json``, a parquet config) is written to a temporary file beside its
target and renamed over it, so a crash never leaves half a file. ``tempfile.mkstemp`` creates
that file 0600 whatever the umask (it is meant for secrets), and the rename keeps the mode: the
results of a run on a shared machine came out unreadable to the user's group (issue 17). A file
made here is created with mode 0666 less the umask, as ``open(path, "w")`` would make it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["temporary_beside"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def temporary_beside(target: Path, suffix: str = ".tmp") -> tuple[int, str]:
    """A new, empty file in ``target``'s directory (a hidden name that starts with its own);
    its descriptor, open for writing, and its path. Rename it over ``target`` when written."""
    folder = target.parent
    while True:
        path = folder / f".{target.name}.{secrets.token_hex(6)}{suffix}"
        try:
            return os.open(path, _FLAGS, 0o666), str(path)
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
