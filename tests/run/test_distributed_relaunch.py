"""A distributed run relaunched on another number of ranks is the same run (issue 41).

The ranks are real processes (the variables torchrun sets, `fakes.ranks.start_rank`) asking a
server that answers at random: every answer is a fresh draw, so an item asked twice would show
as a second answer, and a launch that replaced stored answers would change DIR. Each launch
counts the chat requests the server received (its start-up probes aside): a launch asks exactly
the items no earlier launch stored an answer for.
"""

from __future__ import annotations

import json
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes.fault_server import PROBE_TEXT, FaultServer, request_key
from fakes.ranks import rank_env, start_rank
from fakes.served_model import free_port

from mmmu_eval.store.rundir import RunStore

pytestmark = pytest.mark.hf

ITEMS = 7
ARGS = ["--data", "sample", "--benchmark", "mmmu", "--split", "dev", "--model", "openai:fake-model",
        "--limit", str(ITEMS), "--concurrency", "1", "--no-html"]


class RandomServer(FaultServer):
    """A server that draws every answer: a random letter and a random tag, never the same twice.
    ``key_of`` maps each answer it gave to the request it answered."""

    def __init__(self, **options: object) -> None:
        self.key_of: dict[str, str] = {}
        self.probes = 0
        super().__init__(fault_rate=0.0, answer=self._draw, **options)  # type: ignore[arg-type]

    def _draw(self, body: dict) -> str:
        answer = f"The answer is ({secrets.choice('ABCD')}). [{secrets.token_hex(8)}]"
        self.key_of[answer] = request_key(body)
        self.probes += request_key(body).startswith(PROBE_TEXT)
        return answer

    def asked(self) -> list[str]:
        """The keys of the item requests received so far (probes aside), held ones included."""
        keys = [request_key(b) for b in list(self.bodies)]
        return [k for k in keys if not k.startswith(PROBE_TEXT)]


def _launch(n: int, out: Path, server: FaultServer, *extra: str) -> list[tuple[int, str, str]]:
    port = free_port()
    ranks = [start_rank(r, n, port, ["run", *ARGS, "--base-url", server.url, "--out", str(out), *extra]) for r in range(n)]
    try:
        outputs = [r.communicate(timeout=180) for r in ranks]
    finally:
        for r in ranks:
            if r.poll() is None:
                r.kill()
                r.communicate()
    return [(r.returncode, o, e) for r, (o, e) in zip(ranks, outputs)]


def _launch_killed(n: int, out: Path, server: RandomServer) -> int:
    """``n`` ranks against ``server``, killed as ``_killed_when_waiting`` says; the probes answered before."""
    port = free_port()
    return _killed_when_waiting(
        [start_rank(r, n, port, ["run", *ARGS, "--base-url", server.url, "--out", str(out)]) for r in range(n)], out, server)


def _killed_when_waiting(processes: list[subprocess.Popen[str]], out: Path, server: RandomServer) -> int:
    """SIGKILL ``processes`` (asking ``server``, which holds every request after its first few)
    once some request is held and the answers stored stay the same for two seconds (every rank
    is then waiting on a held request, or done with its shard and waiting for the others).
    Returns the probes answered before the kill (a held one is answered after it, to no one)."""
    try:
        deadline, seen, since = time.monotonic() + 120, None, time.monotonic()
        while True:
            assert all(r.poll() is None for r in processes), [r.communicate()[1][-2000:] for r in processes]
            assert time.monotonic() < deadline, f"waiting on held requests (held {server.holding})"
            now = len(_lines(out))
            if now != seen:
                seen, since = now, time.monotonic()
            elif server.holding and time.monotonic() - since > 2:
                break
            time.sleep(0.1)
        probes = server.probes
    finally:
        for r in processes:
            r.send_signal(signal.SIGKILL)
            r.communicate()
        server.release()
    return probes


def _lines(out: Path) -> list[str]:
    return [line for path in sorted(out.rglob("responses.jsonl")) for line in path.read_text().splitlines()]


