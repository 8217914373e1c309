"""Items per second of one `mmmu-eval run` process against two ranks under torchrun, on the CPU.

The same command twice over the bundled sample (MMMU validation, 40 items) with a tiny random
LLaVA (tests/fakes/tiny_models.py, hidden size 128): once as one process, once as
``python -m torch.distributed.run --standalone --nproc-per-node 2 -m mmmu_eval run ...``. Each
case gets the machine's cores split between its processes (OMP_NUM_THREADS), as torchrun
does by default, so the comparison is one process with every core against N with their share.

Two rates per case, and the ratio of each (two processes over one), from one run of each:

- **answering**: items over the seconds from the first request to the last answer, as each
  process's own progress line reports it (for two ranks: the items over the slower rank's
  time), so the model load and the imports are left out;
- **command**: items over the wall time of the whole command (start-up, model load, the
  merge and the outputs on rank 0 included): what a user waits for.

On a machine shared with other work the figures move from run to run; say so beside them.

    /work/main/.venv/bin/python benchmarks/data_parallel.py                     # 40 items, 32 new tokens
    /work/main/.venv/bin/python benchmarks/data_parallel.py --max-tokens 64 --batch-size 4
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

#: The last progress line of a process: ``[rank R/N: ]done D/T (100%) · X items/s``.
FINAL = re.compile(r"(?:rank (\d+)/\d+: )?done (\d+)/(\d+) \(100%\) · ([\d.]+) items/s")


def environment(threads: int) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OMP_NUM_THREADS": str(threads),
           "TOKENIZERS_PARALLELISM": "false"}
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def measure(processes: int, run_args: list[str], out: Path, cores: int) -> dict[str, float]:
    """One case: ``processes`` ranks (1: a plain process). Returns items, seconds and both rates."""
    if processes == 1:
        command = [sys.executable, "-m", "mmmu_eval", "run"]
    else:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
                   str(processes), "-m", "mmmu_eval", "run"]
    started = time.perf_counter()
    done = subprocess.run([*command, *run_args, "--out", str(out)], env=environment(max(1, cores // processes)),
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{processes} process(es) failed:\n{done.stderr[-3000:]}")
    finals: dict[str, tuple[int, float]] = {}
    for match in FINAL.finditer(done.stderr):
        finals[match.group(1) or "0"] = (int(match.group(2)), float(match.group(4)))
    if len(finals) != processes:
        raise SystemExit(f"expected {processes} progress lines at 100%, found {len(finals)}:\n{done.stderr[-2000:]}")
    items = sum(n for n, _ in finals.values())
    slowest = max(n / rate for n, rate in finals.values())
    return {"items": items, "answering_s": slowest, "answering": items / slowest, "wall_s": wall, "command": items / wall}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2, help="ranks of the second case (default 2)")
    args = parser.parse_args()
    from fakes.tiny_models import build_tiny_llava

    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model = build_tiny_llava(work / "llava", hidden_size=128, heads=2)
        run_args = ["--model", f"hf:{model}", "--data", "sample", "--benchmark", "mmmu", "--split", "validation",
                    "--max-tokens", str(args.max_tokens), "--batch-size", str(args.batch_size), "--device", "cpu",
                    "--no-html"]
        one = measure(1, run_args, work / "one", cores)
        many = measure(args.processes, run_args, work / "many", cores)
    print(f"mmmu-eval run, tiny LLaVA (hidden 128) on CPU, {one['items']:.0f} items, {args.max_tokens} new tokens at most, "
          f"batch {args.batch_size}, {cores} cores (OMP_NUM_THREADS = cores / processes); one run of each case")
    print(f"{'processes':>9}  {'answering items/s':>17}  {'answering s':>11}  {'command items/s':>15}  {'command s':>9}")
    for n, case in ((1, one), (args.processes, many)):
        print(f"{n:>9}  {case['answering']:>17.2f}  {case['answering_s']:>11.2f}  {case['command']:>15.2f}  {case['wall_s']:>9.2f}")
    print(f"ratio {args.processes} / 1: answering {many['answering'] / one['answering']:.2f}x, "
          f"command {many['command'] / one['command']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
