"""SIGTERM (``kill``, a scheduler's time limit, ``docker stop``) stops a command as Ctrl-C does
(issue 29): the answers so far stay stored, the manifest says ``interrupted`` (it said
``running``), and the same command finishes the run without asking anything twice."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fakes.fault_server import FaultServer
from fakes.processes import jsonl_records, offline_environment, signal_when

pytestmark = pytest.mark.slow


def test_sigterm_mid_run_is_an_interruption(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "mmmu_eval", "run", "--model", "openai:fake-model", "--data", "sample",
               "--benchmark", "mmmu", "--split", "validation", "--out", str(out), "--concurrency", "4"]
    with FaultServer(fault_rate=0.0, hold_after=9) as server:
        status, stderr = signal_when([*command, "--base-url", server.url], lambda: server.holding > 0,
                                     what="a held request", sig=signal.SIGTERM, timeout=120)
        assert status == 143 and "Traceback" not in stderr, stderr[-3000:]
        stored = re.search(r"interrupted: (\d+) of 40 items have an answer stored", stderr)
        assert stored and 1 <= int(stored[1]) <= 8, stderr[-3000:]
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["status"] == "interrupted" and manifest["counts"]["ok"] == int(stored[1])
        server.release()
        done = subprocess.run([*command, "--base-url", server.url], env=offline_environment(), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    answered = Counter(r["item_id"] for r in jsonl_records(out / "responses.jsonl") if r["status"] == "ok")
    assert len(answered) == 40 and max(answered.values()) == 1


def test_sigterm_mid_suite_is_an_interruption(tmp_path):
    out = tmp_path / "suite"
    command = [sys.executable, "-m", "mmmu_eval", "suite", "--model", "openai:fake-model", "--data", "sample",
               "--limit", "2", "--bootstrap", "20", "--out", str(out), "--concurrency", "2"]
    with FaultServer(fault_rate=0.0, hold_after=8) as server:
        status, stderr = signal_when([*command, "--base-url", server.url], lambda: server.holding > 0,
                                     what="a held request", sig=signal.SIGTERM, timeout=120)
        assert status == 143 and "Traceback" not in stderr, stderr[-3000:]
    statuses = {json.loads(p.read_text())["status"] for p in Path(out).glob("*/manifest.json")}
    assert "running" not in statuses, statuses
    assert json.loads((out / "suite.json").read_text())["status"] == "interrupted"