def _stored(out: Path) -> dict[str, str]:
    """Every stored answer text by item, over DIR and every shard left under DIR/ranks."""
    found: dict[str, str] = {}
    for manifest in sorted(out.rglob("manifest.json")):
        for item_id, response in RunStore.read(manifest.parent).responses().items():
            if response.status == "ok":
                assert found.setdefault(item_id, response.text) == response.text, f"{item_id}: two answers on disk"
    return found


def _dir_lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]


def test_two_then_three_then_two_ranks_keep_the_first_answers_and_ask_nothing_again(tmp_path):
    out = tmp_path / "run"
    with RandomServer() as server:
        first = _launch(2, out, server)
        assert [rc for rc, _, _ in first] == [0, 0], first[0][2][-2000:] + first[1][2][-2000:]
        assert len(server.asked()) == ITEMS
    answers = {i: r.text for i, r in RunStore.read(out).responses().items()}
    predictions = (out / "predictions.jsonl").read_text()

    for n in (3, 2):
        with RandomServer() as server:
            done = _launch(n, out, server)
            assert all(rc == 0 for rc, _, _ in done), [e[-2000:] for _, _, e in done]
            assert server.asked() == [] and server.received == 0  # no item, no probe
        assert f"{out}: finished already: nothing asked" in done[0][1]
        assert {i: r.text for i, r in RunStore.read(out).responses().items()} == answers
        assert len(_dir_lines(out)) == ITEMS  # one answer per item, never a second line
        assert (out / "predictions.jsonl").read_text() == predictions


def test_a_partial_run_resumed_on_other_rank_counts_asks_only_the_missing_items(tmp_path):
    """2 ranks killed mid-run (nothing merged), then 3 ranks killed mid-run, then 2 ranks to the
    end: no launch asks an item an earlier one stored, every stored answer stays as it was, DIR
    ends with one line per item, and the 3-rank launch's shards are folded in and removed."""
    out = tmp_path / "run"
    with RandomServer(hold_after=4) as server:  # the probes and a few answers; then every request waits
        probes = _launch_killed(2, out, server)
        keys = dict(server.key_of)
    first = _stored(out)
    assert 1 <= len(first) < ITEMS and not (out / "manifest.json").exists()

    with RandomServer(hold_after=6) as server:
        probes += _launch_killed(3, out, server)
        asked, keys = server.asked(), {**keys, **server.key_of}
    second = _stored(out)
    assert {i: second[i] for i in first} == first  # the first launch's answers kept, none drawn again
    assert not set(asked) & {keys[t] for t in first.values()}  # none of its items even asked
    assert len(second) > len(first)

    three = [[k, 3] for k in (1, 2, 3) if (out / "ranks" / f"rank-{k}-of-3" / "manifest.json").exists()]
    with RandomServer() as server:
        done = _launch(2, out, server)
        assert all(rc == 0 for rc, _, _ in done), [e[-2000:] for _, _, e in done]
        asked, probes = server.asked(), probes + server.probes
    assert len(asked) == ITEMS - len(second)  # exactly what no launch had stored
    assert not set(asked) & {keys[t] for t in second.values()}
    assert f"continued the run in {out}: {ITEMS - len(second)} item(s) asked" in done[0][1]
    merged = {i: r.text for i, r in RunStore.read(out).responses().items()}
    assert {i: merged[i] for i in second} == second and len(merged) == ITEMS
    assert [line["item_id"] for line in _dir_lines(out)] == RunStore.read(out).manifest()["item_ids"]  # one line per item
    assert sorted(p.name for p in (out / "ranks").iterdir()) == ["rank-1-of-2", "rank-2-of-2"]  # the 3-rank shards removed
    manifest = RunStore.read(out).manifest()
    assert manifest["counts"] == {"items": ITEMS, "ok": ITEMS, "truncated": 0, "error": 0, "missing": 0}
    assert [r["shard"] for r in manifest["retired_shards"]] == three and three  # each 3-rank shard that held a run
    assert manifest["preflight"]["probes"] == probes  # every launch's start-up probes, the removed shards' too


