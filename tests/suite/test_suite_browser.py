"""The suite's report.html in headless Chromium: opens offline without errors, the flip browser shows
both settings side by side and filters, hostile model text stays inert.

Uses the Debian chromium (``make browser`` installs it); never ``playwright install``.
Set MMMU_EVAL_SCREENSHOT=path.png to keep a screenshot.
"""

from __future__ import annotations

import os
from typing import AsyncIterator, Sequence

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium, watch

from mmmu_eval.core.records import Request, Response
from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet

pytestmark = NEEDS_CHROMIUM

HOSTILE = (
    '</script><script>window.__pwned=1</script><img id="injected" src=x onerror="window.__pwned=2">'
    "<!-- <svg onload=window.__pwned=3>"
)


class HostileBackend:
    """Answers every item with letter A wrapped in text that would run if it were ever parsed as HTML."""

    spec = "hostile<b>model</b>"

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            yield Response(request.item_id, "ok", text=f"{HOSTILE} The answer is (A).", finish_reason="stop")

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, object]:
        return {"backend": HOSTILE}


@pytest.fixture
def result(tmp_path):
    """Made before the browser starts: Playwright's sync API runs an event loop of its own."""
    return evaluate_suite(model=HostileBackend(), data="sample", prompts="direct", out=tmp_path / "suite",
                          display=quiet(), bootstrap=50)


@pytest.fixture
def browser():
    with headless_chromium() as browser:
        yield browser


def test_suite_report_opens_offline_shows_flips_side_by_side_and_keeps_hostile_text_inert(result, browser):
    flips = result.summary["flips"]["right_4_wrong_10"]
    assert flips["count"] > 0, "answering A everywhere flips the items whose gold is A with 4 options only"

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    seen = watch(page)
    problems, requests = seen.problems, seen.requests
    page.goto((result.suite_dir / "report.html").as_uri())
    page.wait_for_function("document.querySelectorAll('#items article.item').length > 0")

    # A suite on the synthetic sample: its Table 1 row stands alone, its scope said (issue 28).
    table = page.inner_text("table.t1")
    assert "Random Choice" not in table and "GPT-4o (0513)" not in table
    assert "the published rows are left out" in page.inner_text("#table1-scope")
    assert "bundled sample" in page.inner_text("#scope")
    assert "hostile<b>model</b>" in page.inner_text("tr.me")
    assert "no standard-4 cot run" in page.inner_text("#cot")  # this suite ran the direct prompt only

    # Flip set 1: every item shown with both settings, their options and both responses.
    shown = page.eval_on_selector_all("#items article.item", "els => els.map(e => e.dataset.id)")
    assert shown == [f["id"] for f in flips["items"]][:20]
    card = page.locator(f'article[data-id="{shown[0]}"]')
    text = card.inner_text()
    assert "standard-4 (direct)" in text and "standard-10 (direct)" in text
    assert text.count("window.__pwned=2") == 2, "both responses shown, as text"
    assert card.locator(".pair > div").count() == 2 and card.locator("ol.opts").count() == 2
    every = flips["count"] + result.summary["flips"]["right_standard_wrong_vision"]["count"]
    assert page.inner_text("#f-count") == f"{flips['count']} of {every} items"

    # Nothing hostile ran or became an element; nothing was fetched.
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#injected").count() == 0 and page.locator("svg[onload], img[onerror]").count() == 0
    assert page.locator("tr.me b", has_text="model").count() == 0
    assert requests == [] and problems == []

    # Filters: the other flip set, a discipline, a search.
    other = result.summary["flips"]["right_standard_wrong_vision"]
    page.select_option("#f-set", "right_standard_wrong_vision")
    assert page.eval_on_selector_all("#items article.item", "els => els.length") == min(20, other["count"])
    page.select_option("#f-set", "right_4_wrong_10")
    discipline = flips["items"][0]["discipline"]
    page.select_option("#f-discipline", discipline)
    assert page.eval_on_selector_all("#items article.item", "els => els.map(e => e.dataset.id)") == \
        [f["id"] for f in flips["items"] if f["discipline"] == discipline][:20]
    page.select_option("#f-discipline", "")
    page.fill("#f-search", "nothing like this at all")
    assert "No item matches" in page.inner_text("#items")
    page.fill("#f-search", "")

    # Images are embedded and decode; each run links to its own report.
    assert page.evaluate("document.images.length") > 0
    assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    assert page.locator('#runs a[href="standard-4-direct/report.html"]').count() == 1
    if os.environ.get("MMMU_EVAL_SCREENSHOT"):
        page.screenshot(path=os.environ["MMMU_EVAL_SCREENSHOT"], full_page=True)
