"""One writer per directory (issue 29): two processes started on one directory against a real
HTTP server. The second is refused at once, naming the first one's pid, before it sends anything
(not even the model listing); the first finishes, and no item is asked twice. A SIGKILLed holder
leaves nothing to clean, and a read-only ``--out`` fails before the listing and the probe.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import write_mmmu_set
from fakes.processes import jsonl_records, offline_environment
from mmmu_eval.core.writer_lock import LOCK_FILE
from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.writer_lock import hold_directory

pytestmark = pytest.mark.slow

FLAGS = ["--max-attempts", "2", "--concurrency", "4"]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "mmmu_eval", *args]


def run_command(url: str, out: Path) -> list[str]:
    return cli("run", "--model", "openai:fake-model", "--base-url", url, "--data", "sample", "--benchmark", "mmmu",
               "--split", "validation", "--out", str(out), *FLAGS)


def first_holds_requests(command: list[str], server: FaultServer, log: Path) -> subprocess.Popen:
    """Start ``command`` and wait until the server holds one of its requests (it is mid-run)."""
    first = subprocess.Popen(command, env=offline_environment(), stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    deadline = time.monotonic() + 120
    while server.holding == 0:
        assert first.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, "the first process reached the server"
        time.sleep(0.02)
    return first


def refused_at_once(command: Callable[[str], list[str]], holder: int) -> str:
    """Run ``command`` as the second writer, against a server of its own that witnesses what it
    sends: refused, naming ``holder``, having sent nothing (not even the model listing)."""
    with FaultServer(fault_rate=0.0) as witness:
        started = time.monotonic()
        second = subprocess.run(command(witness.url), env=offline_environment(), capture_output=True, text=True,
                                timeout=120)
        assert second.returncode == 1, second.stderr[-3000:]
        assert "Traceback" not in second.stderr
        assert f"is being written by process {holder} " in second.stderr, second.stderr
        assert (witness.listings, witness.received) == (0, 0), "the second process sent nothing"
        assert time.monotonic() - started < 60
    return second.stderr


def finish(first: subprocess.Popen, server: FaultServer, log: Path, *, times: int | None = 1) -> None:
    """Let the first process finish; then every item was asked ``times`` times, no more (None:
    the items' prompts are not told apart by the server; the stored answers are checked)."""
    server.release()
    assert first.wait(timeout=240) == 0, log.read_text()[-3000:]
    if times is None:
        return
    asked = Counter({key: n for key, n in server.attempts.items() if not key.startswith(PROBE)})
    assert set(asked.values()) == {times}, "no item asked twice"


#: The start-up probe's text (one per run): not an item.
PROBE = "Reply with one letter."


def test_two_runs_on_one_directory(tmp_path):
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, hold_after=5) as server:
        first = first_holds_requests(run_command(server.url, out), server, tmp_path / "first.log")
        assert json.loads((out / LOCK_FILE).read_text())["pid"] == first.pid
        refused_at_once(lambda url: run_command(url, out), first.pid)
        finish(first, server, tmp_path / "first.log")
        assert server.listings == 1
    answered = Counter(r["item_id"] for r in jsonl_records(out / "responses.jsonl"))
    assert len(answered) == len(json.loads((out / "manifest.json").read_text())["item_ids"])
    assert max(answered.values()) == 1
    assert not (out / LOCK_FILE).exists(), "the holder removes its lock file when done"


def test_two_suites_on_one_directory(tmp_path):
    out = tmp_path / "suite"

    def command(url: str) -> list[str]:
        return cli("suite", "--model", "openai:fake-model", "--base-url", url, "--data", "sample", "--limit", "2",
                   "--bootstrap", "20", "--out", str(out), *FLAGS)

    with FaultServer(fault_rate=0.0, hold_after=4) as server:
        first = first_holds_requests(command(server.url), server, tmp_path / "first.log")
        refused_at_once(command, first.pid)
        finish(first, server, tmp_path / "first.log", times=None)  # two runs may ask one text
        assert server.received == server.stats["answered"], "no failure, so no retry"
    runs = sorted(out.glob("*/responses.jsonl"))
    assert len(runs) >= 4
    asked = sum(len(json.loads((p.parent / "manifest.json").read_text())["item_ids"]) + 1 for p in runs)  # + the probe
    assert server.received == asked, "every item of every run asked once, and one probe per run"
    for path in runs:
        assert max(Counter(r["item_id"] for r in jsonl_records(path)).values()) == 1


def test_two_harden_filters_on_one_directory(tmp_path):
    data = write_mmmu_set(tmp_path / "mmmu")
    out = tmp_path / "hard"

    def command(url: str) -> list[str]:
        return cli("harden", "filter", "--data", str(data), "--out", str(out), "--models", "openai:fake-model",
                   "--base-url", url, "--trials", "2", "--per-subject", "0", *FLAGS)

    with FaultServer(fault_rate=0.0, hold_after=6) as server:
        first = first_holds_requests(command(server.url), server, tmp_path / "first.log")
        refused_at_once(command, first.pid)
        finish(first, server, tmp_path / "first.log", times=2)  # two trials


HOLDER = """
import sys, time
from mmmu_eval.core.writer_lock import hold_directory
with hold_directory(sys.argv[1], "test"):
    print("held", flush=True)
    time.sleep(600)
"""


def holder(path: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], env=offline_environment(),
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_merge_is_refused_while_another_process_writes_its_out(tmp_path):
    out = tmp_path / "merged"
    other = holder(out)
    try:
        shard = tmp_path / "shard"
        done = subprocess.run(cli("merge", str(shard), "--out", str(out)), env=offline_environment(),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert f"is being written by process {other.pid} " in done.stderr, done.stderr
    finally:
        other.kill()
        other.wait()


def test_a_killed_holder_leaves_nothing_to_clean(tmp_path):
    out = tmp_path / "run"
    other = holder(out)
    with pytest.raises(StoreError, match=f"process {other.pid} "):
        with hold_directory(out, "run"):
            pass
    other.send_signal(signal.SIGKILL)
    other.wait()
    assert (out / LOCK_FILE).exists(), "a kill leaves the file"
    with hold_directory(out, "run"):  # but not the lock
        assert json.loads((out / LOCK_FILE).read_text())["pid"] == os.getpid()
    assert not (out / LOCK_FILE).exists()


def test_a_refused_new_run_leaves_no_folder(tmp_path):
    out = tmp_path / "a" / "run"
    with hold_directory(out, "run"):
        pass
    assert not (tmp_path / "a").exists(), "the folders it made are gone again, as nothing was written"


def test_nested_holding_in_one_call_is_one_holding(tmp_path):
    with hold_directory(tmp_path / "a", "harden all"):
        with hold_directory(tmp_path / "a", "harden filter"):
            pass
        assert (tmp_path / "a" / LOCK_FILE).exists()


@pytest.fixture
def read_only(tmp_path):
    """A directory this process cannot write in: mode 0555, or as root (which writes anywhere)
    the immutable attribute (``chattr +i``; skipped where the container does not allow it)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("root, and chattr +i is not allowed here: no read-only directory to try")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_read_only_out_fails_before_the_listing_and_the_probe(read_only):
    with FaultServer(fault_rate=0.0) as server:
        for out in (read_only, read_only / "run"):
            done = subprocess.run(run_command(server.url, out), env=offline_environment(),
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
            assert f"{out}: cannot write (" in done.stderr and "choose a writable --out" in done.stderr, done.stderr
        assert (server.listings, server.received) == (0, 0), "nothing was sent"
