"""The dataset digest a run records: sha256 of the files it read, in order, remembered per file set.

Hashing is what makes ``compare`` and ``merge`` able to say two runs read the same bytes, but it
reads every byte: about 0.3 s of CPU for the MMMU validation files and over a second for the test
split, spent before the first request of every run. The result depends only on the files, so it
is kept in a small cache keyed by each file's path, size and modification time (nanoseconds): a
file that is rewritten gets a new key and is hashed again. The cache lives in
``$MMMU_EVAL_CACHE`` (default ``$XDG_CACHE_HOME/mmmu-eval``, else ``~/.cache/mmmu-eval``); when it
cannot be read or written the digest is simply computed, never wrong.

>>> _ = Path("a.parquet").write_bytes(b"one"), Path("b.parquet").write_bytes(b"two")
>>> files_digest([Path("a.parquet"), Path("b.parquet")]) == hashlib.sha256(b"onetwo").hexdigest()
True
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Iterable

from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.jsonfile import loads

__all__ = ["cache_dir", "file_sha256", "files_digest"]

log = logging.getLogger(__name__)

CACHE_FILE = "dataset-digests.json"
#: Most file sets remembered; the oldest are forgotten first.
MAX_ENTRIES = 256


def cache_dir() -> Path:
    """Where mmmu-eval keeps what it may forget (the digest cache)."""
    if os.environ.get("MMMU_EVAL_CACHE"):
        return Path(os.environ["MMMU_EVAL_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mmmu-eval"


def files_digest(paths: Iterable[Path]) -> str:
    """sha256 over the bytes of ``paths`` in order (as one stream), from the cache when it knows them."""
    paths = list(paths)
    key = _key(paths)
    cached = _read_cache().get(key) if key else None
    if isinstance(cached, str):
        return cached
    digest = _stream_sha256(paths)
    if key:
        _remember(key, digest)
    return digest


def file_sha256(path: str | Path) -> str:
    """sha256 of one file's bytes, read in blocks and not remembered: for files that are no
    dataset (a harness's output, a file harden just wrote), whose digest is recorded once."""
    return _stream_sha256([Path(path)])


def _stream_sha256(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _key(paths: list[Path]) -> str | None:
    """What the digest depends on: each file's absolute path, size and mtime; None if one is gone."""
    try:
        parts = []
        for path in paths:
            st = path.stat()
            parts.append([str(path.resolve()), st.st_size, st.st_mtime_ns])
    except OSError:
        return None
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _read_cache() -> dict[str, object]:
    try:
        data = loads((cache_dir() / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember(key: str, digest: str) -> None:
    entries = _read_cache()
    entries.pop(key, None)
    entries[key] = digest
    while len(entries) > MAX_ENTRIES:
        entries.pop(next(iter(entries)))
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(folder / CACHE_FILE, json.JSONEncoder().iterencode(entries))
    except (OSError, StoreError) as exc:  # a read-only home, a linked cache file: hash again next time
        log.debug("cannot write the digest cache in %s: %s", folder, exc)
