"""How long a finished ``run``, ``suite`` and ``harden filter`` take to find out they are done, and
how many requests they send doing it (issue 17: it should be none, in about a second).

Each command runs to the end once against the project's fake OpenAI-compatible server
(``tests/fakes/fault_server.py``, in this process, no faults), then again, the same command line,
in a fresh process, as a user meets it. The server counts every request it receives (model
listings included), so the figures say exactly what the second session sent.

Workload: a synthetic snapshot (``benchmarks/suite_throughput.write_snapshot``): ``--items`` items
per MMMU-Pro setting and MMMU validation; the filter reads the MMMU folder, with ``--models``
served models (one endpoint each) and ``--trials`` trials. ``--filter-only`` skips run and suite.

    python benchmarks/rerun_finished.py                              # 577 items, 4 models x 10 trials
    python benchmarks/rerun_finished.py --items 100 --trials 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:6])} ... failed ({done.returncode}):\n{done.stderr[-2000:]}")
    if "Traceback" in done.stderr:
        raise SystemExit(f"{' '.join(argv[:6])} ... printed a traceback:\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    from fakes.fault_server import FaultServer
    from suite_throughput import write_snapshot

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=577, help="items per setting and for the filter (default 577)")
    parser.add_argument("--models", type=int, default=4, help="served filter models (default 4)")
    parser.add_argument("--trials", type=int, default=10, help="filter trials per model (default 10)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--filter-only", action="store_true", help="measure the filter only")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT / "src")}
    env.pop("OPENAI_API_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    cli = [sys.executable, "-m", "mmmu_eval"]
    rows: list[tuple[str, int, float, float, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        write_snapshot(data, args.items)
        servers = [FaultServer(fault_rate=0.0).start() for _ in range(max(1, args.models))]
        try:
            url = servers[0].url
            common = ["--model", "openai:fake-model", "--base-url", url, "--concurrency", str(args.concurrency)]
            commands = []
            if not args.filter_only:
                commands.append(("run (standard-10)", args.items, [*cli, "run", "--benchmark", "mmmu-pro", "--setting", "standard-10",
                                                                   "--data", str(data), *common, "--out", str(Path(tmp) / "run")]))
                commands.append(("suite (7 runs)", 7 * args.items, [*cli, "suite", "--data", str(data), *common,
                                                                    "--out", str(Path(tmp) / "suite")]))
            models = ",".join(f"openai:fake-model@{s.url}" for s in servers[: args.models])
            answers = args.items * args.models * args.trials
            commands.append((f"harden filter ({args.models} models x {args.trials} trials)", answers,
                             [*cli, "harden", "filter", "--data", str(data / "MMMU"), "--out", str(Path(tmp) / "hard"),
                              "--models", models, "--trials", str(args.trials), "--per-subject", "0",
                              "--concurrency", str(args.concurrency)]))
            for name, stored, argv in commands:
                first = timed(argv, env)
                before = sum(s.received + s.listings for s in servers)
                again = timed(argv, env)
                sent = sum(s.received + s.listings for s in servers) - before
                rows.append((name, stored, first, again, sent))
        finally:
            for server in servers:
                server.stop()
    print(f"finished work run again (fresh process each, start-up included); {args.items} items per setting\n")
    print("| command | stored answers | first session s | same command again s | requests sent again |")
    print("|---|---|---|---|---|")
    for name, stored, first, again, sent in rows:
        print(f"| {name} | {stored:,} | {first:.2f} | {again:.2f} | {sent} |")


if __name__ == "__main__":
    main()
