"""Peak memory of ``mmmu-eval run --max-image-pixels`` over images far larger than the budget.

Issue 40's case: a 13000x13000 PNG (a white page with a drawing, about 0.7 MB on disk, 507 MB
decoded) in two items, scaled to ``--max-image-pixels 1000000``. Decoded whole before it was
scaled, the run peaked at 2.87 GB; decoded a strip at a time and reduced as it comes
(``prompt/image_scaling.py``) it needs memory in proportion to the scaled image. The same two
items with a 13000x13000 JPEG show the reduced-scale decoding (``draft``).

Each figure is the whole command in a fresh process against the fake server, its peak resident
memory the kernel's high-water mark (``VmHWM``, as in ``run_memory.py``), beside the same
command with 800x600 images of the same kind (what the run costs anyway). ``--src`` runs another
checkout's package beside this one: before and after in one session.

    python benchmarks/large_images.py
    python benchmarks/large_images.py --src ../main/src
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from run_memory import measured  # noqa: E402


def page(size: tuple[int, int], fmt: str) -> bytes:
    """A white page with a grid and a few filled boxes, as a scanned figure might be."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    for x in range(0, w, max(1, w // 40)):
        draw.line([(x, 0), (x, h)], fill=(200, 200, 200), width=max(1, w // 2000))
    for n in range(12):
        left, top = (n * 977) % (w * 3 // 4), (n * 1451) % (h * 3 // 4)
        draw.rectangle([left, top, left + w // 6, top + h // 9], fill=((n * 60) % 256, 90, 160), outline="black")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    return buffer.getvalue()


def snapshot(root: Path, image: bytes) -> Path:
    from fakes.parquet_rows import image_cell, mmmu_row, write_mmmu

    rows = [mmmu_row(f"validation_Art_{n}", question=f"Look at <image 1>. Item {n}: which box is largest?",
                     image_1=image_cell(image, f"{n}.img")) for n in (1, 2)]
    write_mmmu(root, "Art", "validation", rows)
    return root


def main() -> None:
    from fakes.fault_server import FaultServer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--side", type=int, default=13000, help="width and height of the large images (default 13000)")
    parser.add_argument("--max-image-pixels", type=int, default=1_000_000)
    parser.add_argument("--src", type=Path, action="append", default=[], help="another checkout's package, run beside")
    args = parser.parse_args()
    sources = [HERE.parent / "src", *args.src]
    cases = {f"{fmt} {side}x{side}": (fmt, side) for fmt in ("PNG", "JPEG") for side in (800, args.side)}
    rows = []
    with tempfile.TemporaryDirectory() as name, FaultServer(fault_rate=0.0) as server:
        tmp = Path(name)
        for case, (fmt, side) in cases.items():
            data = page((side, side), fmt)
            root = snapshot(tmp / case.replace(" ", "-"), data)
            del data
            for src in sources:
                env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(src.resolve())}
                out = tmp / f"out-{len(rows)}"
                argv = [sys.executable, "-m", "mmmu_eval", "run", "--model", "openai:fake-model", "--base-url", server.url,
                        "--data", str(root), "--subjects", "Art", "--out", str(out), "--concurrency", "2",
                        "--max-image-pixels", str(args.max_image_pixels), "--no-html"]
                peak, _ = measured(argv, env)
                stored = sum(json.loads(line)["status"] == "ok" for line in (out / "responses.jsonl").read_text().splitlines())
                rows.append((case, next(root.rglob("*.parquet")).stat().st_size, src, peak, stored))
                print(rows[-1], flush=True)
    print(f"two items, each one image, --max-image-pixels {args.max_image_pixels:,}; peak RSS of the whole command")
    print(f"{'image':<16} {'parquet':>9}  {'package':<40} {'peak RSS':>9}  answered")
    for case, size, src, peak, stored in rows:
        print(f"{case:<16} {size / 1e6:>6.2f} MB  {str(src):<40} {peak:>6.0f} MB  {stored} of 2")


if __name__ == "__main__":
    main()
