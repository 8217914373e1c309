"""How confirming a finished ``harden filter`` and resuming a nearly finished one scale with what
is already stored (issue 17: 11,500 items x 4 models x 10 trials is 460,000 stored answers).

For each ``--items`` size: a synthetic MMMU folder of that many questions, a filter of
``--models`` baseline models (``frequent``, answered in-process, so building 460,000 answers
takes minutes, not a server's hours) x ``--trials`` trials, run to the end; then, each in a fresh
process as a user meets it:

- **confirm**: the same command again, with everything stored;
- **resume**: the last ``--missing`` answers of one trial run cut off (as a kill leaves it), then
  the same command again, which asks only those.

    python benchmarks/rerun_scale.py                         # 1,000 2,875 5,750 11,500 items
    python benchmarks/rerun_scale.py --items 500,1000 --trials 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def write_mmmu(root: Path, items: int) -> None:
    """``items`` MMMU validation questions (subject Math), one small PNG each."""
    from fakes.parquet_rows import image_cell, mmmu_row, png, write_mmmu as write

    rows = [mmmu_row(f"validation_Math_{k + 1}", question=f"Question {k}: which option? <image 1>",
                     answer="ABCD"[k % 4], image_1=image_cell(png(((37 * k) % 255, (91 * k) % 255, 120), (16, 12)), f"{k}.png"))
            for k in range(items)]
    write(root / "MMMU", "Math", "validation", rows, shards=max(1, items // 2000))


def timed(argv: list[str]) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        raise SystemExit(f"{' '.join(argv[:5])} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def cut_tail(responses: Path, lines: int) -> None:
    """Drop the last ``lines`` records, as a run killed before storing them leaves its file."""
    kept = responses.read_bytes().splitlines(keepends=True)[:-lines]
    responses.write_bytes(b"".join(kept))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", default="1000,2875,5750,11500")
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--missing", type=int, default=20)
    args = parser.parse_args()
    rows = []
    for items in [int(n) for n in args.items.split(",")]:
        with TemporaryDirectory() as tmp:
            write_mmmu(Path(tmp) / "data", items)
            argv = [sys.executable, "-m", "mmmu_eval", "harden", "filter", "--data", str(Path(tmp) / "data" / "MMMU"),
                    "--out", str(Path(tmp) / "hard"), "--models", ",".join(["frequent"] * args.models),
                    "--trials", str(args.trials), "--per-subject", "0"]
            first = timed(argv)
            confirm = timed(argv)
            cut_tail(Path(tmp) / "hard" / "runs" / "filter" / "m1-frequent" / "trial-01" / "responses.jsonl", args.missing)
            resume = timed(argv)
            again = timed(argv)
            rows.append((items, items * args.models * args.trials, first, confirm, resume, again))
            print(rows[-1], flush=True)
    print(f"\nharden filter, {args.models} models x {args.trials} trials (baseline models, answered in-process); "
          f"fresh process each, start-up included\n")
    print(f"| items | stored answers | first session s | confirm finished s | resume ({args.missing} missing) s | confirm again s |")
    print("|---|---|---|---|---|---|")
    for items, answers, first, confirm, resume, again in rows:
        print(f"| {items:,} | {answers:,} | {first:.1f} | {confirm:.2f} | {resume:.2f} | {again:.2f} |")


if __name__ == "__main__":
    main()
