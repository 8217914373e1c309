"""The reviewers' page: every flagged suspect has a card (in pages of 25 the list's head links to),
each card says which kind of error it points at, shows the item's images where the data is at hand
(within the page kit's budget), and ids break only after an underscore."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from auditing.conftest import make_item, make_run
from mmmu_eval import load_dataset
from mmmu_eval.auditing import audit_runs
from mmmu_eval.auditing.audit_page import PAGE, audit_page
from mmmu_eval.auditing.card_images import card_images

TEN = ("tomb", "temple", "shrine", "palace", "fort", "market", "barracks", "mill", "bridge", "tower")


def _flagged_audit(count: int, *, items=None):
    """``count`` items on which four models agree on "temple" against the gold "palace"."""
    items = items or {f"validation_Diagnostics_and_Laboratory_Medicine_{n}":
                      make_item(f"validation_Diagnostics_and_Laboratory_Medicine_{n}", TEN, "D") for n in range(count)}
    runs = [make_run(f"run{m}", f"model{m}", {i: "B" for i in items}, items, accuracy=0.6) for m in range(4)]
    return audit_runs(runs, irt=False)


def test_every_flagged_suspect_has_a_card_and_the_list_is_paged():
    result = _flagged_audit(60)
    assert len(result.flagged) == 60
    page = audit_page(result, top=5)
    assert page.count('<section class="card"') == 60  # all flagged, though top is 5
    pages = re.search(r'<p class="pages">Pages: (.*?)</p>', page).group(1)
    assert [a for a in re.findall(r">(\d+–\d+)<", pages)] == ["1–25", "26–50", "51–60"] and PAGE == 25
    for anchor in re.findall(r'href="#([^"]+)"', pages):
        assert f'id="{anchor}"' in page  # each page link lands on a card
    assert "Suspects of unknown kind" in page and "no four-option form of these items was read" in page


def test_an_id_breaks_only_after_an_underscore():
    page = audit_page(_flagged_audit(1))
    assert ('<span class="id">validation_<wbr>Diagnostics_<wbr>and_<wbr>Laboratory_<wbr>Medicine_<wbr>0</span>'
            in page)
    assert ".id{overflow-wrap:normal;word-break:normal}" in page


@pytest.fixture(scope="module")
def sample_items():
    return {it.id: it for it in load_dataset("mmmu-pro", setting="standard-10", data="sample").items[:3]}


def test_a_card_shows_the_items_images_within_the_budget(sample_items):
    items = {i: replace(it, options=TEN, answer="D") for i, it in sample_items.items()}
    result = _flagged_audit(0, items=items)
    images = card_images([s.id for s in result.suspects], result.runs)
    assert set(images.refs) == set(items) and images.note == ""
    page = audit_page(result, images=images)
    shown = sum(len(it.images) for it in items.values())
    assert page.count('<img src="data:image/') == shown
    starved = audit_page(result, images=images, image_budget=0)
    assert "<img" not in starved and starved.count("image budget is spent") == shown


def test_images_of_items_whose_files_hold_none_come_from_the_named_dataset(sample_items):
    bare = {i: replace(it, options=TEN, answer="D", images=()) for i, it in sample_items.items()}
    result = _flagged_audit(0, items=bare)
    ids = [s.id for s in result.suspects]
    unasked = card_images(ids, result.runs)
    assert unasked.refs == {} and "name the dataset with --data" in unasked.note
    asked = card_images(ids, result.runs, "sample")
    assert {i: len(r) for i, r in asked.refs.items()} == {i: len(it.images) for i, it in sample_items.items()}
    assert audit_page(result, images=asked).count('<img src="data:image/') == sum(len(it.images) for it in sample_items.values())
