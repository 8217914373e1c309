"""report.html in headless Chromium: loads offline without errors, filters work, hostile text stays inert.

Uses the Debian chromium (``make browser`` installs it); never ``playwright install``. Without it
the test skips, and under ``CI=true`` fails (``fakes.browser``).
Set MMMU_EVAL_SCREENSHOT=path.png to keep the screenshot somewhere you can look at it.
"""

import dataclasses
import os
import shutil

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium, watch

from mmmu_eval.core.records import Response
from mmmu_eval.rendering.run_page import render_html
from mmmu_eval.results.results_json import build_results

pytestmark = NEEDS_CHROMIUM

HOSTILE = (
    '</script><script>window.__pwned=1</script><img id="injected" src=x onerror="window.__pwned=2">'
    "<!-- <svg onload=window.__pwned=3>"
)


@pytest.fixture
def page_file(tmp_path, items, responses, manifest, build):
    """The fixture items, one hostile item, and 20 extra right answers (so there are two pages)."""
    hostile = dataclasses.replace(
        build.mc_item("validation_Art_4", "B"),
        question=HOSTILE + " <image 1>",
        options=(HOSTILE, "<b>bold?</b>", "C", "D"),
    )
    extra = tuple(build.mc_item(f"validation_Math_{k}", "B") for k in range(4, 24))
    all_items = (*items, hostile, *extra)
    all_responses = dict(responses)
    all_responses["validation_Art_4"] = Response("validation_Art_4", "ok", text=HOSTILE + " (B)", reasoning=HOSTILE)
    all_responses.update({it.id: Response(it.id, "ok", text="(B)") for it in extra})
    scoring = build.score(all_items, all_responses)
    manifest = dict(manifest, config=dict(manifest["config"], model=HOSTILE))
    results = build_results(scoring, all_items, manifest, bootstrap=200, responses=all_responses)
    path = tmp_path / "report.html"
    prompts = {it.id: f"Question: {it.question}" for it in all_items}
    path.write_text(render_html(results, all_items, all_responses, scoring, manifest, prompts=prompts), encoding="utf-8")
    return path


@pytest.fixture
def browser():
    with headless_chromium() as browser:
        yield browser


def _visible_ids(page) -> list[str]:
    return page.eval_on_selector_all("#items article.item", "els => els.map(e => e.dataset.id)")


def test_report_loads_offline_filters_work_and_hostile_text_is_inert(browser, page_file, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    seen = watch(page)
    problems, requests = seen.problems, seen.requests
    page.goto(page_file.as_uri())
    page.wait_for_function("document.querySelectorAll('#items article.item').length > 0")

    # All 30 items, 25 on the first page.
    assert page.inner_text("#f-count") == "30 of 30 items"
    assert len(_visible_ids(page)) == 25
    assert page.inner_text("#p-info") == "page 1 of 2"
    page.click("#p-next")
    assert len(_visible_ids(page)) == 5 and page.inner_text("#p-info") == "page 2 of 2"

    # The hostile item's text shows literally and nothing of it ran or became an element.
    page.select_option("#f-subject", "Art")
    assert _visible_ids(page) == ["validation_Art_1", "validation_Art_2", "validation_Art_3", "validation_Art_4"]
    card = page.locator('article[data-id="validation_Art_4"]')
    assert "window.__pwned=2" in card.inner_text()
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#injected").count() == 0
    assert page.locator("svg[onload], img[onerror]").count() == 0
    assert page.locator("#items b", has_text="bold?").count() == 0  # "<b>bold?</b>" stayed text
    assert "<b>bold?</b>" in card.inner_text()
    assert HOSTILE in page.title() or "__pwned" in page.inner_text("h1")

    # Filters: wrong only, fallbacks, errors, truncated, missing, search.
    page.select_option("#f-subject", "")
    page.select_option("#f-show", "wrong")
    assert _visible_ids(page) == ["validation_Art_2", "validation_Art_3", "validation_Math_2"]
    page.select_option("#f-show", "fallback")
    assert _visible_ids(page) == ["validation_Art_3"]
    page.select_option("#f-show", "error")
    assert _visible_ids(page) == ["validation_Physics_2"]
    assert "server gave up after 6 attempts" in page.inner_text("#items")
    page.select_option("#f-show", "truncated")
    assert _visible_ids(page) == ["validation_Math_2"]
    page.select_option("#f-show", "missing")
    assert _visible_ids(page) == ["validation_Physics_3"]
    page.select_option("#f-show", "all")
    page.fill("#f-search", "the value is")
    assert _visible_ids(page) == ["validation_Math_3"]
    page.fill("#f-search", "nothing like this")
    assert _visible_ids(page) == [] and "No item matches" in page.inner_text("#items")
    page.fill("#f-search", "")

    # Images are embedded and decode.
    assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    assert page.evaluate("document.images.length") > 0
    page.click("#items figure img")
    assert page.locator("#items figure.big").count() == 1  # a click enlarges the image

    page.select_option("#f-show", "wrong")
    page.evaluate("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("MMMU_EVAL_SCREENSHOT"):
        shutil.copy(shot, os.environ["MMMU_EVAL_SCREENSHOT"])

    assert problems == []
    assert requests == []


def test_the_loose_image_filter_and_the_expert_and_cost_sections_render(browser, tmp_path, items, responses, manifest, build):
    """Images no token refers to: a filter, a badge, and a caption saying they were not sent."""
    loose = build.mc_item("validation_Art_9", "A", images=3, question="Only <image 2> counts.")
    all_items = (*items, loose)
    all_responses = dict(responses, validation_Art_9=Response("validation_Art_9", "ok", text="(A)", prompt_tokens=9))
    scoring = build.score(all_items, all_responses)
    results = build_results(scoring, all_items, manifest, bootstrap=200, responses=all_responses)
    path = tmp_path / "report.html"
    path.write_text(render_html(results, all_items, all_responses, scoring, manifest, prompts={}), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.goto(path.as_uri())
    page.wait_for_function("document.querySelectorAll('#items article.item').length > 0")
    page.select_option("#f-show", "loose")
    assert _visible_ids(page) == ["validation_Art_9"]
    card = page.locator('article[data-id="validation_Art_9"]')
    assert "image no token refers to" in card.inner_text().lower()
    assert card.locator("figure.loose").count() == 2
    assert card.locator("figcaption.loose-note").first.inner_text() == "no token refers to it: not sent to the model"
    assert page.locator("#experts svg").count() == 1 and "against human experts" in page.inner_text("#expert-line")
    assert "prompt tokens" in page.inner_text("#usage-table")
    assert problems == []
