"""Wall time of one ``mmmu-eval suite`` against seven separate ``mmmu-eval run`` commands.

The suite's seven runs (MMMU-Pro standard-4, standard-10 and vision, each direct and CoT, plus MMMU
validation) ask at the same time through one OpenAI backend, so their requests share its
``--concurrency`` in-flight requests per endpoint; the separate commands run one after another,
as a user running the study by hand would. Both sides are measured as a user meets them: each
command in a fresh process, start-up, scoring and reports included.

Workload: a synthetic snapshot written with the test suite's parquet writers (``tests/fakes``),
``--items`` items per MMMU-Pro setting and per MMMU validation run, one small PNG each, and the
project's fake OpenAI-compatible server (``tests/fakes/fault_server.py``, no faults) answering
every request after ``--latency`` seconds. With N requests in flight the best possible rate is
N / latency items per second.

    python benchmarks/suite_throughput.py                       # 300 items per run, 64 in flight, 0.2 s
    python benchmarks/suite_throughput.py --items 100 --concurrency 16
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

RUNS = [("mmmu-pro", s, p) for s in ("standard-4", "standard-10", "vision") for p in ("direct", "cot")] + [("mmmu", None, "direct")]


def write_snapshot(root: Path, items: int) -> None:
    """``items`` rows per MMMU-Pro setting and for MMMU validation (subject Math), 4 or 10 options."""
    from fakes.parquet_rows import image_cell, mmmu_row, png, pro_row, vision_row, write_mmmu, write_pro

    ids = [f"validation_Math_{k + 1}" for k in range(items)]
    images = [png(((37 * k) % 255, (91 * k) % 255, 120), (64, 48)) for k in range(items)]
    std10 = [pro_row(i, "Math", question=f"Item {i}: which option? <image 1>", answer="ABCDEFGHIJ"[k % 10],
                     image_1=image_cell(images[k], f"{i}.png")) for k, i in enumerate(ids)]
    std4 = [pro_row(i, "Math", question=f"Item {i}: which option? <image 1>", answer="ABCD"[k % 4],
                    options="['w', 'x', 'y', 'z']", image_1=image_cell(images[k], f"{i}.png")) for k, i in enumerate(ids)]
    vision = [vision_row(i, "Math", answer="ABCDEFGHIJ"[k % 10], options=str([chr(97 + n) for n in range(10)]),
                         image=image_cell(images[(k + 1) % items], f"{i}-v.png")) for k, i in enumerate(ids)]
    write_pro(root / "MMMU_Pro", "standard-10", std10)
    write_pro(root / "MMMU_Pro", "standard-4", std4)
    write_pro(root / "MMMU_Pro", "vision", vision)
    write_mmmu(root / "MMMU", "Math", "validation",
               [mmmu_row(i, question=f"MMMU item {i}? <image 1>", image_1=image_cell(images[k], f"{i}.png"))
                for k, i in enumerate(ids)])


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakes" / "fault_server.py"), "--port", "0",
                               "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    return server, url


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])} ... failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=300, help="items per run (default 300)")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight per endpoint (default 64)")
    parser.add_argument("--latency", type=float, default=0.2, help="server seconds per answer (default 0.2)")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    cli = [sys.executable, "-m", "mmmu_eval"]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        write_snapshot(data, args.items)
        server, url = start_server(args.latency)
        try:
            common = ["--model", "openai:fake-model", "--base-url", url, "--concurrency", str(args.concurrency)]
            separate = []
            for benchmark, setting, prompt in RUNS:
                where = ["--benchmark", benchmark, "--prompt", prompt] + (["--setting", setting] if setting else ["--split", "validation"])
                name = f"{setting or 'mmmu'}-{prompt}"
                separate.append((name, timed([*cli, "run", *where, "--data", str(data), *common,
                                              "--out", str(Path(tmp) / "runs" / name)], env)))
            suite = timed([*cli, "suite", "--data", str(data), *common, "--out", str(Path(tmp) / "suite")], env)
        finally:
            server.terminate()
            server.wait()
    total_items = args.items * len(RUNS)
    summed = sum(t for _, t in separate)
    bound = args.concurrency / args.latency
    print(f"{total_items} items ({args.items} per run, 7 runs), {args.concurrency} in flight, "
          f"server latency {args.latency} s (bound {bound:.0f} items/s); wall time of each command, start-up included\n")
    print("| command | wall s | items/s |")
    print("|---|---|---|")
    for name, t in separate:
        print(f"| run {name} | {t:.2f} | {args.items / t:.0f} |")
    print(f"| **sum of the 7 runs** | **{summed:.2f}** | {total_items / summed:.0f} |")
    print(f"| **suite (7 runs at once, one backend)** | **{suite:.2f}** | {total_items / suite:.0f} |")
    print(f"\nsuite / sum of separate runs: {suite / summed:.2f} (the suite takes {100 * suite / summed:.0f}% of the time)")


if __name__ == "__main__":
    main()
