"""The resume check covers what changes an answer or a verdict (issue 29): the image scaling
(``--max-image-pixels``), the data's bytes (another snapshot: both digests named; continued only
with ``--allow-different-data``, which the manifest records) and the ``--answers`` file. Each is
refused before a request (the server sees nothing), and the protocol fingerprint, which none of
them is part of, stays what it was.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import write_mmmu_set
from fakes.processes import offline_environment

pytestmark = pytest.mark.slow


def run(url: str, out: Path, *flags: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "mmmu_eval", "run", "--model", "openai:fake-model", "--base-url", url,
               "--benchmark", "mmmu", "--out", str(out), "--concurrency", "2", *flags]
    return subprocess.run(command, env=offline_environment(), capture_output=True, text=True, timeout=300)


def refused(server: FaultServer, done: subprocess.CompletedProcess, *texts: str) -> None:
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    for text in texts:
        assert text in done.stderr, done.stderr
    assert server.listings == 1 and server.received == 4, "the refused resume sent nothing"


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_another_image_scaling_is_refused(tmp_path):
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        assert run(server.url, out, "--data", "sample", "--split", "validation", "--limit", "3").returncode == 0
        fingerprint = manifest(out)["protocol"]["fingerprint"]
        done = run(server.url, out, "--data", "sample", "--split", "validation", "--limit", "6",
                   "--max-image-pixels", "10000")
        refused(server, done, "holds a run asked with --max-image-pixels unset, not 10000",
                "Rerun with --max-image-pixels unset to continue")
    assert manifest(out)["config"]["max_image_pixels"] is None, "the manifest does not claim the new value"
    assert manifest(out)["protocol"]["fingerprint"] == fingerprint


def test_another_snapshot_is_refused_naming_both_digests_unless_allowed(tmp_path):
    first, second = write_mmmu_set(tmp_path / "a"), write_mmmu_set(tmp_path / "b", bad_rows=True)
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        assert run(server.url, out, "--data", str(first), "--limit", "3").returncode == 0
        old = manifest(out)["dataset"]["digest"]
        done = run(server.url, out, "--data", str(second), "--limit", "6")
        assert old in done.stderr
        refused(server, done, f"holds a run on data with digest {old}, but the data read now has digest ",
                "pass --allow-different-data to continue anyway")
        new = done.stderr.split("the data read now has digest ")[1].split()[0]
        assert new != old and len(new) == len(old)

        allowed = run(server.url, out, "--data", str(second), "--limit", "6", "--allow-different-data")
        assert allowed.returncode == 0, allowed.stderr[-3000:]
        assert server.received == 4 + 1 + 3, "the probe, and the three new items"
    record = manifest(out)
    assert record["dataset"]["digest"] == new
    assert [(c["what"], c["from_digest"], c["to_digest"], c["session"]) for c in record["data_changes"]] == [
        ("data", old, new, 2)]


def test_another_answers_file_is_refused(tmp_path):
    from mmmu_eval.dataset.load import load_benchmark

    items = load_benchmark("mmmu", split="validation", data="sample").items[:6]
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({it.id: {"question_type": "multiple-choice", "ground_truth": "A"} for it in items}))
    out = tmp_path / "run"
    flags = ("--data", "sample", "--split", "validation", "--answers", str(answers))  # answer_dict_val.json
    with FaultServer(fault_rate=0.0) as server:
        assert run(server.url, out, *flags, "--limit", "3").returncode == 0
        old = manifest(out)["answers_file"]["digest"]
        answers.write_text(json.dumps({it.id: {"question_type": "multiple-choice", "ground_truth": "B"} for it in items}))
        done = run(server.url, out, *flags, "--limit", "6")
        refused(server, done, f"holds a run on answers file with digest {old}, but the answers file read now has digest")


def test_an_unchanged_resume_still_continues(tmp_path):
    """The checks refuse only a change: the same command, and an older manifest without the
    new records, continue as before."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        assert run(server.url, out, "--data", "sample", "--split", "validation", "--limit", "3").returncode == 0
        record = manifest(out)
        for key in ("probe_timeout", "allow_different_data"):  # a run made before these settings
            del record["config"][key]
        (out / "manifest.json").write_text(json.dumps(record))
        done = run(server.url, out, "--data", "sample", "--split", "validation", "--limit", "6")
        assert done.returncode == 0, done.stderr[-3000:]
        assert server.received == 4 + 1 + 3
    assert "data_changes" not in manifest(out)
