"""Throughput, CPU, start-up, tail and memory of ``mmmu-eval run`` against a fixed-latency server.

Each measured run is the whole command as a user types it (``mmmu-eval run --model openai:...
--data SNAPSHOT --base-url ...``), started as a fresh process and timed from launch to exit:
imports, reading the parquet snapshot, building the prompts, the preflight probe, every request,
scoring, results.json, predictions.jsonl and report.html with its embedded images. The server
answers every chat request after exactly ``--latency`` seconds (0.2 by default), so with N
requests in flight the best possible rate is N / latency items per second (the bound).

Workloads (each a snapshot laid out like the hub, written once into ``--workdir``):

- ``mmmu-validation``: 900 items (30 subjects x 30), one 800x600 PNG of about 300 KB each: the
  large-image workload (bodies of about 400 KB).
- ``mmmu-pro-standard-10``: 1,730 items, 10 options, one small PNG (about 20 KB) each.
- ``mmmu-test``: 10,500 items with small images and no answers (for the tail: scoring, results,
  submission.json and the report of a test-split-sized run).

Figures per run (the table shows the median run by rate):

- items/s over the request phase (first item request to last answer, seen by the server), and
  as a share of the bound;
- start-up: launch to the first request reaching the server (the preflight's model listing,
  sent while the data is read), and to the first item request, which follows the preflight's
  probe request and so comes at least one server latency after the data is ready;
- tail: the server's last answer to the process's exit (scoring, results, report);
- harness CPU per item: the command's user + system CPU over the whole run, divided by items;
- peak RSS of the command (``ru_maxrss``), and the server's own CPU per item.

The server is an asyncio Protocol in its own process: it receives every byte of each body
(counting, not parsing) and answers a fixed completion after the latency, so it costs little
CPU and is not the bottleneck. The machine's other load shows in the wall-clock figures; CPU per
item and the share of the bound within one run are the steadier ones.

    python benchmarks/api_throughput.py --all              # the table in docs/benchmarks.md (both workloads, 32/64/256)
    python benchmarks/api_throughput.py --workload mmmu-pro-standard-10 --concurrency 64 --repeat 1
    python benchmarks/api_throughput.py --workload mmmu-test --concurrency 256 --repeat 1
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

MODEL = "bench-model"
COMPLETION = json.dumps({
    "id": "bench", "object": "chat.completion", "created": 0, "model": MODEL,
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "The answer is (B)."}}],
    "usage": {"prompt_tokens": 900, "completion_tokens": 6, "total_tokens": 906},
}).encode()
MODELS = json.dumps({"object": "list", "data": [
    {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}]}).encode()
QUESTION = (
    "The figure <image 1> shows the cost curves of a firm in a competitive market. At which output "
    "level does the firm maximise its profit, and what is the minimum of the average variable cost "
    "shown in the figure? Consider the marginal cost curve."
)


@dataclass(frozen=True)
class Workload:
    name: str
    benchmark: str
    where: tuple[str, ...]
    """``--split X`` or ``--setting X``."""
    items: int
    image_size: tuple[int, int]
    noise_rows: int
    """Rows of the picture with noise: what makes a PNG large."""
    describe: str


WORKLOADS = {
    w.name: w for w in (
        Workload("mmmu-validation", "mmmu", ("--split", "validation"), 900, (800, 600), 270,
                 "MMMU validation-shaped: 900 items, one 800x600 PNG each"),
        Workload("mmmu-pro-standard-10", "mmmu-pro", ("--setting", "standard-10"), 1730, (240, 180), 60,
                 "MMMU-Pro standard-10: 1,730 items, 10 options, one small PNG each"),
        Workload("mmmu-test", "mmmu", ("--split", "test"), 10_500, (240, 180), 60,
                 "MMMU test-split-sized: 10,500 items, one small PNG each, no answers"),
    )
}


# ------------------------------------------------------------------------------------ server

def serve(port_file: str, latency: float) -> None:
    """Run the fixed-latency server until killed; writes its port to ``port_file``.

    An asyncio Protocol rather than streams: it receives every byte of each body but only counts
    them (no buffering, no JSON parsing), so it spends little CPU on the cores the harness uses.
    ``/stats`` reports counts, times (``time.monotonic``, the same clock in every process) and
    its CPU since ``/reset``.
    """
    stats: dict = {}
    cpu_at_reset = [0.0]

    def reset() -> None:
        stats.update(chat=0, first_any=None, first_chat=[], last_reply=None, bytes=0, cpu=0.0, peak_in_flight=0)
        stats["in_flight"] = 0
        cpu_at_reset[0] = time.process_time()

    reset()

    def answer(path: str) -> bytes:
        if path == "/stats":
            stats["cpu"] = time.process_time() - cpu_at_reset[0]
            return json.dumps(stats).encode()
        if path == "/reset":
            reset()
            return b"{}"
        if stats["first_any"] is None:
            stats["first_any"] = time.monotonic()
        if path.endswith("/models"):
            return MODELS
        return b'{"error": {"message": "no route"}}'

    def reply(transport: asyncio.Transport, payload: bytes, chat: bool = False) -> None:
        if chat:
            stats["in_flight"] -= 1
            stats["last_reply"] = time.monotonic()
        if not transport.is_closing():
            transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                            + str(len(payload)).encode() + b"\r\n\r\n" + payload)

    class Connection(asyncio.Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:
            self.transport = transport
            self.head = b""  # request line and headers, until the blank line
            self.path = ""
            self.remaining = -1  # body bytes still to come; -1 while reading the head
            self.length = 0

        def data_received(self, data: bytes) -> None:
            while data:
                if self.remaining < 0:
                    self.head += data
                    end = self.head.find(b"\r\n\r\n")
                    if end < 0:
                        return
                    head, data = self.head[:end], self.head[end + 4:]
                    self.head = b""
                    lines = head.split(b"\r\n")
                    self.path = lines[0].split(b" ")[1].decode()
                    self.remaining = 0
                    for line in lines[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            self.remaining = int(value)
                    self.length = self.remaining
                take = min(self.remaining, len(data))
                self.remaining -= take
                data = data[take:]
                if self.remaining == 0:  # the whole body is in: answer
                    self.remaining = -1
                    self.finish(self.path)

        def finish(self, path: str) -> None:
            loop = asyncio.get_running_loop()
            if path.endswith("/chat/completions"):
                now = time.monotonic()
                if stats["first_any"] is None:
                    stats["first_any"] = now
                stats["chat"] += 1
                stats["bytes"] += self.length
                stats["in_flight"] += 1
                stats["peak_in_flight"] = max(stats["peak_in_flight"], stats["in_flight"])
                if len(stats["first_chat"]) < 2:
                    stats["first_chat"].append(now)
                loop.call_later(latency, reply, self.transport, COMPLETION, True)
            else:
                reply(self.transport, answer(path))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=2048)
        Path(port_file).write_text(str(server.sockets[0].getsockname()[1]))
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def get(port: int, path: str) -> dict:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data


class Server:
    """The fixed-latency server in its own process (``with Server(0.2) as port: ...``)."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __enter__(self) -> int:
        self._tmp = tempfile.TemporaryDirectory()
        port_file = Path(self._tmp.name) / "port"
        self._proc = subprocess.Popen([sys.executable, "-c",
                                       f"import runpy; m = runpy.run_path({__file__!r}, run_name='bench');"
                                       f" m['serve']({str(port_file)!r}, {self.latency})"])
        while not port_file.exists() or not port_file.read_text():
            if self._proc.poll() is not None:
                raise RuntimeError("the benchmark server did not start")
            time.sleep(0.05)
        return int(port_file.read_text())

    def __exit__(self, *exc: object) -> None:
        self._proc.kill()
        self._proc.wait()
        self._tmp.cleanup()


