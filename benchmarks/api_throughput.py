"""Throughput of the OpenAI-compatible backend against a local server with a fixed latency.

The workload of the issue: MMMU-sized items (one 800x600 PNG of about 300 KB and a prompt of a
few hundred characters each) sent to a server that answers every chat request after exactly
``--latency`` seconds (0.2 by default). With N requests in flight the best possible rate is
N / latency items per second (the bound); the harness should come close to it. For each
concurrency the benchmark starts a fresh Python process (so start-up and memory are measured as a
user meets them) and reports:

- items/s over the run, and as a share of the bound;
- start-up: seconds from launching the process (imports, building the requests, preflight) to
  the first item request reaching the server;
- the harness's own CPU time per item (all its threads), which says how many requests one
  core can keep in flight;
- peak RSS of the harness process.

The server is an asyncio Protocol in its own process: it receives every byte of each body
(counting, not parsing) and answers a fixed completion after the latency, so it costs little
CPU and is not the bottleneck (its CPU per item is printed too). Images are read from files through
lazy ``ImageRef`` loaders, as the dataset does.

    python benchmarks/api_throughput.py                    # 900 items, latency 0.2 s
    python benchmarks/api_throughput.py --concurrency 64 --items 300
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPLETION = json.dumps({
    "id": "bench", "object": "chat.completion", "created": 0, "model": "bench-model",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "The answer is (B)."}}],
    "usage": {"prompt_tokens": 900, "completion_tokens": 6, "total_tokens": 906},
}).encode()
MODELS = json.dumps({"object": "list", "data": [
    {"id": "bench-model", "object": "model", "created": 0, "owned_by": "bench"}]}).encode()
PROMPT = (
    "Question: The figure <image 1> shows the cost curves of a firm in a competitive market. "
    "At which output level does the firm maximise its profit, and what is the minimum of the "
    "average variable cost shown in the figure? Consider the marginal cost curve.\n"
    "Options:\n(A) 10 units\n(B) 20 units\n(C) 30 units\n(D) 40 units\n"
    "Answer with the option's letter from the given choices directly."
)


# ------------------------------------------------------------------------------------ server

def serve(port_file: str, latency: float) -> None:
    """Run the fixed-latency server until killed; writes its port to ``port_file``.

    An asyncio Protocol rather than streams: it receives every byte of each body but only counts
    them (no buffering, no JSON parsing), so it spends little CPU on the cores the harness uses.
    """
    stats = {"chat": 0, "first_chat": [], "bytes": 0, "cpu": 0.0}
    cpu_at_reset = [time.process_time()]

    def answer(path: str) -> bytes:
        if path == "/stats":
            stats["cpu"] = time.process_time() - cpu_at_reset[0]
            return json.dumps(stats).encode()
        if path == "/reset":
            stats.update(chat=0, first_chat=[], bytes=0, cpu=0.0)
            cpu_at_reset[0] = time.process_time()
            return b"{}"
        if path.endswith("/models"):
            return MODELS
        return b'{"error": {"message": "no route"}}'

    def reply(transport: asyncio.Transport, payload: bytes) -> None:
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
                stats["chat"] += 1
                stats["bytes"] += self.length
                if len(stats["first_chat"]) < 2:
                    stats["first_chat"].append(time.monotonic())
                loop.call_later(latency, reply, self.transport, COMPLETION)
            else:
                reply(self.transport, answer(path))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=1024)
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


# ----------------------------------------------------------------------------------- harness

def child(port: int, concurrency: int, items: int, image_dir: str) -> None:
    """One measured run in a fresh process; prints a JSON line of figures."""
    from mmmu_eval.backends.openai_api import OpenAIBackend
    from mmmu_eval.backends.retry import RetryPolicy
    from mmmu_eval.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

    files = sorted(Path(image_dir).glob("*.png"))
    settings = GenerationSettings(max_tokens=16, temperature=0.0)

    def ref(path: Path) -> ImageRef:
        return ImageRef("image_1", path.read_bytes)  # read lazily, when the request is built

    requests = [
        Request(f"validation_Bench_{n}",
                parts=(TextPart(f"[{n}] {PROMPT[:60]}"), ImagePart(ref(files[n % len(files)])), TextPart(PROMPT[60:])),
                choices=("A", "B", "C", "D"), generation=settings)
        for n in range(items)
    ]

    async def run() -> dict:
        backend = OpenAIBackend("bench-model", base_urls=[f"http://127.0.0.1:{port}/v1"], api_key="EMPTY",
                                concurrency=concurrency, policy=RetryPolicy(timeout=60))
        await backend.preflight(requests)
        cpu0, t0 = time.process_time(), time.monotonic()
        ok = 0
        async for response in backend.generate(requests):
            ok += response.status == "ok"
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        await backend.aclose()
        return {"ok": ok, "elapsed": elapsed, "cpu": cpu}

    figures = asyncio.run(run())
    figures["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures), flush=True)


def measure(port: int, concurrency: int, items: int, image_dir: Path) -> dict[str, float]:
    """One run in a fresh process: its rate, start-up, CPU per item, memory and the server's CPU."""
    get(port, "/reset")
    spawned = time.monotonic()
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(port), str(concurrency), str(items), str(image_dir)],
        check=True, capture_output=True, text=True,
    )
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    stats = get(port, "/stats")
    assert figures["ok"] == items and stats["chat"] == items + 1, (figures, stats)  # + the probe
    return {
        "rate": items / figures["elapsed"],
        "startup": stats["first_chat"][1] - spawned,  # [0] is the preflight probe
        "cpu_ms": 1000 * figures["cpu"] / items,
        "rss_mb": figures["rss_mb"],
        "server_cpu_ms": 1000 * stats["cpu"] / items,
    }


