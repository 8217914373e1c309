"""The fault soak of ``tests/test_fault_soak.py`` at full size: 1,730 MMMU-Pro items, 10 trials.

For each of ``run`` (MMMU-Pro standard-10), ``suite``, ``harden filter`` and ``harden augment``:
a clean session against a fault-free server, then a session against a server failing
``--fault-rate`` of requests with every fault it knows (a hostile server's too: out-of-range token
counts, lone surrogates, echoed headers and terminal escapes in errors; and, but for augment, on
both servers, a fifth of the answers hostile: lone surrogates, refusals, content-filter stops),
SIGKILLed once ``--kill-after`` of its requests have arrived (the server holds the rest, so the
kill lands with requests in flight), then the same command again. Between the two, ``run``'s
directory is made hostile in turn (issue 40: ``test_fault_soak.hostile_directory``: a linked
responses.jsonl, a line nested 100,000 deep, a 5,000-digit number in the manifest), each refused
in one line with the outside file untouched, then put back. It checks what the test checks (one stored answer per item, no
traceback, the clean session's results) and prints, per command: items, stored answers, faults
sent, and the wall time of each session. ``--wire`` adds the wire's faults (issue 40: a gzip bomb,
an endless body, a 3xx with a completion, a redirect, JSON nested 100,000 deep, a 5,000-digit
number) and puts both servers behind HTTP Basic auth, reached through ``user:password@`` in
``--base-url``; an item such a fault fails is asked by the next session (at most four).

    python benchmarks/fault_soak.py                                   # 1,730 items, 2 models x 10 trials
    python benchmarks/fault_soak.py --items 200 --trials 2 --commands run,filter
    python benchmarks/fault_soak.py --items 300 --commands run,suite --wire
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

COMMANDS = ("run", "suite", "filter", "augment")


def main() -> None:
    from fakes.fault_server import FaultServer
    from fakes.mc_set import Proposer
    from fakes.processes import jsonl_records, signal_when
    from fakes.wire_faults import WIRE_FAULTS
    from suite_throughput import write_snapshot
    from test_fault_soak import FAULTY, HOSTILE_ANSWERS, cli, finish, hostile_directory

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1730)
    parser.add_argument("--models", type=int, default=2, help="filter models (default 2)")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--kill-after", type=float, default=0.5, help="share of the first session's requests before the kill")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--wire", action="store_true", help="add the wire's faults, servers behind Basic auth")
    args = parser.parse_args()
    auth = ("soak-user", "soak-Password-77") if args.wire else None
    faults = FAULTY["faults"] + (WIRE_FAULTS if args.wire else ())
    sessions = 4 if args.wire else 1
    flags = ["--max-attempts", "8", "--concurrency", str(args.concurrency)]
    rows = []
    with TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        write_snapshot(data, args.items)
        models = ",".join(["openai:fake-model"] * args.models)
        commands = {
            "run": (args.items, lambda url, out: cli("run", "--model", "openai:fake-model", "--base-url", url, "--benchmark", "mmmu-pro",
                                                     "--setting", "standard-10", "--data", str(data), "--out", str(out), *flags)),
            "suite": (7 * args.items, lambda url, out: cli("suite", "--model", "openai:fake-model", "--base-url", url, "--data", str(data),
                                                           "--bootstrap", "200", "--out", str(out), *flags)),
            "filter": (args.items * args.models * args.trials, lambda url, out: cli(
                "harden", "filter", "--data", str(data / "MMMU"), "--out", str(out), "--models", models, "--base-url", url,
                "--trials", str(args.trials), "--per-subject", "0", *flags)),
            "augment": (args.items, lambda url, out: cli("harden", "augment", "--data", str(data / "MMMU"), "--out", str(out),
                                                         "--model", "openai:fake-model", "--base-url", url, "--no-check", *flags)),
        }
        for name in args.commands.split(","):
            answers, command = commands[name]
            answer = Proposer({}) if name == "augment" else None
            hostile = {} if name == "augment" else HOSTILE_ANSWERS
            clean, soaked = Path(tmp) / f"{name}-clean", Path(tmp) / f"{name}-soaked"
            with FaultServer(fault_rate=0.0, answer=answer, basic_auth=auth, **hostile) as server:
                start = time.perf_counter()
                finish(command(server.url_with_credentials, clean))
                t_clean = time.perf_counter() - start
            hold = max(1, int(args.kill_after * answers))
            with FaultServer(fault_rate=args.fault_rate, max_faults=3, faults=faults, answer=answer,
                             hold_after=hold, basic_auth=auth, **hostile) as server:
                start = time.perf_counter()
                _, err = signal_when(command(server.url_with_credentials, soaked), lambda: server.holding > 0, what="the kill point", timeout=3600)
                t_killed = time.perf_counter() - start
                assert "Traceback" not in err and "\x1b" not in err, err[-3000:]
                server.release()
                if name == "run":
                    hostile_directory(command(server.url, soaked), soaked)
                start = time.perf_counter()
                finish(command(server.url_with_credentials, soaked), sessions=sessions)
                assert server.stats["followed"] == 0, "a redirect was followed"
                t_again = time.perf_counter() - start
                faults = sum(n for k, n in server.stats.items() if k != "answered")
            stored = Counter()
            for path in soaked.rglob("responses.jsonl"):
                ids = Counter(r["item_id"] for r in jsonl_records(path) if r["status"] in ("ok", "truncated"))
                assert not ids or max(ids.values()) == 1, f"{path}: an item stored twice"
                stored[path.parent.name] += sum(ids.values())
            same = _same_results(name, clean, soaked)
            rows.append((name, answers, sum(stored.values()), faults, t_clean, t_killed, t_again, same))
            print(rows[-1], flush=True)  # a long soak shows each command as it ends
    print(f"fault soak: {args.fault_rate:.0%} mixed faults{' with the wire faults, Basic auth' if args.wire else ''}, SIGKILL after {args.kill_after:.0%} of the requests, then the same command\n")
    print("| command | answers needed | stored once each | faults sent | clean s | killed after s | again s | same results as clean |")
    print("|---|---|---|---|---|---|---|---|")
    for name, answers, stored_n, faults, a, b, c, same in rows:
        print(f"| {name} | {answers:,} | {stored_n:,} | {faults:,} | {a:.1f} | {b:.1f} | {c:.1f} | {'yes' if same else 'NO'} |")


def _same_results(name: str, clean: Path, soaked: Path) -> bool:
    def read(path: Path) -> dict:
        return json.loads(path.read_text())

    if name == "run":
        return read(clean / "results.json")["overall"] == read(soaked / "results.json")["overall"]
    if name == "suite":
        return read(clean / "suite.json")["table1"] == read(soaked / "suite.json")["table1"]
    key = "filter" if name == "filter" else "augment"
    a, b = read(clean / "harden.json"), read(soaked / "harden.json")
    pick = (lambda e: e[key]) if key == "filter" else (lambda e: e[key].get("options"))
    return {i: pick(e) for i, e in a["items"].items()} == {i: pick(e) for i, e in b["items"].items()}


if __name__ == "__main__":
    main()
