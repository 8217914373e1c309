"""Headless Chromium for the pages' browser tests: the Debian package, never ``playwright install``.

Chromium is found on PATH, as ``make browser`` looks for it before installing it. Without it (or
without Playwright) a browser test skips with the fix; under ``CI=true`` it fails (``fakes.required``).

    pytestmark = NEEDS_CHROMIUM
    with headless_chromium() as browser:
        page = browser.new_page()
        seen = watch(page)          # console errors, page errors, dialogs, requests off the page
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import pytest

from fakes import required

#: Marks for a module of browser tests (``headless_chromium`` checks that Chromium is there).
NEEDS_CHROMIUM = [pytest.mark.slow]


@contextmanager
def headless_chromium() -> Iterator[object]:
    """A Playwright browser on the system Chromium, offline; skips (under CI fails) without one."""
    chromium = required.executable("chromium", "the browser tests need Chromium: run `make browser` (apt-get install chromium)")
    sync_api = required.module("playwright.sync_api", "the browser tests drive Chromium with Playwright (the test extra)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium),
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