# --------------------------------------------------------------------------------- snapshots

def make_images(directory: Path, size: tuple[int, int], noise_rows: int, count: int = 16) -> list[bytes]:
    """PNGs of one size: a gradient with noise over part of it (the noise sets the file size)."""
    import numpy as np
    from PIL import Image

    width, height = size
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([x * 255 / width, y * 255 / height, (x + y) * 255 / (width + height)], -1)
    images = []
    for n in range(count):
        image = base.copy()
        top = (n * 10) % max(1, height - noise_rows)
        image[top: top + noise_rows] += rng.integers(0, 8, (min(noise_rows, height - top), width, 3))
        buffer = io.BytesIO()
        Image.fromarray(image.clip(0, 255).astype(np.uint8)).save(buffer, format="PNG")
        images.append(buffer.getvalue())
    return images


def build_snapshot(workload: Workload, root: Path) -> Path:
    """Write the workload's parquet files (hub layout) under ``root`` once; returns the snapshot."""
    from fakes.parquet_rows import image_cell, mmmu_row, pro_row, write_mmmu, write_pro

    from mmmu_eval.dataset.subjects import SUBJECTS

    snapshot = root / workload.name
    done = snapshot / ".complete"
    if done.exists():
        return snapshot
    shutil.rmtree(snapshot, ignore_errors=True)
    images = make_images(root, workload.image_size, workload.noise_rows)
    subjects = sorted(SUBJECTS)
    per, extra = divmod(workload.items, len(subjects))
    split = "test" if workload.name == "mmmu-test" else "validation"
    pro_rows = []
    n = 0
    for s, subject in enumerate(subjects):
        rows = []
        for k in range(1, per + (s < extra) + 1):
            item_id = f"{split}_{subject}_{k}"
            cell = image_cell(images[n % len(images)], f"{item_id}_1.png")
            n += 1
            if workload.benchmark == "mmmu-pro":
                options = str([f"{10 * (i + 1)} units of output" for i in range(10)])
                rows.append(pro_row(item_id, subject, question=QUESTION, image_1=cell, options=options, answer="B"))
            else:
                options = "['10 units', '20 units', '30 units', '40 units']"
                answer = "?" if split == "test" else "B"
                rows.append(mmmu_row(item_id, question=QUESTION, image_1=cell, answer=answer, options=options))
        if workload.benchmark == "mmmu-pro":
            pro_rows.extend(rows)
        else:
            write_mmmu(snapshot / "MMMU", subject, split, rows)
    if pro_rows:
        write_pro(snapshot / "MMMU_Pro", "standard-10", pro_rows, row_group_size=100)  # as `datasets` writes images
    done.touch()
    return snapshot


