"""A filter killed hard (SIGKILL) in the middle of its trials, run again, ends as if never stopped.

``mmmu-eval harden filter`` asks a served model (the fault server) in a subprocess. The server
holds every request after the first trial's probe and twelve answers (``hold_after``), so the
filter cannot finish before the kill however fast the machine is; it is killed once those twelve
are stored and both of its requests in flight have reached the server, then the same command
runs again. Every trial of every question ends with one answer, no stored answer is asked
again, and the decisions equal those of a filter that was never interrupted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fakes.fault_server import FaultServer
from fakes.processes import jsonl_records, kill_when, offline_environment
from fakes.mc_set import IDS, KnowsSome

pytestmark = pytest.mark.slow
TRIALS = 3


def command(data: Path, out: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "mmmu_eval", "harden", "filter", "--data", str(data), "--out", str(out),
            "--models", "openai:fake-model,frequent", "--base-url", url, "--trials", str(TRIALS), "--per-subject", "0",
            "--concurrency", "2"]


def stored(out: Path) -> list[dict]:
    """Every trial run's records (only a torn last line is not one: ``jsonl_records``)."""
    lines = []
    for path in sorted((out / "runs" / "filter").glob("m1-*/trial-*/responses.jsonl")):
        lines.extend({**record, "run": path.parent.name} for record in jsonl_records(path))
    return lines


def decisions(out: Path) -> dict[str, str]:
    record = json.loads((out / "harden.json").read_text())
    return {i: e["filter"]["decision"] for i, e in record["items"].items()}


def test_sigkill_in_the_middle_of_filter_then_the_same_command_finishes_it(mmmu_set, tmp_path):
    knows = {"validation_Art_1", "validation_Art_4", "validation_Math_2"}
    with FaultServer(fault_rate=0.0, answer=KnowsSome(knows)) as plain:
        reference = tmp_path / "reference"
        done = subprocess.run(command(mmmu_set, reference, plain.url), env=offline_environment(), capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]

    with FaultServer(fault_rate=0.0, answer=KnowsSome(knows), hold_after=1 + 12) as server:
        out = tmp_path / "killed"
        # Both requests in flight held: the killed process has nothing on its way that could reach
        # the server after the count below is taken.
        kill_when(command(mmmu_set, out, server.url), lambda: len(stored(out)) >= 12 and server.holding == 2,
                  what="twelve trials stored and two requests held", timeout=90)
        before = len([line for line in stored(out) if line["status"] == "ok"])
        assert before == 12, "killed part way, with the held answers not stored"
        assert not (out / "standard (4 options)").exists(), "nothing decided before the trials are done"
        asked_before = server.received
        server.release()

        resumed = subprocess.run(command(mmmu_set, out, server.url), env=offline_environment(), capture_output=True, text=True, timeout=180)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        asked_after = server.received

    ok = Counter((line["run"], line["item_id"]) for line in stored(out) if line["status"] == "ok")
    assert len(ok) == TRIALS * len(IDS) and max(ok.values()) == 1, "every trial answered once"
    assert asked_after - asked_before == TRIALS * len(IDS) - before + TRIALS, \
        "on resume: the missing trials and one start-up probe per trial run, nothing else"
    assert decisions(out) == decisions(reference)
