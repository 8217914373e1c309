"""A run killed hard (SIGKILL) part way and resumed ends exactly like an uninterrupted run; a run
interrupted with Ctrl-C (SIGINT) exits 130 and keeps what it answered.

``mmmu-eval run`` drives the OpenAI backend against the fault server on the bundled sample. The
server holds every request after the first few (``hold_after``), so the run cannot finish before
the test stops it, however fast or slow the machine is. We kill it once those answers are stored,
run the same command again (same ``--out``: a resume), and check: every item answered, none
stored twice, no stored item asked again, and the final responses equal those of a run that was
never interrupted.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from fakes.fault_server import FaultServer, key_of, sample_requests
from fakes.processes import jsonl_records, offline_environment, signal_when

pytestmark = pytest.mark.slow

SAMPLE_ITEMS = 40  # MMMU validation items in the bundled sample
ANSWERED_BEFORE_THE_HOLD = 8


def command(url: str, out: Path, concurrency: int) -> list[str]:
    return [sys.executable, "-m", "mmmu_eval", "run", "--benchmark", "mmmu", "--split", "validation",
            "--data", "sample", "--model", "openai:fake-model", "--base-url", url,
            "--concurrency", str(concurrency), "--out", str(out)]


def stored(out: Path) -> list[dict]:
    """The records of responses.jsonl; only a torn last line is not one (``jsonl_records``)."""
    return jsonl_records(out / "responses.jsonl")


def final(out: Path) -> dict[str, tuple[str, str]]:
    """Item id -> (status, text) of the last record per item, as the store reads them."""
    return {line["item_id"]: (line["status"], line["text"]) for line in stored(out)}


def stop_when_held(server: FaultServer, out: Path, sig: int) -> tuple[int, str]:
    """Run ``mmmu-eval run``; once it has stored what the server answers before holding, send ``sig``."""
    return signal_when(command(server.url, out, 2), lambda: len(stored(out)) >= ANSWERED_BEFORE_THE_HOLD,
                       what=f"the run stored {ANSWERED_BEFORE_THE_HOLD} answers", sig=sig, timeout=120)


def test_stored_responses_tolerates_only_a_torn_last_line(tmp_path):
    """The helper itself: it once skipped every line that did not decode, hiding a damaged store."""
    good = json.dumps({"item_id": "a", "status": "ok", "text": "A"})
    (tmp_path / "responses.jsonl").write_text(f"{good}\n{good[:10]}")
    assert [r["item_id"] for r in stored(tmp_path)] == ["a"]
    (tmp_path / "responses.jsonl").write_text(f"{good}\n{good[:10]}\n{good}\n")
    with pytest.raises(AssertionError, match="line 2 is not a record"):
        stored(tmp_path)


def test_sigkill_part_way_then_resume_equals_an_uninterrupted_run(tmp_path):
    keys = {r.item_id: key_of(r) for r in sample_requests()}
    with FaultServer(fault_rate=0.0) as plain:
        reference = tmp_path / "reference"
        done = subprocess.run(command(plain.url, reference, 16), env=offline_environment(),
                              capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr[-3000:]

    # The preflight probe and eight items are answered; the requests after them wait.
    with FaultServer(fault_rate=0.0, hold_after=1 + ANSWERED_BEFORE_THE_HOLD) as server:
        out = tmp_path / "killed"
        stop_when_held(server, out, signal.SIGKILL)
        before = {line["item_id"] for line in stored(out) if line["status"] == "ok"}
        assert len(before) == ANSWERED_BEFORE_THE_HOLD, "killed part way, with the held answers not stored"
        server.release()
        asked_before = Counter(server.attempts)

        resumed = subprocess.run(command(server.url, out, 2), env=offline_environment(),
                                 capture_output=True, text=True, timeout=240)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        asked_after = Counter(server.attempts)

    lines = stored(out)
    ok_per_item = Counter(line["item_id"] for line in lines if line["status"] == "ok")
    assert len(ok_per_item) == SAMPLE_ITEMS, "none lost"
    assert max(ok_per_item.values()) == 1, "none answered twice"
    assert final(out) == final(reference), "same responses as the uninterrupted run"
    assert len(final(reference)) == SAMPLE_ITEMS
    # The server saw no new request for an item stored before the kill, and each missing item at
    # least once (a request held when the process died may reach the server late: it is an item's).
    new = asked_after - asked_before
    assert not {keys[i] for i in before} & set(new), "an item stored before the kill was asked again"
    assert {keys[i] for i in keys if i not in before} <= set(new)
    assert sum(n for key, n in new.items() if key not in keys.values()) == 1, "and one preflight probe"


def test_ctrl_c_exits_130_keeping_every_stored_answer_and_the_same_command_finishes(tmp_path):
    """Ctrl-C in a real `mmmu-eval run` process (SIGINT, not an exception raised in a test)."""
    with FaultServer(fault_rate=0.0, hold_after=1 + ANSWERED_BEFORE_THE_HOLD) as server:
        out = tmp_path / "run"
        status, message = stop_when_held(server, out, signal.SIGINT)
        assert status == 130, message[-3000:]
        assert (f"interrupted: {ANSWERED_BEFORE_THE_HOLD} of {SAMPLE_ITEMS} items have an answer stored in {out}"
                in " ".join(message.split())), message[-3000:]
        assert "Traceback" not in message
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["status"] == "interrupted"
        assert manifest["counts"]["ok"] == ANSWERED_BEFORE_THE_HOLD == len(stored(out))
        server.release()
        again = subprocess.run(command(server.url, out, 2), env=offline_environment(), capture_output=True, text=True,
                               timeout=240)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(final(out)) == SAMPLE_ITEMS and all(status == "ok" for status, _ in final(out).values())
