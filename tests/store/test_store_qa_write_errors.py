"""OS errors while writing a run directory are one line naming the path, never a traceback."""

from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore


def test_an_out_that_cannot_be_created_is_one_line(tmp_path, capsys):
    """`--out FILE/sub` (or /proc/x) ended in a NotADirectoryError traceback from mkdir."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    rc = main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(blocker / "sub")])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    assert f"{blocker / 'sub'}: cannot write (Not a directory); choose a writable --out" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux) to fill a disk for real")
def test_a_full_disk_while_appending_is_a_store_error(tmp_path):
    """A full disk mid-run raised a bare OSError out of the runner."""
    store = RunStore.open(tmp_path / "run", {"protocol": {"fingerprint": "f"}}, resume=False)
    responses = tmp_path / "run" / "responses.jsonl"
    # Every write: ENOSPC. (A link named responses.jsonl is refused before any write, issue 40,
    # so the open file itself is /dev/full, as the disk would answer mid-run.)
    store._file = open("/dev/full", "ab", buffering=0)
    with pytest.raises(StoreError) as caught:
        store.append(Response("dev_Art_1", "ok", text="A"))
    assert str(caught.value).startswith(f"{responses}: cannot write (No space left on device)")
    assert "run the same command again (what is stored is kept)" in str(caught.value)
