"""A server's wire faults (issue 40) through the command line a user types, against a real HTTP
server on loopback (``fakes/wire_faults.py``), so aiohttp reads them as it reads a real server.

Each fault is the first attempt of every item (``max_faults=1``); what a run keeps of it:

- a gzip bomb (1 MB inflating to 1 GiB) and an endless chunked body: the attempt fails, named
  ("answer exceeded N bytes"), the item is an error; the same command asks it again;
- a 3xx carrying a completion, and a redirect: no answer; the redirect named with where it
  points (without the credentials the server put in it) and never followed;
- JSON nested 100,000 deep, and a 5,000-digit number: a malformed answer, asked again at once;
- a base URL with ``user:password@``: sent as Basic auth, and written nowhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.fault_server import FaultServer
from fakes.processes import offline_environment
from mmmu_eval.run.result import NO_SCORE_STATUS as NO_SCORE  # no item scored: exit 3 (issue 42)

pytestmark = pytest.mark.slow

USER, PASSWORD = "evaluator", "pw-Secret-4242"


def run(url: str, out: Path, *extra: str, verbose: bool = False) -> subprocess.CompletedProcess:
    env = offline_environment()
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run([sys.executable, "-m", "mmmu_eval", *(["-v"] if verbose else []), "run", "--model", "openai:fake-model", "--base-url", url,
                           "--data", "sample", "--limit", "2", "--concurrency", "2", "--max-attempts", "3",
                           "--out", str(out), *extra], env=env, capture_output=True, text=True, timeout=240)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def stored(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("fault, error", [
    ("gzip-bomb", "answer exceeded 67108864 bytes (decoded); raise --max-response-bytes"),
    ("endless", "answer exceeded 67108864 bytes (on the wire); raise --max-response-bytes"),
    ("3xx-body", "HTTP 302: a redirect without a Location, not an answer; check --base-url"),
])
def test_an_answer_no_client_may_take_is_the_items_error_and_asked_again(tmp_path, fault, error):
    """Before: the bomb and the 302 were stored as answers (the bomb after taking the run to 2.2 GB);
    the endless body grew without bound until --request-timeout."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=1, faults=(fault,)) as server:
        first = run(server.url, out)
        assert first.returncode == NO_SCORE and server.stats[fault] == 2, first.stderr[-2000:]
        assert [(r["status"], r["attempts"], r["error"][:len(error)]) for r in stored(out)] == [("error", 1, error)] * 2
        assert run(server.url, out).returncode == 0, "the same command asks the items again"
    assert sorted(r["status"] for r in stored(out)) == ["error", "error", "ok", "ok"]


def test_a_redirect_is_named_and_never_followed(tmp_path):
    """Before: a 308 was "cut short (0 characters)" and retried, its Location never named."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=1, faults=("redirect",), basic_auth=(USER, PASSWORD)) as server:
        done = run(server.url_with_credentials, out)
        assert server.stats["redirect"] == 2 and server.stats["followed"] == 0
    moved = f"http://127.0.0.1:{server.port}/moved/v1"
    assert {r["error"] for r in stored(out)} == {
        f"HTTP 308: redirected to {moved}/chat/completions; set --base-url to {moved} (not followed: the key would go along)"}
    assert f"redirected to {moved}/chat/completions" in done.stderr and PASSWORD not in done.stderr


@pytest.mark.parametrize("fault", ["deep-json", "huge-int"])
def test_json_too_deep_or_too_large_is_a_malformed_answer_asked_again(tmp_path, fault):
    """Before: JSON nested 100,000 deep was a final error (RecursionError), never retried."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=1, faults=(fault,)) as server:
        assert run(server.url, out).returncode == 0
    records = stored(out)
    assert [(r["status"], r["attempts"]) for r in records] == [("ok", 2)] * 2
    assert all(r["error"].startswith("malformed answer: the answer is not JSON we can read (") for r in records)


def test_credentials_in_the_base_url_are_sent_as_basic_auth_and_written_nowhere(tmp_path):
    """Before: "cannot reach ... start the server" while the server was up (aiohttp refused to send)."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, basic_auth=(USER, PASSWORD)) as server:
        done = run(server.url_with_credentials, out, "--html", verbose=True)
        assert done.returncode == 0, done.stderr[-2000:]
        assert server.stats["unauthorised"] == 0 and server.stats["answered"] == 3  # the probe and two items
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["base_urls"] == [server.url] and manifest["backend"]["base_urls"] == [server.url]
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes() and USER.encode() not in path.read_bytes(), path
    assert PASSWORD not in done.stderr + done.stdout


def test_wrong_credentials_in_the_base_url_are_named_as_refused(tmp_path):
    with FaultServer(fault_rate=0.0, basic_auth=(USER, PASSWORD)) as server:
        done = run(server.url_with_credentials.replace(PASSWORD, "wrong-password-1"), tmp_path / "run")
    assert done.returncode == 2 and "the server refused the user name and password in --base-url (HTTP 401" in done.stderr
    assert "wrong-password-1" not in done.stderr
