"""Hostile servers (issue 29): each against a real HTTP server on loopback that misbehaves that way
(``fakes.fault_server``: ``HOSTILE_FAULTS`` and ``ANSWER_MODES``), through the command line a user
types, so a traceback, a lost answer or a stored secret shows as it would to them.

- A lone surrogate (``\\ud800``) anywhere in a server's text is stored as received, escaped, and
  every later command reads it back; before, run, suite and harden filter died storing it.
- Token counts out of range (``-1``, ``10**400``) are that attempt's error, named, and never
  reach responses.jsonl; before, the run directory refused to be read again.
- A key or header value the server echoes is never stored nor printed.
- Refusals are answers, scored and counted as their own cause.
- Command lines the run cannot honour are refused before a request.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.fault_server import REFUSAL_TEXT, FaultServer
from fakes.mc_set import KnowsSome, write_mmmu_set
from fakes.processes import offline_environment
from mmmu_eval.run.result import NO_SCORE_STATUS as NO_SCORE  # no item scored: exit 3 (issue 42)

pytestmark = pytest.mark.slow

#: A key a server echoes back; long enough to be a secret (``Redactor.MIN_SECRET``).
KEY = "sk-test-0123456789abcdefSECRET"
ORG = "org-TopSecretOrganisation42"


def cli(*args: str | bytes, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "mmmu_eval", *args], env=env or offline_environment(),
                          capture_output=True, timeout=timeout)
    stderr = done.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8", errors="replace"), stderr)


def run_command(url: str, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", "openai:fake-model", "--base-url", url, "--data", "sample", "--benchmark", "mmmu",
            "--split", "validation", "--limit", "6", "--out", str(out), "--max-attempts", "3", *extra]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- text: stored as received ----------------------------------------------------------------

def test_lone_surrogates_in_answers_and_errors_are_stored_as_received_and_read_back(tmp_path):
    """Before: ``UnicodeEncodeError`` storing the first answer; nothing stored, manifest left "running"."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.5, max_faults=1, faults=("surrogate-error",), answer_modes=("surrogate",)) as server:
        done = cli(*run_command(server.url, out))
        assert server.stats["surrogate-error"] > 0, "error messages with a lone surrogate were sent"
    assert done.returncode == 0, done.stderr[-2000:]
    stored = records(out / "responses.jsonl")
    assert len(stored) == 6 and all(r["status"] == "ok" for r in stored)
    for r in stored:  # exactly the characters the server's JSON escapes stand for
        assert r["text"].endswith(" \ud800") and r["reasoning"] == "first \ud800 then \udfff"
        assert r["finish_reason"] == "stop\udfff"
    retried = [r for r in stored if r["attempts"] == 2]
    assert retried and all(r["error"] == "HTTP 500: overloaded \ud800 try again" for r in retried)
    assert b"\\ud800" in (out / "responses.jsonl").read_bytes(), "stored as its JSON escape"
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    for command in (["report", str(out)], ["report", str(out), "--html"], ["score", str(out)], ["doctor", str(out)]):
        assert cli(*command).returncode == 0
    assert "\\ud800" in (out / "report.html").read_text(encoding="utf-8"), "the page shows the escape"
    with FaultServer(fault_rate=0.0, answer_modes=("surrogate",)) as server:
        again = cli(*run_command(server.url, out))
        assert again.returncode == 0 and server.received == 0, "a finished run asks nothing again"


