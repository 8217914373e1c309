"""Items per second of the hf: backend at batch sizes 1, 4 and 16, on a tiny random model (CPU).

The tiny LLaVA (hidden size 32, 2 layers; tests/fakes/tiny_models.py) makes the per-call
overhead visible, which is what batching removes: Python and processor work per generate()
call, and one forward pass per new token for the whole batch instead of per item. tokens/s
counts the new tokens actually generated (a random model sometimes says its end token early). Real models on a GPU are a different regime: see the report.

    .venv/bin/python benchmarks/hf_batching.py                 # 48 items, 32 new tokens
    .venv/bin/python benchmarks/hf_batching.py --items 96 --max-tokens 64 --model idefics3
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from PIL import Image  # noqa: E402

from fakes.tiny_models import build_tiny_idefics3, build_tiny_llava  # noqa: E402
from mmmu_eval.backends.hf_transformers import HFBackend  # noqa: E402
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart  # noqa: E402


def make_requests(n: int, max_tokens: int) -> list[Request]:
    """MMMU-shaped requests: a question, one or two images (PNG, 200-400 px), 4 options."""
    settings = GenerationSettings(max_tokens=max_tokens)
    requests = []
    for i in range(n):
        images = []
        for j in range(1 + i % 2):
            buf = io.BytesIO()
            Image.new("RGB", (200 + 7 * i % 200, 150 + 11 * j), (i * 5 % 256, 90, 200)).save(buf, "PNG")
            images.append(ImagePart(ImageRef.from_bytes(f"image_{j + 1}", buf.getvalue())))
        parts = [TextPart(f"Question {i}: which option describes the figure "), images[0],
                 TextPart("?" + " Consider the table carefully." * (i % 4))]
        parts += images[1:]
        parts.append(TextPart("\n(A) cat\n(B) dog\n(C) tree\n(D) house\nAnswer with the option's letter."))
        requests.append(Request(f"bench_{i}", tuple(parts), choices=("A", "B", "C", "D"), generation=settings))
    return requests


async def measure(model_dir: Path, batch_size: int, requests: list[Request], repeats: int) -> tuple[float, int, int]:
    """Best wall time of ``repeats`` passes (the machine is shared: the best is the least
    disturbed), with the error count and the new tokens of the last pass."""
    backend = HFBackend(str(model_dir), batch_size=batch_size, device="cpu")
    await backend.preflight(requests)
    async for _ in backend.generate(requests[:batch_size]):  # warm-up: first-call allocations
        pass
    elapsed = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        responses = [r async for r in backend.generate(requests)]
        elapsed = min(elapsed, time.perf_counter() - start)
    await backend.aclose()
    errors = sum(r.status == "error" for r in responses)
    return elapsed, errors, sum(r.completion_tokens or 0 for r in responses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=48)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--model", choices=("llava", "idefics3"), default="llava")
    parser.add_argument("--batch-sizes", default="1,4,16")
    parser.add_argument("--repeats", type=int, default=3, help="passes per batch size; the best counts")
    args = parser.parse_args()
    import torch

    requests = make_requests(args.items, args.max_tokens)
    with tempfile.TemporaryDirectory() as tmp:
        build = build_tiny_llava if args.model == "llava" else build_tiny_idefics3
        model_dir = build(Path(tmp) / args.model)
        print(f"tiny {args.model}, {args.items} items, {args.max_tokens} new tokens each, "
              f"CPU, {torch.get_num_threads()} torch threads, best of {args.repeats}")
        print(f"{'batch':>5} {'seconds':>8} {'items/s':>8} {'tokens/s':>9} {'speed-up':>8}")
        base = None
        for size in (int(s) for s in args.batch_sizes.split(",")):
            elapsed, errors, tokens = asyncio.run(measure(model_dir, size, requests, args.repeats))
            rate = args.items / elapsed
            base = base or rate
            note = f"  ({errors} errors)" if errors else ""
            print(f"{size:>5} {elapsed:>8.2f} {rate:>8.1f} {tokens / elapsed:>9.0f} {rate / base:>7.1f}x{note}")


if __name__ == "__main__":
    main()
