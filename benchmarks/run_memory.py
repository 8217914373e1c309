"""Peak memory of a whole ``mmmu-eval run`` with large images at 256 in flight, beside a bare client.

The workload of ``api_throughput.py``'s ``mmmu-validation`` (900 items, one 800x600 PNG of about
308 KB each, 410 KB bodies), against its fixed-latency server, with a latency long enough
(``--latency``, 2 s) that all 256 requests are in flight at once even on a loaded machine (at
0.2 s the harness's CPU, not the limit, decides how many are; the table says how many were). In one session, each a fresh process:

- ``mmmu-eval run``: the whole command (data, preflight, requests, scoring, results, report.html);
- ``bare aiohttp``: aiohttp alone sending the same 900 bodies (the same JSON shape, the same PNGs
  as data URLs, each built when its request goes and let go once sent), 256 in flight through
  one session: the floor a client of this design reaches (Python, aiohttp, the bodies being sent);
- ``python``: the interpreter doing nothing, for scale.

Peak resident memory is the kernel's high-water mark of each process's own image (``VmHWM``, read
every 10 ms while it runs, so the last 10 ms before it exits go unseen; ``ru_maxrss`` would also
count this process's memory, which a child shares between fork and exec). The run's resident
memory is also split by phase, by the server's clock: before the first item request, during the
requests, after the last answer (scoring and the report). ``--src`` runs another checkout's
package beside this one (``--src /work/main/src``): before and after in one session.

    python benchmarks/run_memory.py                          # this checkout, 3 runs each (the median shown)
    python benchmarks/run_memory.py --src ../main/src --repeat 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import api_throughput as bench  # noqa: E402

#: The bare client: argv = port, concurrency, items, image files...; the question on stdin.
BARE = r'''
import asyncio, base64, json, sys
import aiohttp

port, concurrency, items, paths = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
images = [open(p, "rb").read() for p in paths]
question = sys.stdin.read()

def body(n):
    url = "data:image/png;base64," + base64.b64encode(images[n % len(images)]).decode()
    return json.dumps({"model": "bench-model", "messages": [{"role": "user", "content": [
        {"type": "text", "text": f"Question {n}: " + question}, {"type": "image_url", "image_url": {"url": url}},
        {"type": "text", "text": "Answer with the option's letter from the given choices directly."}]}]}).encode()

async def send_all():
    limit = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def one(n):
            async with limit:
                data = body(n)
                async with session.post(f"http://127.0.0.1:{port}/v1/chat/completions", data=data,
                                        headers={"Content-Type": "application/json"}) as response:
                    del data
                    json.loads(await response.read())
        await asyncio.gather(*(one(n) for n in range(items)))

asyncio.run(send_all())
'''


def rss_sampler(pid: int, samples: list[tuple[float, int]], peak: list[int]) -> None:
    """(time, resident kB) of a running process every 10 ms, and its high-water mark, from /proc."""
    while True:
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                text = f.read()
        except OSError:
            return
        fields = dict(line.split(b":", 1) for line in text.splitlines() if b":" in line)
        if b"VmRSS" not in fields:  # a zombie has no memory: it has exited
            return
        samples.append((time.monotonic(), int(fields[b"VmRSS"].split()[0])))
        peak.append(int(fields[b"VmHWM"].split()[0]))
        time.sleep(0.01)


def measured(argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> tuple[float, list[tuple[float, int]]]:
    """The command's peak RSS in MB (its own high-water mark) and its sampled curve."""
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples: list[tuple[float, int]] = []
    peak: list[int] = []
    sampler = threading.Thread(target=rss_sampler, args=(proc.pid, samples, peak), daemon=True)
    sampler.start()
    _, err = proc.communicate(stdin)
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:6])} ... failed:\n{err.decode(errors='replace')[-2000:]}")
    return max(peak, default=0) / 1024, samples


def run_row(src: Path, args: argparse.Namespace, snapshot: Path, port: int, tmp: Path) -> tuple[str, float, str]:
    """The median peak of ``args.repeat`` runs of the whole command with the package at ``src``, and the range."""
    workload = bench.WORKLOADS["mmmu-validation"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(src.resolve())}
    runs: list[tuple[float, str]] = []
    for n in range(args.repeat):
        out = tmp / f"run-{n}"
        shutil.rmtree(out, ignore_errors=True)
        bench.get(port, "/reset")
        peak, samples = measured(bench.command(workload, snapshot, port, args.concurrency, out), env)
        stats = bench.get(port, "/stats")
        first, last = stats["first_chat"][1], stats["last_reply"]
        phases = {"before": [r for t, r in samples if t < first], "requests": [r for t, r in samples if first <= t <= last],
                  "after": [r for t, r in samples if t > last]}
        detail = ", ".join(f"{k} {max(v) / 1024:.0f}" for k, v in phases.items() if v)
        detail += f" MB; peak in flight {stats['peak_in_flight']}"
        runs.append((peak, detail))
    runs.sort()
    peak, detail = runs[len(runs) // 2]
    return f"mmmu-eval run ({src})", peak, f"{detail}; all runs {runs[0][0]:.0f}-{runs[-1][0]:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the median peak is shown")
    parser.add_argument("--src", type=Path, action="append", default=[], help="another checkout's package, run beside")
    parser.add_argument("--workdir", type=Path, help="where the snapshot is kept between runs")
    args = parser.parse_args()
    workload = bench.WORKLOADS["mmmu-validation"]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        workdir = args.workdir or tmp
        workdir.mkdir(parents=True, exist_ok=True)
        snapshot = bench.build_snapshot(workload, workdir)
        pngs = []
        for n, data in enumerate(bench.make_images(workdir, workload.image_size, workload.noise_rows)):
            pngs.append(tmp / f"{n}.png")
            pngs[-1].write_bytes(data)
        rows: list[tuple[str, float, str]] = []
        with bench.Server(args.latency) as port:
            for src in [HERE.parent / "src", *args.src]:
                rows.append(run_row(src, args, snapshot, port, tmp))
                print(rows[-1], flush=True)
            env = {**os.environ, "PYTHONPATH": ""}
            bare = []
            for _ in range(args.repeat):
                bench.get(port, "/reset")
                bare.append(measured([sys.executable, "-c", BARE, str(port), str(args.concurrency), str(workload.items),
                                      *map(str, pngs)], env, bench.QUESTION.encode())[0])
            rows.append(("bare aiohttp, same bodies", sorted(bare)[len(bare) // 2], f"peak in flight {bench.get(port, '/stats')['peak_in_flight']}"))
            rows.append(("python, doing nothing", measured([sys.executable, "-c", "pass"], env)[0], ""))
    print(f"{workload.items} items, 800x600 PNGs (~308 KB), {args.concurrency} in flight, server latency {args.latency} s; "
          f"median peak of {args.repeat} run(s)")
    print(f"{'process':<60} {'peak RSS':>9}  resident by phase (sampled)")
    for label, peak, detail in rows:
        print(f"{label:<60} {peak:>6.0f} MB  {detail}")


if __name__ == "__main__":
    main()