def test_a_suite_relaunched_on_three_ranks_asks_nothing_and_keeps_its_runs(tmp_path):
    """The suite's ranks share the rule: each run of each new rank suite inherits what the suite's
    runs hold, nothing is asked, the study is unchanged, and the 2-rank suites are folded in and removed."""
    out = tmp_path / "suite"
    suite = ["suite", "--model", "openai:fake-model", "--data", "sample", "--limit", "3", "--concurrency", "1",
             "--bootstrap", "20", "--no-html", "--out", str(out)]

    def launch(n: int, server: FaultServer) -> None:
        port = free_port()
        ranks = [start_rank(r, n, port, [*suite, "--base-url", server.url]) for r in range(n)]
        outputs = [r.communicate(timeout=240) for r in ranks]
        assert [r.returncode for r in ranks] == [0] * n, [e[-2000:] for _, e in outputs]

    with RandomServer() as server:
        launch(2, server)
        assert len(server.asked()) == 7 * 3  # seven runs of three items
    runs = sorted(p.parent for p in out.glob("*/manifest.json"))
    before = {p.name: (p / "responses.jsonl").read_text() for p in runs}
    study = json.loads((out / "suite.json").read_text())
    with RandomServer() as server:
        launch(3, server)
        assert server.asked() == [] and server.received == 0
    assert {p.name: (p / "responses.jsonl").read_text() for p in runs} == before
    assert json.loads((out / "suite.json").read_text())["table1"] == study["table1"]
    assert sorted(p.name for p in (out / "ranks").iterdir()) == ["rank-1-of-3", "rank-2-of-3", "rank-3-of-3"]


def test_one_process_continuing_a_partial_distributed_run_asks_only_the_missing_items(tmp_path):
    """One GPU is a number of GPUs too: `mmmu-eval run --out DIR` with no launcher, after a 2-rank
    launch killed before its merge, counts the shards' answers, asks the rest and holds them all;
    a 3-rank launch after it asks nothing."""
    out = tmp_path / "run"
    with RandomServer(hold_after=4) as server:
        _launch_killed(2, out, server)
        keys = dict(server.key_of)
    first = _stored(out)
    assert 1 <= len(first) < ITEMS
    with RandomServer() as server:
        done = subprocess.run([sys.executable, "-m", "mmmu_eval", "run", *ARGS, "--base-url", server.url, "--out", str(out)],
                              env=rank_env(), capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]
        asked = server.asked()
    assert len(asked) == ITEMS - len(first) and not set(asked) & {keys[t] for t in first.values()}
    assert f"continued the run in {out}: {len(asked)} item(s) asked" in done.stdout
    merged = {i: r.text for i, r in RunStore.read(out).responses().items()}
    assert {i: merged[i] for i in first} == first and len(_dir_lines(out)) == ITEMS
    with RandomServer() as server:
        again = _launch(3, out, server)
        assert all(rc == 0 for rc, _, _ in again), [e[-2000:] for _, _, e in again]
        assert server.asked() == []
    assert {i: r.text for i, r in RunStore.read(out).responses().items()} == merged


def test_a_launch_continues_a_run_one_process_began(tmp_path):
    """The other way round: one process killed mid-run, then two ranks: they ask only the rest."""
    out = tmp_path / "run"
    with RandomServer(hold_after=3) as server:
        alone = subprocess.Popen([sys.executable, "-m", "mmmu_eval", "run", *ARGS, "--base-url", server.url, "--out", str(out)],
                                 env=rank_env(), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _killed_when_waiting([alone], out, server)
        keys = dict(server.key_of)
    first = _stored(out)
    assert 1 <= len(first) < ITEMS
    with RandomServer() as server:
        done = _launch(2, out, server)
        assert all(rc == 0 for rc, _, _ in done), [e[-2000:] for _, _, e in done]
        asked = server.asked()
    assert len(asked) == ITEMS - len(first) and not set(asked) & {keys[t] for t in first.values()}
    merged = {i: r.text for i, r in RunStore.read(out).responses().items()}
    assert {i: merged[i] for i in first} == first and len(merged) == ITEMS
    assert len(_dir_lines(out)) == ITEMS
