"""The doctor's section and the leaderboard look-up of report.html in headless Chromium, at 1024
and 1400 px: the paper-era InternVL2-Llama3-76B file rescored (its page set against Table 1 by
the run's own model name) fits its window with no script or console error, its remainder sentence
is on screen, and the leaderboard's name box finds a 2025 model.
Full-page screenshots go to ``test-artifacts/pages/`` (``doctor-section-<width>.png``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium, watch
from fakes.page_layout import WIDTHS, check_page

pytestmark = NEEDS_CHROMIUM

FIDELITY_2024 = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity" / "mmmu-pro-2024"
STEM = "InternVL2-Llama3-76B_direct_Standard(10opts)"


@pytest.fixture(scope="module")
def page_path(tmp_path_factory):
    from fakes import required

    from mmmu_eval.cli.main import main

    folder = required.path(FIDELITY_2024, "the paper-era outputs are in ../shared/fidelity/mmmu-pro-2024")
    out = tmp_path_factory.mktemp("doctor-page") / STEM
    assert main(["rescore", str(folder / f"{STEM}.jsonl"), "--out", str(out)]) == 0
    return out / "report.html"


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as browser:
        yield browser


@pytest.mark.parametrize("width", WIDTHS)
def test_the_doctor_section_fits_and_reads(browser, page_path, width):
    layout = check_page(browser, page_path, "doctor-section", width, ready="#items article.item")
    assert layout.problems == [], layout.problems
    assert layout.overflows == [], "\n".join(layout.overflows)
    page = browser.new_page(viewport={"width": width, "height": 900})
    seen = watch(page)
    page.goto(page_path.as_uri())
    page.wait_for_selector("#items article.item")
    remainder = page.locator("#doctor-remainder")
    remainder.scroll_into_view_if_needed()
    assert remainder.is_visible()
    assert "exceed the 4.56-point gap by 0.23 points" in remainder.inner_text()
    assert page.locator("#doctor-outside tr[data-cause='best_of']").is_visible()
    cells = page.locator("#doctor-table tr[data-cause='unparsed'] td").all_inner_texts()
    assert cells[2] == "expected +0.34 points (plausible -0.06 to +0.81)" and cells[3] == "+4.97 (a bound)"
    # the leaderboard's rows for standard-10 (and those with only the overall), filtered by name as
    # the doctor matches names (case, spaces and hyphens ignored)
    rows = page.locator("#leaderboard-table tbody tr")
    total = rows.count()
    assert total > 60
    page.fill("#lb-search", "mimo-vl 7b")
    visible = page.locator("#leaderboard-table tbody tr:visible td:first-child").all_inner_texts()
    assert visible == ["MiMo-VL 7B-RL", "MiMo-VL 7B-SFT"] or sorted(visible) == ["MiMo-VL 7B-RL", "MiMo-VL 7B-SFT"]
    assert page.inner_text("#lb-count") == f"2 of {total} rows"
    page.fill("#lb-search", "Claude Opus 4.5")  # a 2025 model with only an MMMU-Pro overall figure
    cells = page.locator("#leaderboard-table tbody tr:visible td").all_inner_texts()
    assert cells[:3] == ["Claude Opus 4.5", "-", "73.9"] and "author" in cells
    page.fill("#lb-search", "")
    assert page.locator("#leaderboard-table tbody tr:visible").count() == total
    page.close()
    assert seen.problems == [] and seen.requests == []
