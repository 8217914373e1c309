"""One writer, also for readers that write (issue 40): while another process holds a directory's
lock (as a running ``run`` does), ``merge`` refuses that shard naming the holder, ``score --save``
refuses the run, and ``report`` prints the figures as they stand, names the writer and writes
nothing. On main the merge took a stale snapshot of the shard (exit 1 with only a "failed
items" warning) and ``report`` printed old results with no word that a run was writing.

The holder is a real second process that takes the lock through ``hold_directory``, the way
``run`` takes it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fakes.processes import offline_environment
from mmmu_eval import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.run.merge_shards import merge_runs
from mmmu_eval.core.writer_lock import LOCK_FILE, writer_of

_HOLD = ("import sys\n"
         "from mmmu_eval.core.writer_lock import hold_directory\n"
         "with hold_directory(sys.argv[1], 'run'):\n"
         "    print('held', flush=True)\n"
         "    sys.stdin.read()\n")


@contextmanager
def held_by_another_process(path: Path) -> Iterator[int]:
    """``path``'s writer lock held by a second process while the block runs; its pid."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(path)], env=offline_environment(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def shards(tmp_path: Path) -> list[Path]:
    return [evaluate(model="random", benchmark="mmmu", split="dev", data="sample", subjects=["Art"],
                     shard=f"{k}/2", out=tmp_path / f"shard{k}").run_dir for k in (1, 2)]


def test_merge_refuses_a_shard_being_written(tmp_path):
    parts = shards(tmp_path)
    with held_by_another_process(parts[1]) as pid:
        with pytest.raises(StoreError, match=rf"shard2: is being written by process {pid} \(mmmu-eval run on .*\); "
                                             "a merge now would take only the answers it holds so far"):
            merge_runs(parts, tmp_path / "merged")
    assert not (tmp_path / "merged").exists()
    assert merge_runs(parts, tmp_path / "merged").is_dir()  # the writer gone, the same merge goes through


def test_report_of_a_run_being_written_prints_and_writes_nothing(tmp_path, capsys):
    run = evaluate(model="random", benchmark="mmmu", split="dev", data="sample", subjects=["Art"],
                   out=tmp_path / "run").run_dir
    (run / "report.html").unlink()
    (run / "results.json").unlink()  # report would rebuild and save it
    before = sorted(p.name for p in run.iterdir())
    with held_by_another_process(run) as pid:
        assert writer_of(run) is not None and f"process {pid}" in writer_of(run)
        assert main(["report", str(run), "--html"]) == 0
        captured = capsys.readouterr()
        assert f"being written by process {pid}" in captured.err and "nothing was written" in captured.err
        assert "Overall" in captured.out or "overall" in captured.out.lower()
        assert sorted(p.name for p in run.iterdir() if p.name != LOCK_FILE) == before  # the holder's lock aside
    assert writer_of(run) is None
    assert main(["report", str(run), "--html"]) == 0
    assert (run / "report.html").is_file() and (run / "results.json").is_file()
    assert not (run / LOCK_FILE).exists()  # the report's own holding leaves nothing behind


def test_score_save_refuses_a_run_being_written(tmp_path, capsys):
    run = evaluate(model="random", benchmark="mmmu", split="dev", data="sample", subjects=["Art"],
                   out=tmp_path / "run").run_dir
    manifest = (run / "manifest.json").read_bytes()
    with held_by_another_process(run) as pid:
        assert main(["score", str(run), "--fallback", "none", "--save"]) == 1
        err = capsys.readouterr().err
        assert f"is being written by process {pid}" in err and "its scoring cannot be saved" in err
        assert (run / "manifest.json").read_bytes() == manifest
        assert main(["score", str(run), "--fallback", "none"]) == 0  # a view writes nothing: allowed
    assert main(["score", str(run), "--fallback", "none", "--save"]) == 0
    assert (run / "manifest.json").read_bytes() != manifest
