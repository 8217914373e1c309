"""A suite killed hard (SIGKILL) part way and run again finishes every run, each item answered once.

``mmmu-eval suite`` drives the OpenAI backend against the fault server (slow answers) on the
bundled sample, its seven runs asking at the same time through one backend. We kill it once some
responses are stored across the runs, run the same command again, and check: every run
complete, every item of every run answered exactly once, no stored item asked again, and the
Table 1 row equal to that of a suite never interrupted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fakes.fault_server import FaultServer
from fakes.processes import kill_when, offline_environment

pytestmark = pytest.mark.slow

ITEMS = {"standard-4": 24, "standard-10": 24, "vision": 24, "mmmu-validation": 40}


def command(url: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "mmmu_eval", "suite", "--data", "sample", "--model", "openai:fake-model",
            "--base-url", url, "--concurrency", "4", "--bootstrap", "50", "--no-html", "--out", str(out)]


def lines(run: Path) -> list[dict]:
    path = run / "responses.jsonl"
    out = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a torn last line is not a response
    return out


def stored(out: Path) -> int:
    return sum(len(lines(run)) for run in out.iterdir() if run.is_dir()) if out.exists() else 0


def test_sigkill_part_way_then_the_same_command_finishes_every_run_once(tmp_path):
    with FaultServer(latency=0.03, fault_rate=0.0) as server:
        reference = tmp_path / "reference"
        done = subprocess.run(command(server.url, reference), env=offline_environment(), capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]

        out = tmp_path / "killed"
        kill_when(command(server.url, out), lambda: stored(out) >= 30, what="the suite stored 30 responses", timeout=90)
        before = {run.name: {x["item_id"] for x in lines(run) if x["status"] == "ok"} for run in out.iterdir() if run.is_dir()}
        total = sum(len(v) for v in before.values())
        assert 30 <= total < 6 * 24 + 40, "killed part way"
        assert not (out / "suite.json").exists() or json.loads((out / "suite.json").read_text())["status"] == "running"
        asked_before = Counter(server.attempts)

        resumed = subprocess.run(command(server.url, out), env=offline_environment(), capture_output=True, text=True, timeout=180)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        asked_after = Counter(server.attempts)

    summary = json.loads((out / "suite.json").read_text())
    assert summary["status"] == "complete" and all(r["complete"] for r in summary["runs"].values())
    assert len(summary["runs"]) == 7
    for name in summary["runs"]:
        ok = Counter(x["item_id"] for x in lines(out / name) if x["status"] == "ok")
        size = ITEMS["mmmu-validation" if name.startswith("mmmu") else name.rsplit("-", 1)[0]]
        assert len(ok) == size and max(ok.values()) == 1, name
    reference_summary = json.loads((reference / "suite.json").read_text())
    strip = lambda t: {k: (v or {}).get("value") for k, v in t.items() if k in t["columns"]}  # noqa: E731
    assert strip(summary["table1"]) == strip(reference_summary["table1"])
    # On the rerun the server saw only the items not stored before, plus one probe per run.
    new = sum((asked_after - asked_before).values())
    assert new == (6 * 24 + 40) - total + 7
