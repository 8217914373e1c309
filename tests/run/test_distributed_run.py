"""`mmmu-eval run` under a launcher: RANK / WORLD_SIZE / LOCAL_RANK from the environment, one
shard per rank under DIR/ranks/, rank 0 merging into DIR; a failed or killed rank stops the others.

The ranks here are real processes: two started by `python -m torch.distributed.run` (torchrun), or
two started by hand with the variables torchrun sets (so no launcher tears the survivor down, and
our own timeout has to). Kept to a handful of items: torch processes are heavy on a small machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fakes.fault_server import FaultServer
from fakes.ranks import assert_same_run, rank_env, start_rank, without_times
from fakes.served_model import free_port

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.run.distributed import Launch, RankError, RankGroup
from mmmu_eval.store.rundir import RunStore

pytestmark = pytest.mark.hf

SAMPLE = ["--data", "sample", "--benchmark", "mmmu", "--split", "dev"]


def _torchrun(args: list[str], *, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
               "-m", "mmmu_eval", "run", *args]
    return subprocess.run(command, env=rank_env(), capture_output=True, text=True, timeout=timeout)


# -- equality and resume, on the tiny offline model -------------------------------------------------

@pytest.fixture(scope="module")
def tiny_llava(hf_extra, tmp_path_factory) -> str:
    from fakes.tiny_models import build_tiny_llava

    return str(build_tiny_llava(tmp_path_factory.mktemp("llava") / "llava"))


def test_two_torchrun_ranks_equal_one_process_item_for_item_and_resume_asks_only_whats_missing(tiny_llava, tmp_path):
    common = [*SAMPLE, "--model", f"hf:{tiny_llava}", "--limit", "5", "--max-tokens", "3", "--device", "cpu",
              "--batch-size", "2", "--no-html"]
    single = subprocess.run([sys.executable, "-m", "mmmu_eval", "run", *common, "--out", str(tmp_path / "one")],
                            env=rank_env(), capture_output=True, text=True, timeout=240)
    assert single.returncode == 0, single.stderr[-3000:]
    done = _torchrun([*common, "--out", str(tmp_path / "two")])
    assert done.returncode == 0, done.stderr[-3000:]

    one = RunStore.read(tmp_path / "one")
    # Both ranks answered (shards 1/2 and 2/2 under DIR/ranks), and DIR holds the whole run, in order.
    shard_ids = [list(RunStore.read(tmp_path / "two" / "ranks" / f"rank-{k}-of-2").responses()) for k in (1, 2)]
    assert sorted(map(len, shard_ids)) == [2, 3]
    assert_same_run(tmp_path / "one", tmp_path / "two")
    # Rank 0 alone printed the headline; each rank printed its own progress.
    assert done.stdout.count("run directory:") == 1
    assert "rank 0/2: done" in done.stderr and "rank 1/2: done" in done.stderr

    # The same command on the finished run: nothing asked, no model loaded, on any rank.
    finished = _torchrun([*common, "--out", str(tmp_path / "two")])
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert f"{tmp_path / 'two'}: finished already: nothing asked" in finished.stdout
    assert "rank 0/2" not in finished.stderr and "rank 1/2" not in finished.stderr

    # A launch killed before its merge, in the middle of writing rank 1's last answer: DIR holds
    # no merged run and the shard lacks its last line. The same command asks that one item
    # again, and only it, and the merged run is whole again.
    for entry in (tmp_path / "two").iterdir():
        if entry.name != "ranks":
            entry.unlink()
    shard = tmp_path / "two" / "ranks" / "rank-2-of-2" / "responses.jsonl"
    lines = shard.read_text().splitlines(keepends=True)
    lost = json.loads(lines[-1])["item_id"]
    shard.write_text("".join(lines[:-1]))
    again = _torchrun([*common, "--out", str(tmp_path / "two")])
    assert again.returncode == 0, again.stderr[-3000:]
    # Rank 1 resumed with one answer stored; rank 0's shard was finished: nothing asked, no model loaded.
    assert "rank 1/2: done 1/2" in again.stderr and "rank 1/2: done 2/2" in again.stderr
    assert "rank 0/2" not in again.stderr
    assert len(shard.read_text().splitlines()) == len(lines)  # one line asked again, nothing else
    assert RunStore.read(tmp_path / "two").responses()[lost].text == one.responses()[lost].text
    assert (tmp_path / "two" / "predictions.jsonl").read_text() == (tmp_path / "one" / "predictions.jsonl").read_text()


# -- a rank that fails or is killed -----------------------------------------------------------------

def test_a_rank_killed_under_torchrun_stops_the_survivor_at_once_naming_it_without_a_traceback(tiny_llava, tmp_path):
    """torchrun SIGTERMs the survivors once a worker dies: the survivor (asking its shard, its model
    decoding in a worker thread) leaves at once, its last line naming the rank whose process is
    gone, with no traceback of ours (the backend closed under a decoding thread printed one)."""
    args = [*SAMPLE, "--model", f"hf:{tiny_llava}", "--max-tokens", "300", "--batch-size", "2", "--device", "cpu",
            "--no-html", "--out", str(tmp_path / "run")]
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
               "-m", "mmmu_eval", "run", *args]
    launcher = subprocess.Popen(command, env=rank_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=lambda: lines.extend((time.monotonic(), line) for line in launcher.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 180
        while sum("done 0/" in line for _, line in list(lines)) < 2:  # both ranks asking
            assert launcher.poll() is None and time.monotonic() < deadline, "".join(l for _, l in lines)[-3000:]
            time.sleep(0.05)
        workers = Path(f"/proc/{launcher.pid}/task/{launcher.pid}/children").read_text().split()
        victim = next(int(w) for w in workers if b"\x00RANK=1\x00" in b"\x00" + Path(f"/proc/{w}/environ").read_bytes())
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        launcher.wait(timeout=120)
        reader.join(10)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
    text = "".join(line for _, line in lines)
    ours = [(at, line) for at, line in lines if "rank 0 of 2 was stopped by SIGTERM" in line]
    assert ours, text[-3000:]
    assert f"after rank 1 of 2 (pid {victim}) ended without a word" in ours[0][1]
    assert ours[0][0] - killed_at < 5  # measured 0.2 s: torchrun's notice, then ours at once (no wait for a status)
    assert "NoneType" not in text and "generation failed" not in text
    assert not [line for line in text.splitlines() if line.lstrip().startswith("File") and "mmmu_eval" in line]



def test_a_killed_rank_stops_the_other_within_the_timeout_naming_it_and_a_rerun_finishes(tmp_path):
    """Both ranks ask a slow server (8 s an answer, one at a time); rank 1 is killed with no
    launcher to notice: rank 0 stops within --rank-timeout, naming rank 1, its own shard valid."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, latency=8.0) as server:
        args = [*SAMPLE, "--model", "openai:fake-model", "--base-url", server.url, "--limit", "10",
                "--concurrency", "1", "--out", str(out), "--rank-timeout", "4"]
        port = free_port()
        ranks = [start_rank(0, 2, port, ["run", *args]), start_rank(1, 2, port, ["run", *args])]
        try:
            deadline = time.monotonic() + 120
            while not all((out / "ranks" / f"rank-{k}-of-2" / "manifest.json").exists() for k in (1, 2)):
                assert all(r.poll() is None for r in ranks), ranks[0].communicate()[1][-2000:]
                assert time.monotonic() < deadline, "both ranks asking within 120 s"
                time.sleep(0.05)
            ranks[1].send_signal(signal.SIGKILL)
            killed_at = time.monotonic()
            _, err = ranks[0].communicate(timeout=60)
            waited = time.monotonic() - killed_at
        finally:
            for r in ranks:
                if r.poll() is None:
                    r.kill()
                r.communicate()
    assert ranks[0].returncode == 1
    assert "rank 1 of 2 stopped answering" in err and "rank-1-of-2" in err, err[-2000:]
    # The timeout, plus a beat interval and the process's exit, with room for a loaded machine: rank 0
    # still had about 40 s of answers to wait for, so stopping before 30 s is the timeout's doing.
    assert 4 <= waited < 30
    shard = RunStore.read(out / "ranks" / "rank-1-of-2")
    assert shard.manifest()["status"] == "interrupted"
    assert not (out / "manifest.json").exists()  # nothing merged from a partial set

    with FaultServer(fault_rate=0.0) as server:
        args = [*SAMPLE, "--model", "openai:fake-model", "--base-url", server.url, "--limit", "10", "--out", str(out)]
        port = free_port()
        ranks = [start_rank(0, 2, port, ["run", *args]), start_rank(1, 2, port, ["run", *args])]
        outputs = [r.communicate(timeout=120) for r in ranks]
    assert [r.returncode for r in ranks] == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    assert RunStore.read(out).manifest()["counts"] == {"items": 10, "ok": 10, "truncated": 0, "error": 0, "missing": 0}


