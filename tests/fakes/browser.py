"""Headless Chromium for the pages' browser tests: the Debian package, never ``playwright install``.

    pytestmark = NEEDS_CHROMIUM
    with headless_chromium() as browser:
        page = browser.new_page()
        seen = watch(page)          # console errors, page errors, dialogs, requests off the page
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: Marks for a module of browser tests: slow, and skipped with the fix when Chromium is missing.
NEEDS_CHROMIUM = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing: run `make browser` (apt-get install chromium)"),
]


@contextmanager
def headless_chromium() -> Iterator[object]:
    """A Playwright browser on the system Chromium, offline."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Seen:
    """What a page did that a self-contained, inert page must not do."""

    problems: list[str] = field(default_factory=list)
    """Console errors and warnings, page errors, dialogs."""
    requests: list[str] = field(default_factory=list)
    """Requests to anything but ``file:`` and ``data:``."""


def watch(page) -> Seen:
    seen = Seen()
    page.on("console", lambda m: seen.problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: seen.problems.append(f"page error: {e}"))
    page.on("dialog", lambda d: (seen.problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("request", lambda r: seen.requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    return seen
