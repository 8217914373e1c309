"""``atomic.write_atomically``: the one way a whole file is written (run files, harden's record,
report and rendered pages, the digest cache).

Before it, five copies wrote the temporary file, and three of them left it behind when the write
failed; here text, bytes and chunks make the same bytes with the umask's mode, and a failure in the
middle leaves the old file as it was and nothing beside it.
"""

from __future__ import annotations

import os
import stat

import pytest

from mmmu_eval.core.atomic import write_atomically


@pytest.fixture
def umask():
    old = os.umask(0o027)
    yield 0o027
    os.umask(old)


def test_text_bytes_and_chunks_make_the_same_file_with_the_umasks_mode(tmp_path, umask):
    text = "é\n{}\n"
    written = {
        "text": write_atomically(tmp_path / "text", text),
        "bytes": write_atomically(tmp_path / "bytes", text.encode("utf-8")),
        "chunks": write_atomically(tmp_path / "chunks", iter(["é\n", "{}", "\n"])),
    }
    assert {k: p.read_bytes() for k, p in written.items()} == dict.fromkeys(written, text.encode("utf-8"))
    assert {stat.S_IMODE(p.stat().st_mode) for p in written.values()} == {0o666 & ~umask}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bytes", "chunks", "text"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old\n", encoding="utf-8")

    def chunks():
        yield "half of the new"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, chunks())
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
