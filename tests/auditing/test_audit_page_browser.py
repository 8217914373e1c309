"""The audit's page of the paper-era MMMU-Pro outputs in headless Chromium at 1024 and 1400 px: every
id on it (cards, the added options, the structural problems) breaks, if at all, only after an
underscore, never inside a word; and every flagged suspect's card is on the page."""

from __future__ import annotations

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium, watch
from fakes.page_layout import WIDTHS

pytestmark = NEEDS_CHROMIUM

#: Each place where a line inside an id does not start right after an underscore.
_MID_WORD_BREAKS = """() => {
  const out = [];
  let checked = 0;
  for (const el of document.querySelectorAll('.id')) {
    if (!el.getClientRects().length) continue;
    checked += 1;
    const text = el.textContent;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      for (let i = 0; i < node.length; i++) chars.push([node, i]);
    let top = null;
    chars.forEach(([node, i], k) => {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = range.getBoundingClientRect();
      if (top !== null && rect.top > top + 2 && text[k - 1] !== '_') out.push(`${text}: broken before "${text.slice(k)}"`);
      top = rect.top;
    });
  }
  return {checked, out};
}"""


@pytest.fixture(scope="module")
def page_file(paper_audit, tmp_path_factory):
    from mmmu_eval.auditing.save_audit import save_audit

    path = tmp_path_factory.mktemp("audit-page") / "audit.html"
    save_audit(paper_audit, html_file=path)
    return path


@pytest.mark.parametrize("width", WIDTHS)
def test_ids_never_break_inside_a_word(page_file, paper_audit, width):
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        seen = watch(page)
        page.goto(page_file.as_uri())
        page.wait_for_selector("section.card")
        found = page.evaluate(_MID_WORD_BREAKS)
        cards = page.evaluate("() => [...document.querySelectorAll('section.card')].map(c => c.id)")
        page.close()
    assert found["checked"] > 500 and found["out"] == [], found["out"][:10]
    assert seen.problems == [] and seen.requests == []
    on_page = {c.split("-", 1)[1] for c in cards}
    assert set(paper_audit.flagged) <= on_page  # all 378, not the first 100
