"""The pages of issue 28's cases in headless Chromium at 1024 and 1400 px: a run without gold
answers (no figure, no charts, no published list), a headline of many random letters (the
highlighted cards) and a subset (its scope beside the experts and the published figures) fit
their windows and raise no error. Screenshots go to ``test-artifacts/pages/``."""

from __future__ import annotations

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium
from fakes.page_layout import WIDTHS, check_page

pytestmark = NEEDS_CHROMIUM

CASES = ("void", "dice", "subset")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    from results.test_report_caveats import make_runs

    return make_runs(tmp_path_factory.mktemp("caveat-pages"))


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as browser:
        yield browser


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", CASES)
def test_caveat_page_fits_its_window_without_errors(pages, browser, case, width):
    layout = check_page(browser, pages / case / "report.html", f"run-report-{case}", width, ready="#items article")
    assert layout.problems == [], layout.problems
    assert layout.overflows == [], "\n".join(layout.overflows)
