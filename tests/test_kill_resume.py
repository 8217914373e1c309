"""A run killed hard (SIGKILL) part way and resumed ends exactly like an uninterrupted run.

``mmmu-eval run`` drives the OpenAI backend against the fault server (slow answers) on the
bundled sample. We kill it once some responses are stored, run the same command again (same
``--out``: a resume), and check: every item answered, none stored twice, no stored item asked
again, and the final responses equal those of a run that was never interrupted.
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

SAMPLE_ITEMS = 40  # MMMU validation items in the bundled sample


def command(url: str, out: Path, concurrency: int) -> list[str]:
    return [sys.executable, "-m", "mmmu_eval", "run", "--benchmark", "mmmu", "--split", "validation",
            "--data", "sample", "--model", "openai:fake-model", "--base-url", url,
            "--concurrency", str(concurrency), "--out", str(out)]


def stored(out: Path) -> list[dict]:
    """Complete lines of responses.jsonl (a torn last line is not a response)."""
    path = out / "responses.jsonl"
    if not path.exists():
        return []
    lines = []
    for line in path.read_text().splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return lines


def final(out: Path) -> dict[str, tuple[str, str]]:
    """Item id -> (status, text) of the last record per item, as the store reads them."""
    return {line["item_id"]: (line["status"], line["text"]) for line in stored(out)}


def test_sigkill_part_way_then_resume_equals_an_uninterrupted_run(tmp_path):
    with FaultServer(latency=0.2, fault_rate=0.0) as server:
        reference = tmp_path / "reference"
        done = subprocess.run(command(server.url, reference, 16), env=offline_environment(),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]

        out = tmp_path / "killed"
        kill_when(command(server.url, out, 2), lambda: len(stored(out)) >= 8, what="the run stored nothing")
        before = {line["item_id"] for line in stored(out) if line["status"] == "ok"}
        assert 8 <= len(before) < SAMPLE_ITEMS, "killed part way"
        asked_before = Counter(server.attempts)

        resumed = subprocess.run(command(server.url, out, 2), env=offline_environment(),
                                 capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        asked_after = Counter(server.attempts)

    lines = stored(out)
    ok_per_item = Counter(line["item_id"] for line in lines if line["status"] == "ok")
    assert len(ok_per_item) == SAMPLE_ITEMS, "none lost"
    assert max(ok_per_item.values()) == 1, "none answered twice"
    assert final(out) == final(reference), "same responses as the uninterrupted run"
    # Items stored before the kill were not asked again: the server saw no new request for them.
    reference_lines = {line["item_id"]: line for line in stored(reference)}
    assert len(reference_lines) == SAMPLE_ITEMS
    new_requests = asked_after - asked_before
    assert sum(new_requests.values()) == SAMPLE_ITEMS - len(before) + 1, \
        "on resume the server saw the missing items and one preflight probe, nothing else"