def test_a_rank_whose_main_thread_blocks_is_named_as_making_no_progress(tmp_path):
    """Rank 1's model blocks the event loop's thread in ``time.sleep`` (its process lives, its side
    thread runs): rank 0 finishes its shard, then stops after --rank-timeout of no progress, naming
    rank 1 and where it stands, not "stopped answering"."""
    out = tmp_path / "run"
    port = free_port()
    program = (str(Path(__file__).parents[1] / "fakes" / "stuck_rank.py"),)
    ranks = [start_rank(r, 2, port, [str(out), "3"], program=program) for r in (0, 1)]
    try:
        _, err = ranks[0].communicate(timeout=120)
        assert ranks[1].poll() is None  # the stuck rank still runs: only its work stopped
    finally:
        for r in ranks:
            if r.poll() is None:
                r.kill()
            r.communicate()
    assert ranks[0].returncode == 1, err[-3000:]
    assert "rank 1 of 2 made no progress for 3 s" in err, err[-3000:]
    assert "stuck_rank.py:" in err and "in generate" in err  # where its main thread stands
    assert "stopped answering" not in err


def test_a_failing_rank_stops_the_other_with_its_error(tmp_path):
    """Rank 1's shard directory is damaged: rank 1 stops with the store's error at once, and rank 0
    says which rank failed and why instead of waiting for it."""
    out = tmp_path / "run"
    (out / "ranks" / "rank-2-of-2").mkdir(parents=True)
    (out / "ranks" / "rank-2-of-2" / "manifest.json").write_text("{bad")
    port = free_port()
    args = [*SAMPLE, "--model", "random", "--out", str(out), "--rank-timeout", "600"]
    ranks = [start_rank(0, 2, port, ["run", *args]), start_rank(1, 2, port, ["run", *args])]
    outputs = [r.communicate(timeout=120) for r in ranks]
    assert [r.returncode for r in ranks] == [1, 1]
    assert "rank 1 of 2 failed:" in outputs[0][1] and "manifest.json: cannot be read" in outputs[0][1], outputs[0][1]
    assert RunStore.read(out / "ranks" / "rank-1-of-2").manifest()["counts"]["items"] == 10


