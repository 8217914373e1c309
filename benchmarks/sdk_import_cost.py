"""The start-up cost of issue 17's choice: failures are read without the ``openai`` SDK.

The crash came from importing the SDK in a thread on the first failure while the event loop read
another failure against the half-imported module. The two fixes were: import the SDK before the
first request (every run pays for it), or never import it (read failures from the HTTP answer).
This prints, over ``--repeat`` fresh processes each (median, min), what each costs before a
run's first request, and checks that a run through a server failing 90% of requests loads no SDK.

    python benchmarks/sdk_import_cost.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TIMED = """
import time
t = time.perf_counter()
import mmmu_eval.backends.openai_api, aiohttp
{extra}
print(time.perf_counter() - t)
"""

FAULTY_RUN = f"""
import asyncio, sys
sys.path.insert(0, {str(ROOT / 'tests')!r})
from fakes.fault_server import FaultServer
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.records import Request, TextPart

async def main():
    with FaultServer(fault_rate=0.9, faults=("429", "500", "503", "not-json", "drop", "bad-utf8", "stream")) as server:
        b = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=8,
                          policy=RetryPolicy(max_attempts=8, base_delay=0.0, max_delay=0.0, timeout=120.0))
        requests = [Request(f"i{{n}}", parts=(TextPart(f"q{{n}}"),)) for n in range(40)]
        await b.preflight(requests)
        ok = [r.status async for r in b.generate(requests)].count("ok")
        await b.aclose()
        faults = sum(v for k, v in server.stats.items() if k != "answered")
    print(ok, faults, "openai" in sys.modules)

asyncio.run(main())
"""


def seconds(code: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ours = [seconds(TIMED.format(extra="")) for _ in range(args.repeat)]
    eager = [seconds(TIMED.format(extra="import openai")) for _ in range(args.repeat)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    ok, faults, loaded = subprocess.run([sys.executable, "-c", FAULTY_RUN], env=env, capture_output=True, text=True,
                                        check=True).stdout.split()
    print(f"imports before the first request, {args.repeat} fresh processes each (median / min):\n")
    print("| choice | s |")
    print("|---|---|")
    print(f"| read failures without the SDK (this project) | {statistics.median(ours):.3f} / {min(ours):.3f} |")
    print(f"| import the SDK before the first request | {statistics.median(eager):.3f} / {min(eager):.3f} |")
    print(f"\nthe SDK would add {statistics.median(eager) - statistics.median(ours):.3f} s (median) to every run's start")
    print(f"a run of 40 items through {faults} injected faults: {ok} answered, openai imported: {loaded}")


if __name__ == "__main__":
    main()
