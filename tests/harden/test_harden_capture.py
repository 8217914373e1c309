"""The screenshot holds the whole page, painted to its last row, short or taller than the viewport.

Several pages are captured at once (the workers share one browser), as render does; the bottom
band of each page has its own colour, which a capture of an unpainted or tiled frame lacks.
"""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

from mmmu_eval.harden.browser import VIEWPORT_HEIGHT, Screenshotter

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("chromium")]

BOTTOM = (200, 30, 90)


def banded_page(height: int) -> str:
    """A white page ``height`` px tall whose last 40 px are one colour."""
    r, g, b = BOTTOM
    return (
        "<!DOCTYPE html><html><head><style>html,body{margin:0;padding:0}body{background:#fff;width:300px}"
        f"#top{{height:{height - 40}px}}#bottom{{height:40px;background:rgb({r},{g},{b})}}</style></head>"
        "<body><div id=\"top\">top</div><div id=\"bottom\"></div></body></html>"
    )


async def capture_all(heights: list[int]) -> list[bytes]:
    async with Screenshotter(workers=3) as shots:
        return await asyncio.gather(*(shots.capture(banded_page(h), width=300, label=f"page-{h}") for h in heights))


def test_each_capture_is_the_page_and_its_last_rows_are_painted():
    heights = [344, 180, 900, VIEWPORT_HEIGHT, VIEWPORT_HEIGHT + 700, 344, 3 * VIEWPORT_HEIGHT]
    for height, png in zip(heights, asyncio.run(capture_all(heights))):
        image = Image.open(io.BytesIO(png)).convert("RGB")
        assert image.size == (300, height), f"page {height} px captured as {image.size}"
        assert image.getpixel((150, height - 5)) == BOTTOM, f"page {height} px: last rows not painted"
        assert image.getpixel((150, height - 45)) == (255, 255, 255), f"page {height} px: the band is not at the bottom"
