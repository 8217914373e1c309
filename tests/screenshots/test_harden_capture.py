"""The screenshot holds the whole page, painted to its last row, short or taller than the viewport.

Several pages are captured at once (the workers share one browser), as render does; the bottom
band of each page has its own colour, which a capture of an unpainted or tiled frame lacks.
"""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

from mmmu_eval.core.errors import DataError
from mmmu_eval.screenshots.browser import VIEWPORT_HEIGHT, Geometry, Screenshotter, capture_faults

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


def our_page(width: int = 640) -> str:
    """A page of render's own kind: content in ``#page``, inside a 40 px margin."""
    return (
        "<!DOCTYPE html><html><head><style>html,body{margin:0;padding:0}"
        f"body{{background:#fffdf4;width:{width}px}}#page{{box-sizing:border-box;width:{width}px;padding:40px;"
        "font:20px 'DejaVu Sans';color:#1b1b1b}</style></head><body><div id=\"page\">"
        "<p>Which planet is known as the Red Planet?</p><ol><li>A. Mars</li><li>B. Venus</li></ol></div></body></html>"
    )


def with_a_copy_at_the_right_edge(png: bytes) -> bytes:
    """The fault seen under load: a cut-off second copy of the page at its right edge."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    spoiled = image.copy()
    spoiled.paste(image, (image.width - 60 - 40, 0))  # the copy's text starts 60 px before the edge
    out = io.BytesIO()
    spoiled.save(out, format="PNG")
    return out.getvalue()


class SpoilsFirstCaptures(Screenshotter):
    """The real browser, with the first ``spoil`` screenshots damaged as under load."""

    def __init__(self, spoil: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.spoil = spoil

    async def _screenshot(self, page, width, height):
        png = await super()._screenshot(page, width, height)
        if self.spoil:
            self.spoil -= 1
            return with_a_copy_at_the_right_edge(png)
        return png


async def capture_with(shots_factory, html: str) -> tuple[bytes, dict]:
    async with shots_factory() as shots:
        png = await shots.capture(html, width=640, label="validation_Economics_3")
        return png, dict(shots.redrawn)


def test_a_capture_with_ink_in_its_margin_is_redrawn_and_the_clean_one_kept():
    clean, redrawn = asyncio.run(capture_with(lambda: Screenshotter(workers=1), our_page()))
    assert redrawn == {}
    got, redrawn = asyncio.run(capture_with(lambda: SpoilsFirstCaptures(2, workers=1), our_page()))
    assert got == clean
    assert len(redrawn["validation_Economics_3"]) == 2 and all("right margin" in f for f in redrawn["validation_Economics_3"])


def test_a_page_whose_every_capture_is_wrong_is_that_items_error():
    with pytest.raises(DataError, match=r"validation_Economics_3: every one of 3 captures was wrong \(.*ink pixel"):
        asyncio.run(capture_with(lambda: SpoilsFirstCaptures(3, workers=1), our_page()))


def test_the_check_reads_size_and_margins():
    blank = Image.new("RGB", (200, 100), (255, 255, 255))
    def encoded(image):
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()
    assert capture_faults(encoded(blank), Geometry(200, 100, 150, 80)) == []
    assert capture_faults(encoded(blank), Geometry(200, 120, 150, 80)) == ["captured 200x100 px, laid out 200x120 px"]
    inked = blank.copy()
    inked.putpixel((190, 10), (0, 0, 0))
    inked.putpixel((10, 95), (0, 0, 0))
    assert capture_faults(encoded(inked), Geometry(200, 100, 150, 80)) == [
        "1 ink pixel(s) in the right margin (past x=150)", "1 ink pixel(s) below the content (past y=80)"]
    assert capture_faults(encoded(inked), Geometry(200, 100)) == [], "without the content's edges only the size counts"
    assert capture_faults(b"not a png", Geometry(1, 1)) == ["the capture is not a readable PNG (UnidentifiedImageError)"]
