"""Screenshots of HTML pages in headless Chromium: one browser, a few pages, reused.

The Debian ``chromium`` package through Playwright (``executable_path``; never a browser
download), with ``--no-sandbox`` and ``--disable-background-networking``, as the report's
browser tests use it. ``workers`` pages take pages from one queue, so several screenshots are
in flight while one is encoded. Determinism: no GPU, sRGB, no font hinting or sub-pixel text,
device scale 1, and each page waits for its fonts and images before the capture, so the same
page gives the same PNG bytes on the same machine.

Every capture is checked as it is made (``capture_faults``): the PNG must be as wide as asked
and as tall as the page was laid out, and a page of ours (``#page``) must have no ink to the
right of or below its content, where only its margin is. Under load a capture once came back
with a cut-off second copy of the page at its right edge; a capture that fails the check is
redrawn on a fresh browser page, and ``redrawn`` keeps why, for the record.

    async with Screenshotter(workers=4) as shots:
        png = await shots.capture(html, width=800)
"""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from mmmu_eval.core.errors import ConfigError, DataError

__all__ = ["CHROMIUM", "Geometry", "Screenshotter", "capture_faults", "chromium_path"]

#: Where Debian's chromium lives; ``MMMU_EVAL_CHROMIUM`` overrides it.
CHROMIUM = "/usr/bin/chromium"
ARGS = (
    "--no-sandbox", "--disable-background-networking", "--disable-gpu", "--force-color-profile=srgb",
    "--font-render-hinting=none", "--disable-font-subpixel-positioning", "--disable-lcd-text",
    "--hide-scrollbars", "--mute-audio",
)
#: Seconds one page may take to load and be captured before it is that item's error.
PAGE_TIMEOUT_S = 60.0
#: The viewport each page is laid out in; pages up to this tall are captured without a resize.
VIEWPORT_HEIGHT = 2400
#: The page's own height: the body's, which has no margin and holds everything (the document's
#: scroll height would be the viewport's for a shorter page).
PAGE_HEIGHT_JS = "() => Math.ceil(document.body.getBoundingClientRect().height)"
TWO_FRAMES_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
#: The page's height, and the right and bottom edges of its content: the union of the content
#: boxes (padding and border excluded) of ``#page`` and everything in it, images and MathML
#: included. None for a page without ``#page`` (only its size is checked then).
GEOMETRY_JS = """() => {
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  const page = document.getElementById('page');
  if (!page) return {height: height, right: null, bottom: null};
  let right = 0, bottom = 0;
  for (const el of [page, ...page.querySelectorAll('*')]) {
    const box = el.getBoundingClientRect();
    if (!(box.width > 0 && box.height > 0)) continue;
    const css = getComputedStyle(el);
    right = Math.max(right, box.right - parseFloat(css.paddingRight || 0) - parseFloat(css.borderRightWidth || 0));
    bottom = Math.max(bottom, box.bottom - parseFloat(css.paddingBottom || 0) - parseFloat(css.borderBottomWidth || 0));
  }
  return {height: height, right: Math.ceil(right), bottom: Math.ceil(bottom)};
}"""
#: Captures of one page before it is that item's error.
CAPTURE_ATTEMPTS = 3
#: Pixels past the content's edge that glyph overhang may still reach.
INK_SLACK = 3
#: A pixel darker than this (0-255 luminance) is ink; every background of ours is lighter.
INK_LUMINANCE = 128


@dataclass(frozen=True)
class Geometry:
    """The page as laid out, in CSS pixels (device scale 1)."""

    width: int
    height: int
    right: int | None = None
    """Right edge of the content; None when unknown."""
    bottom: int | None = None
    """Bottom edge of the content; None when unknown."""


def capture_faults(png: bytes, geometry: Geometry) -> list[str]:
    """What is wrong with a capture of a page laid out as ``geometry``: empty when nothing.

    The size must match; no ink may lie in the margin right of or below the content.
    """
    import numpy as np
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as image:
            size = image.size
            grey = np.asarray(image.convert("L"))
    except Exception as exc:  # PIL raises many types for broken bytes; any means a broken capture
        return [f"the capture is not a readable PNG ({type(exc).__name__})"]
    faults = []
    if size != (geometry.width, geometry.height):
        faults.append(f"captured {size[0]}x{size[1]} px, laid out {geometry.width}x{geometry.height} px")
    if geometry.right is not None:
        right = grey[:, min(grey.shape[1], geometry.right + INK_SLACK):]
        if right.size and int((right < INK_LUMINANCE).sum()):
            faults.append(f"{int((right < INK_LUMINANCE).sum())} ink pixel(s) in the right margin (past x={geometry.right})")
    if geometry.bottom is not None:
        below = grey[min(grey.shape[0], geometry.bottom + INK_SLACK):, :]
        if below.size and int((below < INK_LUMINANCE).sum()):
            faults.append(f"{int((below < INK_LUMINANCE).sum())} ink pixel(s) below the content (past y={geometry.bottom})")
    return faults