# -- the pieces, in one process ---------------------------------------------------------------------

def test_launch_from_the_launchers_variables():
    assert Launch.from_env({}) is None
    assert Launch.from_env({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0"}) is None  # one process: a plain run
    launch = Launch.from_env({"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4"})
    assert (launch.rank, launch.world_size, launch.local_rank, launch.shard) == (5, 8, 1, (6, 8))
    with pytest.raises(ConfigError, match="out of range"):
        Launch.from_env({"RANK": "8", "WORLD_SIZE": "8"})
    with pytest.raises(ConfigError, match="whole numbers"):
        Launch.from_env({"RANK": "x", "WORLD_SIZE": "2"})


def test_launch_from_the_mpi_variables_accelerate_cpu_ranks_get():
    """`accelerate launch --cpu` over several processes goes through mpirun: no RANK, the MPI's own names."""
    openmpi = {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
               "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
    assert Launch.from_env(openmpi) == Launch(3, 4, 1, 2)
    assert Launch.from_env({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}) == Launch(1, 2, 1, 2)
    assert Launch.from_env({"MV2_COMM_WORLD_RANK": "0", "MV2_COMM_WORLD_SIZE": "2"}) == Launch(0, 2, 0, 2)
    # torchrun's names win where both are set (torchrun started inside an MPI allocation).
    assert Launch.from_env({**openmpi, "RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}).world_size == 2
    with pytest.raises(ConfigError, match="OMPI_COMM_WORLD_RANK=4, OMPI_COMM_WORLD_SIZE=4"):
        Launch.from_env({"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"})


def test_a_ranks_gpu_is_its_local_rank_and_its_shard_its_global_rank(monkeypatch, hf_extra):
    """Rank 1 of 2 on the second node (one process per node): cuda:0 there, shard 2/2, rank-2-of-2."""
    import torch

    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.run.launcher_ranks import rank_device, rank_dir

    chosen = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    second_node = Launch.from_env({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1"})
    assert rank_device(RunConfig(model="hf:/models/m"), second_node) == "cuda" and chosen == [0]
    assert second_node.shard == (2, 2) and rank_dir(Path("out"), second_node.rank, 2) == Path("out/ranks/rank-2-of-2")
    with pytest.raises(ConfigError, match="LOCAL_RANK 1 but torch sees 1 GPU"):
        rank_device(RunConfig(model="hf:/models/m"), Launch(1, 2, 1, 2))
    assert rank_device(RunConfig(model="hf:/models/m", device="cpu"), second_node) == "cpu"


def test_what_rank_0_announces_reaches_the_others_and_its_failure_stops_their_wait(hf_extra):
    (zero, one), _ = _pair()
    zero.announce("plan", '{"trials": 2}')
    assert one.wait_for("plan", poll=0) == '{"trials": 2}'
    (zero, one), _ = _pair()
    zero.post("failed", "--data: no usable item")
    with pytest.raises(RankError, match="rank 0 of 2 failed: --data: no usable item"):
        one.wait_for("plan", poll=0)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _pair(timeout: float = 10.0):
    import torch.distributed as dist

    store, clock = dist.HashStore(), _Clock()
    return [RankGroup(Launch(r, 2, r, 2), store, timeout=timeout, clock=clock) for r in (0, 1)], clock


def test_the_barrier_waits_for_a_slow_rank_that_still_beats_and_names_a_silent_one(hf_extra):
    (zero, one), clock = _pair()
    one.beat()
    assert zero.check() is False
    for _ in range(5):  # a minute of slow work, beating all along: never given up
        clock.now += 9
        one.beat()
        assert zero.check() is False
    clock.now += 11  # then silence for longer than the timeout
    with pytest.raises(RankError, match="rank 1 of 2 stopped answering: no sign of life for 10 s"):
        zero.check()


def test_the_barrier_returns_when_all_are_done_and_names_a_failed_rank(hf_extra):
    (zero, one), _ = _pair()
    one.post("done")
    zero.wait_for_all()
    (zero, one), _ = _pair()
    one.post("failed", "CUDA out of memory")
    with pytest.raises(RankError, match="rank 1 of 2 failed: CUDA out of memory"):
        zero.wait_for_all()


def test_shard_and_a_missing_out_are_refused_under_a_launcher():
    from mmmu_eval.run.launcher_ranks import evaluate_ranks

    launch = Launch(0, 2, 0, 2)
    with pytest.raises(ConfigError, match="drop shard="):
        evaluate_ranks({"model": "random", "shard": (1, 2), "out": Path("x")}, launch)
    with pytest.raises(ConfigError, match="needs out=DIR"):
        evaluate_ranks({"model": "random"}, launch)


def test_a_torchrun_suite_equals_the_one_process_suite(hf_extra, tmp_path):
    """Every rank runs the suite on its shard of every run; rank 0 merges each run and writes the
    study: suite.json as one process writes it, but for its times."""
    common = ["--model", "random", "--data", "sample", "--bootstrap", "50", "--no-html", "--limit", "6"]
    single = subprocess.run([sys.executable, "-m", "mmmu_eval", "suite", *common, "--out", str(tmp_path / "one")],
                            env=rank_env(), capture_output=True, text=True, timeout=240)
    assert single.returncode == 0, single.stderr[-3000:]
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
               "-m", "mmmu_eval", "suite", *common, "--out", str(tmp_path / "two")]
    done = subprocess.run(command, env=rank_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    one, two = (json.loads((tmp_path / d / "suite.json").read_text()) for d in ("one", "two"))
    assert without_times(two) == without_times(one)
    assert two["status"] == "complete" and len(two["runs"]) == 7
    assert (tmp_path / "two" / "ranks" / "rank-2-of-2" / "vision-cot" / "manifest.json").is_file()
    assert done.stdout.count("suite directory:") == 1


class _SlowStore:
    """A store whose calls from the beat thread take a while, as a loaded TCPStore's may."""

    def __init__(self, inner, delay: float) -> None:
        self.inner, self.delay = inner, delay
        self.entered = threading.Event()

    def __getattr__(self, name):
        call = getattr(self.inner, name)

        def slow(*args, **kwargs):
            if threading.current_thread().name == "mmmu-eval-ranks":
                self.entered.set()
                time.sleep(self.delay)
            return call(*args, **kwargs)
        return slow


def test_close_waits_for_the_beat_thread_to_leave_its_store_call(hf_extra):
    # A daemon thread still inside a store call when the interpreter finalizes aborts the process
    # (SIGABRT, "terminate called without an active exception") after its work was merged.
    import torch.distributed as dist

    store = _SlowStore(dist.HashStore(), delay=1.0)
    group = RankGroup(Launch(0, 1, 0, 1), store, timeout=0.5)  # a beat every 0.1 s
    group.watch(lambda: None)
    assert store.entered.wait(5)
    group.close()
    assert not group._thread.is_alive()