# ------------------------------------------------------------------------------- measuring

def command(workload: Workload, snapshot: Path, port: int, concurrency: int, out: Path) -> list[str]:
    """``mmmu-eval run ...`` exactly as a user would type it (the venv's console script)."""
    script = Path(sys.executable).with_name("mmmu-eval")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "mmmu_eval.cli.main"]
    return [*head, "run", "--benchmark", workload.benchmark, *workload.where, "--data", str(snapshot),
            "--model", f"openai:{MODEL}", "--base-url", f"http://127.0.0.1:{port}/v1",
            "--concurrency", str(concurrency), "--out", str(out)]


def measure(workload: Workload, snapshot: Path, port: int, concurrency: int, scratch: Path) -> dict[str, float]:
    """One ``mmmu-eval run`` in a fresh process, timed from launch to exit, with its rusage."""
    out = scratch / f"run-{workload.name}-{concurrency}"
    shutil.rmtree(out, ignore_errors=True)
    get(port, "/reset")
    log = scratch / "last-run.log"
    with log.open("wb") as sink:
        launched = time.monotonic()
        proc = subprocess.Popen(command(workload, snapshot, port, concurrency, out),
                                stdout=sink, stderr=subprocess.STDOUT, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        cpu_samples: list[tuple[float, float]] = []
        sampler = threading.Thread(target=_sample_cpu, args=(proc.pid, cpu_samples), daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        exited = time.monotonic()
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stats = get(port, "/stats")
    if proc.returncode != 0 or stats["chat"] != workload.items + 1:  # + the preflight probe
        raise RuntimeError(f"the run failed (exit {proc.returncode}, {stats['chat']} chat requests); "
                           f"its output:\n{log.read_text()[-3000:]}")
    first, last = stats["first_chat"][1], stats["last_reply"]  # first_chat[0] is the probe
    phase_cpu = _cpu_at(cpu_samples, last) - _cpu_at(cpu_samples, first)
    return {
        "phase_cpu_ms": 1000 * phase_cpu / workload.items if cpu_samples else float("nan"),
        "rate": workload.items / (last - first),
        "startup": first - launched,
        "probe": stats["first_any"] - launched,
        "tail": exited - last,
        "cpu_ms": 1000 * (usage.ru_utime + usage.ru_stime) / workload.items,
        "rss_mb": usage.ru_maxrss / 1024,
        "server_cpu_ms": 1000 * stats["cpu"] / workload.items,
        "peak_in_flight": stats["peak_in_flight"],
        "report_mb": (out / "report.html").stat().st_size / 2**20,
    }


def _sample_cpu(pid: int, samples: list[tuple[float, float]]) -> None:
    """(time, CPU seconds so far) of a running process, every 20 ms, from /proc (Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            return
        if fields[0] == b"Z":  # exited, not yet reaped
            return
        samples.append((time.monotonic(), (int(fields[11]) + int(fields[12])) / ticks))
        time.sleep(0.02)


def _cpu_at(samples: list[tuple[float, float]], when: float) -> float:
    """The CPU a process had used at ``when``, from the nearest sample before it."""
    before = [cpu for t, cpu in samples if t <= when]
    return before[-1] if before else 0.0


HEADER = ("| workload | in flight | items/s | bound | of bound | start-up to first request | to first item request "
          "| last answer to exit | harness CPU per item | peak RSS |")


def row(workload: Workload, concurrency: int, latency: float, runs: list[dict[str, float]]) -> str:
    """One markdown table row: the median run by rate, with the spread of rates."""
    runs = sorted(runs, key=lambda r: r["rate"])
    m = runs[len(runs) // 2]
    bound = concurrency / latency
    spread = f" ({runs[0]['rate']:.0f}-{runs[-1]['rate']:.0f})" if len(runs) > 1 else ""
    return (f"| {workload.name} ({workload.items:,}) | {concurrency} | {m['rate']:.0f}{spread} | {bound:.0f} "
            f"| {m['rate'] / bound:.0%} | {m['probe']:.2f} s | {m['startup']:.2f} s | {m['tail']:.2f} s | {m['cpu_ms']:.2f} ms "
            f"| {m['rss_mb']:.0f} MB |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true",
                        help="both workloads at 32, 64 and 256 in flight (the table in docs/benchmarks.md)")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), nargs="+", default=["mmmu-validation"])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 64, 256])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median by rate is shown")
    parser.add_argument("--workdir", type=Path, help="where snapshots are kept between runs (default: a temporary folder)")
    args = parser.parse_args()
    if args.all:
        args.workload, args.concurrency = ["mmmu-validation", "mmmu-pro-standard-10"], [32, 64, 256]

    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        scratch = Path(tmp) / "runs"
        scratch.mkdir()
        snapshots = {name: build_snapshot(WORKLOADS[name], workdir) for name in args.workload}
        print(f"server latency {args.latency} s, {os.cpu_count()} CPUs; median of {args.repeat} run(s) per row "
              "(the range of items/s in brackets); bound = in flight / latency")
        print(HEADER)
        print("|" + "---|" * (HEADER.count("|") - 1))
        details = []
        with Server(args.latency) as port:
            for name in args.workload:
                workload = WORKLOADS[name]
                for concurrency in args.concurrency:
                    runs = [measure(workload, snapshots[name], port, concurrency, scratch) for _ in range(args.repeat)]
                    print(row(workload, concurrency, args.latency, runs), flush=True)
                    details.append((workload.name, concurrency, runs))
        print()
        print("per run: launch to the first item request (after the preflight probe, which waits one server "
              "latency); the command's CPU per item between its "
              "first item request and last answer; peak in flight seen by the server; server CPU per item; "
              "report.html size")
        for name, concurrency, runs in details:
            for r in runs:
                print(f"  {name} @{concurrency}: {r['rate']:.0f} items/s, first item request {r['startup']:.2f} s, "
                      f"request-phase CPU {r['phase_cpu_ms']:.2f} ms/item, "
                      f"peak in flight {r['peak_in_flight']}, server {r['server_cpu_ms']:.2f} ms/item, "
                      f"report {r['report_mb']:.0f} MB")


if __name__ == "__main__":
    main()