def chromium_path() -> Path:
    """The browser to drive.

    Raises:
        ConfigError: it is not installed (the message says how to install it).
    """
    path = Path(os.environ.get("MMMU_EVAL_CHROMIUM", CHROMIUM))
    if not path.is_file():
        raise ConfigError(
            f"render needs Chromium at {path} (Debian: apt-get install chromium, or `make browser`; "
            "set MMMU_EVAL_CHROMIUM to use another); a browser is never downloaded"
        )
    return path


class Screenshotter:
    """One headless browser and ``workers`` reusable pages."""

    def __init__(self, *, workers: int = 4, executable: Path | None = None) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {workers}")
        self.workers = workers
        self.executable = executable or chromium_path()
        self.version = "unknown"
        """The browser's version, once started."""
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._pages: asyncio.Queue = asyncio.Queue()
        self.redrawn: dict[str, list[str]] = {}
        """Label -> what was wrong with each capture that was redrawn (nothing for a clean first one)."""

    async def __aenter__(self) -> "Screenshotter":
        try:
            from playwright.async_api import async_playwright
        except ImportError:
            raise ConfigError("render needs Playwright: pip install 'mmmu-eval[harden]'") from None
        self._pw = await async_playwright().start()
        try:
            self._browser = await self._pw.chromium.launch(executable_path=str(self.executable), args=list(ARGS))
            self.version = self._browser.version
            self._context = await self._browser.new_context(device_scale_factor=1, viewport={"width": 800, "height": 600})
            for _ in range(self.workers):
                await self._pages.put(await self._context.new_page())
        except Exception as exc:
            await self.__aexit__(None, None, None)
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"cannot start Chromium at {self.executable}: {exc}") from exc
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for closer in (self._context, self._browser):
            if closer is not None:
                try:
                    await closer.close()
                except Exception:  # the browser may already be gone; nothing left to release
                    pass
        if self._pw is not None:
            await self._pw.stop()
        self._pw = self._browser = self._context = None

    async def capture(self, html: str, *, width: int, label: str) -> bytes:
        """A PNG of the whole page at ``width`` pixels, checked (``capture_faults``) and redrawn when wrong.

        Raises:
            DataError: naming ``label``, when the page fails, times out, or every capture of it
                was wrong (its page is replaced each time).
        """
        faults: list[str] = []
        for _ in range(CAPTURE_ATTEMPTS):
            png, wrong = await self._capture_once(html, width=width, label=label)
            if not wrong:
                if faults:
                    self.redrawn[label] = faults
                return png
            faults.append("; ".join(wrong))
        raise DataError(f"every one of {CAPTURE_ATTEMPTS} captures was wrong ({' | '.join(faults)})", label)

    async def _capture_once(self, html: str, *, width: int, label: str) -> tuple[bytes, list[str]]:
        """One capture and what is wrong with it; a page that made a wrong one is replaced."""
        page = await self._pages.get()
        try:
            await page.set_viewport_size({"width": width, "height": VIEWPORT_HEIGHT})
            await page.set_content(html, wait_until="load", timeout=PAGE_TIMEOUT_S * 1000)
            await page.evaluate("() => document.fonts.ready.then(() => true)")
            # The page is clipped out of a viewport already taller than it, so what is captured is
            # what was laid out and painted. Two captures that relied on a resize lost text under
            # load: a full-page capture tiled the first 200 px down the image, and a viewport grown
            # to the page's height just before the capture came back with only its first 200 px
            # painted (the last options missing). A page taller than the viewport still needs the
            # resize; it then waits for two frames, so the capture follows a paint at the new size.
            laid_out = await page.evaluate(GEOMETRY_JS)
            height = max(1, int(laid_out["height"]))
            if height > VIEWPORT_HEIGHT:
                await page.set_viewport_size({"width": width, "height": height})
                await page.evaluate(TWO_FRAMES_JS)
            png = await self._screenshot(page, width, height)
            wrong = await asyncio.to_thread(capture_faults, png, Geometry(width, height, laid_out.get("right"), laid_out.get("bottom")))
            if wrong:
                await page.close()
                page = await self._context.new_page()
        except Exception as exc:
            try:
                await page.close()
            except Exception:  # a crashed page cannot be closed; it is dropped either way
                pass
            page = await self._context.new_page()
            raise DataError(f"the page could not be rendered ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})", label) from exc
        finally:
            await self._pages.put(page)
        return png, wrong

    async def _screenshot(self, page: Any, width: int, height: int) -> bytes:
        return await page.screenshot(
            type="png", animations="disabled", caret="hide", timeout=PAGE_TIMEOUT_S * 1000,
            clip={"x": 0, "y": 0, "width": width, "height": height},
        )
