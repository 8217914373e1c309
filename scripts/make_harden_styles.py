"""Render one page of each style for docs/harden.md: docs/harden-styles/*.png.

    python scripts/make_harden_styles.py

One question of the bundled sample (its bar chart) drawn by ``harden render``'s own page,
browser and photo code, once per style: serif, sans-serif with options in two columns,
handwriting, monospace, images after the question, and a photo of a screen. The photo is kept
as the JPEG render makes (its noise would make a PNG ten times larger).
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import random
from pathlib import Path

from PIL import Image

from mmmu_eval.dataset.load import find_item, load_dataset
from mmmu_eval.screenshots.browser import Screenshotter
from mmmu_eval.screenshots.item_page import Style
from mmmu_eval.screenshots.photo import draw_photo
from mmmu_eval.harden.render import render_item

OUT = Path(__file__).resolve().parent.parent / "docs" / "harden-styles"
STYLES = {
    "serif": Style("DejaVu Serif", 17, 640, "paper"),
    "sans-two-columns": Style("Carlito", 18, 640, "pale-blue", options_columns=2),
    "handwriting": Style("Comic Neue", 18, 640, "lined-paper"),
    "monospace": Style("DejaVu Sans Mono", 16, 640, "graph-paper", options_columns=2),
    "images-after-question": Style("Liberation Sans", 17, 640, "white", images="after question"),
    "photo": Style("Liberation Serif", 18, 640, "ivory", options_columns=2, medium="photo", photo=draw_photo(random.Random("docs:photo"))),
}


async def main() -> None:
    item = find_item(load_dataset("mmmu", split="validation", data="sample"), "validation_Economics_1")
    options = ("raven", "maple", "heron", "birch", "quartz", "cedar", "pine", "larch", "aspen", "none of the others")
    item = dataclasses.replace(item, question="The chart <image 1> shows prices by region. Which category has the highest value?",
                               options=options, answer="D")
    OUT.mkdir(exist_ok=True)
    async with Screenshotter(workers=1) as shots:
        for name, style in STYLES.items():
            data = await render_item(shots, item, item.options, style)
            path = OUT / f"{name}.{'jpg' if style.medium == 'photo' else 'png'}"
            if style.medium == "photo":
                path.write_bytes(data)
            else:
                with Image.open(io.BytesIO(data)) as image:
                    image.convert("RGB").save(path, format="PNG", optimize=True)
            print(f"{path.name} ({path.stat().st_size} bytes, {style.font}, {style.medium})")


if __name__ == "__main__":
    asyncio.run(main())
