"""Render the example vision page of the harden guide (docs/guides/harden.md): docs/harden-example.png.

    python scripts/make_harden_example.py

One question of the bundled sample (its bar chart), its options grown to ten as ``augment``
would, with a formula in LaTeX, drawn by ``harden render``'s own page and browser code in the
style that seed 0 draws for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from mmmu_eval.dataset.load import find_item, load_dataset
from mmmu_eval.screenshots.browser import Screenshotter
from mmmu_eval.screenshots.item_page import choose_style, installed_fonts
from mmmu_eval.harden.render import render_item

OUT = Path(__file__).resolve().parent.parent / "docs" / "harden-example.png"


async def main() -> None:
    item = find_item(load_dataset("mmmu", split="validation", data="sample"), "validation_Economics_1")
    options = ("raven", "maple", "$p = \\frac{3}{4}\\,q$", "heron", "birch", "quartz", "cedar", "pine", "larch", "none of the others")
    item = dataclasses.replace(item, question="<image 1> The chart shows prices by region. Which category has the highest value?",
                               options=options, answer="E")  # birch: the tallest bar
    style = choose_style(0, item.id, installed_fonts(), photo_share=0.0)
    async with Screenshotter(workers=1) as shots:
        OUT.write_bytes(await render_item(shots, item, item.options, style))
    print(f"{OUT} ({OUT.stat().st_size} bytes, {style})")


if __name__ == "__main__":
    asyncio.run(main())
