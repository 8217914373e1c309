"""How fast ``harden render`` draws vision pages: items per second by the number of browser pages.

Synthesises ten-option questions with one 800x600 PNG figure each (the size of a typical MMMU
image), a line of LaTeX in every fifth, and renders them with one headless Chromium and 1, 2 and
4 reusable pages, the way the render step does (``render_item``: page, images as data URLs,
fonts awaited, the capture checked, photos made), with no photos and with the default share.
Prints items/s per row, measured after the browser started.

    .venv/bin/python benchmarks/harden_render.py [N_ITEMS]
"""

from __future__ import annotations

import asyncio
import io
import random
import sys
import time

from PIL import Image, ImageDraw

from mmmu_eval.screenshots.browser import Screenshotter
from mmmu_eval.screenshots.item_page import PHOTO_SHARE, choose_style, installed_fonts
from mmmu_eval.harden.render import render_item
from mmmu_eval.core.records import ImageRef, Item


def figure(seed: int) -> bytes:
    rng = random.Random(seed)
    img = Image.new("RGB", (800, 600), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    for k in range(12):
        x = 40 + 60 * k
        draw.rectangle([x, 560 - rng.randrange(50, 500), x + 40, 560], fill=(rng.randrange(256), 90, 160))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def items(n: int) -> list[Item]:
    out = []
    for k in range(n):
        question = f"<image 1> Question {k}: which bar of the chart is the tallest one, counted from the left?"
        if k % 5 == 0:
            question += r" Use $h = \frac{v^2}{2g}$ where needed."
        options = tuple(f"bar number {j + 1}" for j in range(10))
        out.append(Item(f"test_Physics_{k}", "mmmu-pro", "test", "standard-10", "Physics", "Science", question, options,
                        "C", "multiple-choice", (ImageRef.from_bytes("image_1", figure(k)),)))
    return out


async def rate(batch: list[Item], workers: int, photo_share: float) -> float:
    fonts = installed_fonts()
    async with Screenshotter(workers=workers) as shots:
        started = time.perf_counter()
        await asyncio.gather(*(render_item(shots, it, it.options, choose_style(0, it.id, fonts, options=it.options, photo_share=photo_share))
                               for it in batch))
        return len(batch) / (time.perf_counter() - started)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    batch = items(n)
    print(f"{n} ten-option items, one 800x600 PNG each\n")
    print("| pages | items/s, screenshots only | items/s, 30% photos (the default) |\n|---|---|---|")
    for workers in (1, 2, 4):
        print(f"| {workers} | {asyncio.run(rate(batch, workers, 0.0)):.1f} | {asyncio.run(rate(batch, workers, PHOTO_SHARE)):.1f} |")


if __name__ == "__main__":
    main()