def make_images(directory: Path, count: int = 16) -> int:
    """MMMU-sized PNGs: 800x600, a gradient with noise over part of it (about 300 KB each)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:600, 0:800]
    base = np.stack([x * 255 / 800, y * 255 / 600, (x + y) * 255 / 1400], -1)
    total = 0
    for n in range(count):
        image = base.copy()
        rows = 270
        image[n * 10: n * 10 + rows] += rng.integers(0, 8, (rows, 800, 3))
        buffer = io.BytesIO()
        Image.fromarray(image.clip(0, 255).astype(np.uint8)).save(buffer, format="PNG")
        (directory / f"img{n:02d}.png").write_bytes(buffer.getvalue())
        total += len(buffer.getvalue())
    return total // count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64, 256])
    parser.add_argument("--items", type=int, default=900)
    parser.add_argument("--items-at-1", type=int, default=50,
                        help="items at concurrency 1 (900 would take 3 minutes at the bound)")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency; the median is shown")
    parser.add_argument("--child", nargs=4, metavar=("PORT", "CONCURRENCY", "ITEMS", "IMAGES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        port, concurrency, items, images = args.child
        child(int(port), int(concurrency), int(items), images)
        return

    with tempfile.TemporaryDirectory() as tmp:
        image_dir = Path(tmp) / "images"
        image_dir.mkdir()
        mean_size = make_images(image_dir)
        port_file = Path(tmp) / "port"
        server = subprocess.Popen([sys.executable, "-c",
                                   f"import runpy; m = runpy.run_path({__file__!r}, run_name='bench');"
                                   f" m['serve']({str(port_file)!r}, {args.latency})"])
        try:
            while not port_file.exists() or not port_file.read_text():
                time.sleep(0.05)
            port = int(port_file.read_text())
            print(f"{args.items} items, one 800x600 PNG each (mean {mean_size / 1024:.0f} KB), "
                  f"server latency {args.latency} s, {os.cpu_count()} CPUs")
            print(f"median of {args.repeat} runs per row; 'range' is the slowest and fastest run")
            print(f"{'concurrency':>11} {'items':>6} {'items/s':>8} {'range':>9} {'bound':>7} {'of bound':>8} "
                  f"{'start-up s':>10} {'CPU ms/item':>11} {'peak RSS MB':>11} {'server CPU ms/item':>18}")
            for concurrency in args.concurrency:
                items = args.items_at_1 if concurrency == 1 else args.items
                runs = sorted((measure(port, concurrency, items, image_dir) for _ in range(args.repeat)),
                              key=lambda run: run["rate"])
                median = runs[len(runs) // 2]
                bound = concurrency / args.latency
                spread = f"{runs[0]['rate']:.0f}-{runs[-1]['rate']:.0f}"
                print(f"{concurrency:>11} {items:>6} {median['rate']:>8.1f} {spread:>9} {bound:>7.0f} "
                      f"{median['rate'] / bound:>8.0%} {median['startup']:>10.2f} {median['cpu_ms']:>11.2f} "
                      f"{median['rss_mb']:>11.0f} {median['server_cpu_ms']:>18.2f}", flush=True)
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
