"""Load a written page in headless Chromium at a window width and find what does not fit.

``check_page`` opens the page offline, waits for its script, and asks the page itself, for every
visible HTML element, whether its content is wider than its box (``scrollWidth`` against
``clientWidth``): an element whose overflow is visible then sticks out of its container, and one
whose overflow is hidden clips its text. Scroll containers (``overflow: auto``, e.g. a raw
response) scroll by design and are left alone; so is the inside of an SVG, whose labels the
chart code sizes itself. It also records console errors and page errors, and writes a
screenshot of the page's top ``SHOT_HEIGHT`` px (the whole page when it is shorter) to
``ARTIFACTS / <name>-<width>.png`` for a person to look at after ``make test``. The screenshot is
bounded because the audit page of ten paper-era runs is 164,000 px tall: its full-page
screenshot, a 20 MB PNG, took 11 s here and over 30 s (Playwright's timeout) on the CI
machine's Chromium, while the overflow check above reads the whole page without it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fakes.browser import watch

#: Screenshots of every page at every width (git-ignored); MMMU_EVAL_TEST_ARTIFACTS moves them.
ARTIFACTS = Path(os.environ.get("MMMU_EVAL_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "pages"
WIDTHS = (1024, 1400)
#: The most of a page's height the screenshot takes, in CSS px.
SHOT_HEIGHT = 12_000

_OVERFLOWS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) out.push(`page: ${doc.scrollWidth} px wide in a ${doc.clientWidth} px window`);
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') || el.tagName === 'OPTION' || el.tagName === 'SCRIPT') continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
    if (['auto', 'scroll'].includes(style.overflowX)) continue;
    if (el.clientWidth === 0 && style.display === 'inline') continue;  // inline boxes have no client width
    if (el.scrollWidth > el.clientWidth + 1) {
      const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
      const text = (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 70);
      out.push(`${what}: content ${el.scrollWidth} px in ${el.clientWidth} px (overflow ${style.overflowX}): "${text}"`);
    }
  }
  return out;
}"""


@dataclass
class Layout:
    width: int
    overflows: list[str]
    problems: list[str]
    screenshot: Path


def check_page(browser, path: Path, name: str, width: int, *, ready: str = "main, body") -> Layout:
    """Open ``path`` at ``width`` px, wait for ``ready``, and report overflow, errors and the screenshot."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    seen = watch(page)
    page.goto(path.as_uri())
    page.wait_for_selector(ready)
    page.wait_for_load_state("load")
    overflows = page.evaluate(_OVERFLOWS)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{name}-{width}.png"
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(path=str(shot), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": min(height, SHOT_HEIGHT)})
    page.close()
    return Layout(width, overflows, seen.problems + [f"request off the page: {u}" for u in seen.requests], shot)
