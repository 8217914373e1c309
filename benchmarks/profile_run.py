"""Where the CPU of one ``mmmu-eval run`` goes, per item: the command under cProfile.

Runs the same command as ``api_throughput.py`` (a fresh process, the whole run: imports, data,
preflight, requests, scoring, report) against the same fixed-latency server, with
``python -m cProfile``, then prints

- the command's CPU per item from its rusage (every thread) next to the CPU the profiler saw on
  the main thread (the event loop; the body-building threads are not profiled; waiting is not
  counted, the profiler's clock is the thread's CPU time);
- own time per item grouped by where the code lives (a library, a stage of mmmu-eval, the
  interpreter's builtins), the first thing to look at when the harness is the bottleneck;
- the functions with the most own time, and the heaviest cumulative entries of mmmu-eval.

cProfile slows Python-heavy code more than C-heavy code, so read the shares, not the absolute
figures, and confirm a change with ``api_throughput.py``.

    python benchmarks/profile_run.py                                   # pro standard-10, 64 in flight
    python benchmarks/profile_run.py --workload mmmu-validation --concurrency 256 --top 40
    python benchmarks/profile_run.py --save run.prof                   # keep the profile (snakeviz, pstats)
"""

from __future__ import annotations

import argparse
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api_throughput as bench  # noqa: E402

# The command under cProfile with the main thread's CPU clock, so time spent waiting (epoll) is not
# counted: what is left is what the event loop's thread computes.
PROFILED = """
import cProfile, sys, time
from mmmu_eval.cli.main import main
profile = cProfile.Profile(time.thread_time)
path, argv = sys.argv[1], sys.argv[2:]
try:
    status = profile.runcall(main, argv)
finally:
    profile.dump_stats(path)
sys.exit(status)
"""

_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\]([^/\\]+)")
_OURS = re.compile(r"[/\\]mmmu_eval[/\\](.+?)(?:\.py)?$")


def area(filename: str, function: str) -> str:
    """The group one profiled function belongs to: a package, a stage of ours, stdlib, builtins."""
    if filename == "~":  # C functions: name them by what they are
        name = re.sub(r"^<(?:built-in method|method) ", "", function).rstrip(">")
        if "of '" in name:  # "'write' of '_io.TextIOWrapper' objects" -> "_io.TextIOWrapper.write"
            method, _, owner = name.partition(" of ")
            name = f"{owner.split(chr(39))[1]}.{method.strip(chr(39))}"
        return f"builtin {name}"
    ours = _OURS.search(filename.replace(".py", "") if filename.endswith(".py") else filename)
    if ours:
        parts = ours.group(1).replace("\\", "/").split("/")
        return "mmmu_eval." + (parts[0] if len(parts) == 1 else f"{parts[0]}.{parts[1]}")
    site = _SITE.search(filename)
    if site:
        return site.group(1).split(".")[0]
    stem = Path(filename).parent.name if Path(filename).name == "__init__.py" else Path(filename).stem
    if "asyncio" in Path(filename).parts:
        return "asyncio"
    return f"stdlib {stem}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", choices=sorted(bench.WORKLOADS), default="mmmu-pro-standard-10")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--top", type=int, default=25, help="functions to list")
    parser.add_argument("--save", type=Path, help="keep the raw profile here")
    parser.add_argument("--workdir", type=Path, help="where snapshots are kept between runs")
    args = parser.parse_args()
    workload = bench.WORKLOADS[args.workload]

    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        snapshot = bench.build_snapshot(workload, workdir)
        profile = args.save or Path(tmp) / "run.prof"
        out = Path(tmp) / "run"
        with bench.Server(args.latency) as port:
            cmd = bench.command(workload, snapshot, port, args.concurrency, out)
            run_args = cmd[cmd.index("run"):]
            launched = time.monotonic()
            proc = subprocess.Popen(
                [sys.executable, "-c", PROFILED, str(profile), *run_args],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "HF_HUB_OFFLINE": "1"},
            )
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.monotonic() - launched
            stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"the run failed:\n{stderr[-3000:]}")
            server = bench.get(port, "/stats")
        shutil.rmtree(out, ignore_errors=True)

        n = workload.items
        stats = pstats.Stats(str(profile))
        entries = stats.stats  # type: ignore[attr-defined]  # {(file, line, func): (cc, nc, tt, ct, callers)}
        main_thread = sum(tt for (_, _, _), (_, _, tt, _, _) in entries.items())
        cpu = usage.ru_utime + usage.ru_stime
        print(f"{workload.describe}; {args.concurrency} in flight; {n} items; wall {wall:.1f} s under the profiler")
        print(f"command CPU (all threads, rusage): {1000 * cpu / n:.2f} ms/item "
              f"(user {1000 * usage.ru_utime / n:.2f}, system {1000 * usage.ru_stime / n:.2f}); "
              f"main thread's CPU as profiled: {1000 * main_thread / n:.2f} ms/item; server {1000 * server['cpu'] / n:.2f} ms/item")

        by_area: dict[str, float] = defaultdict(float)
        for (filename, _, function), (_, _, tt, _, _) in entries.items():
            by_area[area(filename, function)] += tt
        print("\nown time per item by area (main thread)")
        for name, seconds in sorted(by_area.items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"  {1e6 * seconds / n:9.1f} us  {100 * seconds / main_thread:5.1f}%  {name}")

        print(f"\ntop {args.top} functions by own time (us per item, calls per item)")
        rows = sorted(entries.items(), key=lambda kv: -kv[1][2])[: args.top]
        for (filename, line, function), (_, calls, tt, _, _) in rows:
            where = f"{Path(filename).name}:{line}" if filename != "~" else "builtin"
            print(f"  {1e6 * tt / n:9.1f} us  {calls / n:6.1f}  {function}  ({where})")

        print("\nmmmu_eval functions by cumulative time (us per item)")
        ours = [(k, v) for k, v in entries.items() if _OURS.search(k[0])]
        for (filename, line, function), (_, calls, _, ct, _) in sorted(ours, key=lambda kv: -kv[1][3])[: args.top]:
            print(f"  {1e6 * ct / n:9.1f} us  {calls / n:6.1f}  {function}  ({Path(filename).name}:{line})")


if __name__ == "__main__":
    main()
