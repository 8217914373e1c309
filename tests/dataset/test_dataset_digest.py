"""The dataset digest is sha256 of the files read, remembered per file set, never stale."""

from __future__ import annotations

import hashlib
import json
import os

from mmmu_eval.dataset import digest as digest_module
from mmmu_eval.dataset.digest import CACHE_FILE, files_digest


def sha(*paths) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()


def test_digest_is_remembered_and_recomputed_when_a_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("MMMU_EVAL_CACHE", str(tmp_path / "cache"))
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    a.write_bytes(b"first file")
    b.write_bytes(b"second file")
    assert files_digest([a, b]) == sha(a, b)
    cache = tmp_path / "cache" / CACHE_FILE
    (key,) = json.loads(cache.read_text())
    cache.write_text(json.dumps({key: "from-the-cache"}))
    assert files_digest([a, b]) == "from-the-cache", "a known file set is not read again"
    assert files_digest([b, a]) == sha(b, a), "order is part of the key"
    b.write_bytes(b"second file, rewritten")
    os.utime(b, ns=(b.stat().st_atime_ns, b.stat().st_mtime_ns + 1))
    assert files_digest([a, b]) == sha(a, b), "a rewritten file is hashed again"


def test_an_unwritable_cache_only_costs_the_hashing(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("MMMU_EVAL_CACHE", str(blocker / "cache"))
    a = tmp_path / "a.parquet"
    a.write_bytes(b"bytes")
    assert files_digest([a]) == files_digest([a]) == sha(a)


def test_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("MMMU_EVAL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert digest_module.cache_dir() == tmp_path / "mmmu-eval"