def test_a_suite_stores_lone_surrogates(tmp_path):
    """Before: the suite's first run died storing an answer; every rerun died again."""
    out = tmp_path / "suite"
    with FaultServer(fault_rate=0.0, answer_modes=("surrogate",)) as server:
        done = cli("suite", "--model", "openai:fake-model", "--base-url", server.url, "--data", "sample",
                   "--limit", "1", "--bootstrap", "20", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    runs = [p for p in out.iterdir() if (p / "responses.jsonl").exists()]
    assert runs and all(r["text"].endswith("\ud800") for p in runs for r in records(p / "responses.jsonl"))
    assert json.loads((out / "suite.json").read_text())["status"] == "complete"


def test_harden_filter_stores_lone_surrogates(tmp_path):
    """Before: harden filter died storing the first trial answer."""
    data = write_mmmu_set(tmp_path / "mmmu")
    out = tmp_path / "hard"
    with FaultServer(fault_rate=0.0, answer=KnowsSome({"validation_Art_1"}), answer_modes=("surrogate",)) as server:
        done = cli("harden", "filter", "--data", str(data), "--out", str(out), "--models", "openai:fake-model",
                   "--base-url", server.url, "--trials", "1", "--per-subject", "0")
    assert done.returncode == 0, done.stderr[-2000:]
    stored = [r for path in (out / "runs" / "filter").glob("m*/trial-*/responses.jsonl") for r in records(path)]
    assert stored and all(r["status"] == "ok" and r["text"].endswith("\ud800") for r in stored)
    assert json.loads((out / "harden.json").read_text())["steps"]["filter"]["status"] == "complete"


@pytest.mark.parametrize("flag", ["--system-prompt", "--out", "--extra-body"])
def test_non_utf8_bytes_on_the_command_line_are_refused_naming_the_flag(tmp_path, flag):
    """Before: a ``UnicodeEncodeError`` traceback writing the manifest (after the server was contacted)."""
    value = {"--system-prompt": b"Be brief \xff", "--out": bytes(tmp_path) + b"/run-\xfe",
             "--extra-body": b'{"chat_template_kwargs": {"x": "\xff"}}'}[flag]
    with FaultServer(fault_rate=0.0) as server:
        args = [a for a in run_command(server.url, tmp_path / "plain") if a not in ("--out", str(tmp_path / "plain"))]
        done = cli(*args, flag, value)
        assert server.received == 0 and server.listings == 0, "refused before any request"
    assert done.returncode == 2
    assert f"{flag}: the value is not UTF-8 text" in done.stderr
    assert not (tmp_path / "plain").exists()


# -- numbers: out of range is the attempt's error ----------------------------------------------

@pytest.mark.parametrize("fault, named", [("negative-tokens", "usage.completion_tokens is -1"),
                                         ("huge-tokens", "usage.prompt_tokens is 100000... (401 digits)")])
def test_token_counts_out_of_range_are_the_attempts_error_and_never_poison_the_run(tmp_path, fault, named):
    """Before: ``completion_tokens: -1`` was stored and the run refused its own file for good;
    ``10**400`` with --price-input was an OverflowError on every rerun and report."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=9, faults=(fault,)) as server:
        first = cli(*run_command(server.url, out, "--max-attempts", "1", "--price-input", "2.5"))
    assert first.returncode == NO_SCORE, first.stderr[-2000:]
    stored = records(out / "responses.jsonl")
    assert len(stored) == 6 and {r["status"] for r in stored} == {"error"}
    assert all(named in r["error"] for r in stored), stored[0]["error"]
    assert all(r["prompt_tokens"] is None and r["completion_tokens"] is None for r in stored)
    assert cli("report", str(out)).returncode == 0
    # the same command against a server that answers finishes the run: nothing to edit by hand
    with FaultServer(fault_rate=1.0, max_faults=1, faults=(fault,)) as server:
        second = cli(*run_command(server.url, out, "--price-input", "2.5"))
    assert second.returncode == 0, second.stderr[-2000:]
    assert {r["item_id"] for r in records(out / "responses.jsonl") if r["status"] == "ok"} == {r["item_id"] for r in stored}
    cost = json.loads((out / "results.json").read_text())["usage"]["cost"]
    assert cost["input_usd"] is not None and cost["input_usd"] < 1


def test_a_probe_reporting_counts_out_of_range_records_none(tmp_path):
    """The start-up probe only needs an answer, but its reported tokens go into the manifest and
    the cost: before, 10**400 there was an OverflowError on every report."""
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=1, faults=("huge-tokens",), spare_probe=False) as server:
        done = cli(*run_command(server.url, out, "--price-input", "2.5"))
    assert done.returncode == 0, done.stderr[-2000:]
    preflight = json.loads((out / "manifest.json").read_text())["preflight"]
    assert preflight["probes"] == 1 and preflight["prompt_tokens"] is None
    assert cli("report", str(out)).returncode == 0


# -- secrets -----------------------------------------------------------------------------------

def test_a_key_and_headers_the_server_echoes_are_never_stored_nor_printed(tmp_path):
    """Before: the Authorization header echoed in an error body went to responses.jsonl,
    report.html and stderr."""
    out = tmp_path / "run"
    env = {**offline_environment(), "OPENAI_API_KEY": KEY, "OPENAI_ORG_ID": ORG}
    with FaultServer(fault_rate=1.0, max_faults=9, faults=("echo-headers",)) as server:
        done = cli(*run_command(server.url, out, "--max-attempts", "2"), env=env)
        assert server.stats["echo-headers"] >= 12
    with FaultServer(fault_rate=1.0, max_faults=9, faults=("echo-headers",), spare_probe=False) as server:
        probe = cli(*run_command(server.url, tmp_path / "probe", "--max-attempts", "2"), env=env)
    assert done.returncode == NO_SCORE and probe.returncode == 2
    report = cli("report", str(out), "--html", env=env)
    stored = records(out / "responses.jsonl")
    assert all("Authorization: [redacted]" in r["error"] and "OpenAI-Organization: [redacted]" in r["error"] for r in stored)
    for text in (done.stderr, probe.stderr, report.stderr, report.stdout, (out / "responses.jsonl").read_text(),
                 (out / "report.html").read_text(), (out / "manifest.json").read_text()):
        assert KEY not in text and ORG not in text
    assert "Authorization: [redacted]" in done.stderr and "Authorization: [redacted]" in probe.stderr


# -- refusals ----------------------------------------------------------------------------------

def test_refusals_are_answers_scored_as_the_official_parser_scores_them(tmp_path):
    """Before: ``content: null`` with ``refusal``, and ``finish_reason: content_filter``, were
    asked three times and stored as errors, never scored; every rerun exited 1."""
    out = tmp_path / "run"
    command = ["run", "--model", "openai:fake-model", "--data", "sample", "--benchmark", "mmmu-pro",
               "--setting", "standard-10", "--limit", "8", "--out", str(out)]
    with FaultServer(fault_rate=0.0, answer_modes=("refusal", "content-filter", "bom"), answer_modes_rate=0.9,
                     seed=3) as server:
        done = cli(*command, "--base-url", server.url)
        assert server.received == 1 + 8, "each item asked once: a refusal is no fault"
    assert done.returncode == 0, done.stderr[-2000:]
    stored = {r["item_id"]: r for r in records(out / "responses.jsonl")}
    refused = [r for r in stored.values() if r["text"] == REFUSAL_TEXT]
    filtered = [r for r in stored.values() if r["finish_reason"] == "content_filter"]
    assert refused and filtered, "the seed gives both kinds"
    assert all(r["status"] == "ok" and r["notes"][0].startswith("refusal: ") for r in refused + filtered)
    assert all(r["text"] == "" for r in filtered)
    results = json.loads((out / "results.json").read_text())
    assert results["coverage"]["errors"] == 0 and results["overall"]["n"] == 8
    verdicts = results["verdicts"]
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.scoring.mmmu_pro_parser import parse_pro_choice

    items = {it.id: it for it in load_benchmark("mmmu-pro", setting="standard-10", data="sample").items}
    for r in refused + filtered:  # no answer: the official parser's seeded random fallback answers
        item = items[r["item_id"]]
        assert parse_pro_choice("", item.choices, dict(zip(item.choices, item.options))) is None
        assert verdicts[r["item_id"]]["fallback"] is True and verdicts[r["item_id"]]["pred"] in item.choices
    # the refusal's "I" is a pronoun: read as an answer, the official parser would pick option I
    assert parse_pro_choice(REFUSAL_TEXT, tuple("ABCDEFGHIJ"), {}) == "I"
    doctor = cli("doctor", str(out), "--json", str(tmp_path / "d.json"))
    causes = {c["cause"]: c for c in json.loads((tmp_path / "d.json").read_text())["causes"]}
    assert causes["refusal"]["items"] == len(refused) + len(filtered)
    assert causes["refusal"]["detail"]["refused"] == len(refused)
    assert causes["refusal"]["detail"]["content_filter"] == len(filtered)
    assert "refusal" in doctor.stdout
    assert cli("report", str(out), "--html").returncode == 0
    assert ">refusal</td>" in (out / "report.html").read_text()


# -- refused up front ----------------------------------------------------------------------------

@pytest.mark.parametrize("body, words", [('{"messages": []}', "must not set 'messages'"),
                                         ('{"model": "other"}', "must not set 'model'"),
                                         ('{"stream": true}', '"stream": true')])
def test_an_extra_body_that_replaces_the_request_is_refused_before_a_request(tmp_path, body, words):
    """Before: ``{"messages": []}`` was an AssertionError traceback after the listing and probe went out."""
    with FaultServer(fault_rate=0.0) as server:
        done = cli(*run_command(server.url, tmp_path / "run", "--extra-body", body))
        assert server.received == 0 and server.listings == 0
    assert done.returncode == 2 and words in done.stderr


def test_plain_report_refuses_a_damaged_middle_line_as_the_other_readers_do(tmp_path):
    """Before: plain ``report`` printed the old results.json over a damaged responses.jsonl."""
    out = tmp_path / "run"
    assert cli("run", "--model", "random", "--data", "sample", "--limit", "4", "--out", str(out)).returncode == 0
    lines = (out / "responses.jsonl").read_text().splitlines(keepends=True)
    lines.insert(2, "this is no record\n")
    (out / "responses.jsonl").write_text("".join(lines))
    for command in (["report", str(out)], ["report", str(out), "--html"], ["score", str(out)], ["doctor", str(out)]):
        done = cli(*command)
        assert done.returncode == 1 and "responses.jsonl line 3: not valid JSON" in done.stderr, command


def test_a_huge_answer_is_stored_whole_and_shown_cut_in_the_page(tmp_path):
    """A server that answers megabytes: stored whole in responses.jsonl, read back, scored; the
    page and predictions.jsonl (copies, issue 40) show its first ``SHOWN_CHARACTERS`` and say how
    much is left out. (Its memory is measured by benchmarks/huge_answer.py.)"""
    from mmmu_eval.rendering.html_items import SHOWN_CHARACTERS
    from mmmu_eval.core.untrusted import capped

    huge = "Let me think step by step.\n" * 150_000 + "The answer is (A)."
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0, answer=lambda body: huge) as server:
        done = cli(*run_command(server.url, out, "--limit", "2", "--html"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert [r["text"] for r in records(out / "responses.jsonl")] == [huge, huge]
    assert [r["response"] for r in records(out / "predictions.jsonl")] == [capped(huge), capped(huge)]
    page = (out / "report.html").read_text()
    assert f"{len(huge) - SHOWN_CHARACTERS:,} more characters; the whole text is in responses.jsonl" in page
    assert len(page) < 2 * SHOWN_CHARACTERS * 2 + 2_000_000, "not the whole answer twice"


def test_an_extra_body_saved_with_a_bom_is_read(tmp_path):
    """``--extra-body "$(cat body.json)"`` of a file saved with a byte order mark."""
    with FaultServer(fault_rate=0.0) as server:
        done = cli(*run_command(server.url, tmp_path / "run", "--limit", "1",
                                "--extra-body", '\ufeff{"chat_template_kwargs": {"enable_thinking": false}}'))
        assert done.returncode == 0, done.stderr[-2000:]
        assert all(body["chat_template_kwargs"] == {"enable_thinking": False} for body in server.bodies)
