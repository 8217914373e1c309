"""review.html in headless Chromium: it loads offline without errors, hostile text stays inert, and
the decisions it downloads are what ``augment --apply`` applies."""

from __future__ import annotations

import json
import time

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer, write_jsonl_set
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.harden import AugmentSettings, harden_apply, harden_augment

pytestmark = [pytest.mark.slow]
HOSTILE = '</script><script>window.__pwned=1</script><img id="injected" src=x onerror="window.__pwned=2">'


@pytest.fixture
def review_dir(tmp_path):
    data = write_jsonl_set(tmp_path / "set", [
        {"id": "test_Art_1", "question": "apple: which colour? <image 1>", "options": ["red", "green", "blue", "grey"], "answer": "B", "image_1": "auto"},
        {"id": "test_Art_2", "question": f"pear {HOSTILE}", "options": ["a", "b", "c", "d"], "answer": "A"},
        {"id": "test_Art_3", "question": "plum: which shape?", "options": ["circle", "square", "star", "line"], "answer": "C"},
    ])
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
    return tmp_path / "hard"


def test_review_page_decisions_download_and_apply(review_dir, tmp_path, chromium):
    from playwright import sync_api
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"])
        page = browser.new_page(accept_downloads=True)
        problems: list[str] = []
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.goto((review_dir / "review.html").as_uri())
        page.wait_for_selector("section.card")
        assert page.locator("section.card").count() == 3
        assert page.inner_text("#progress") == "0 of 3 decided"
        assert page.evaluate("window.__pwned") is None and page.locator("#injected").count() == 0
        assert HOSTILE in page.inner_text('section[data-id="test_Art_2"]')
        assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")

        page.check('section[data-id="test_Art_1"] input[value="drop"]')
        page.fill('section[data-id="test_Art_1"] .note-field', "image not needed")
        page.check('section[data-id="test_Art_2"] input[value="edit"]')
        page.fill('section[data-id="test_Art_2"] .edits input >> nth=0', "a brand new option")
        page.select_option("#show", "undecided")
        assert page.locator("section.card").count() == 1
        page.click("#accept-shown")
        page.select_option("#show", "all")
        assert page.inner_text("#progress") == "3 of 3 decided"
        with page.expect_download() as info:
            page.click("#download")
        decisions = tmp_path / "decisions.json"
        info.value.save_as(decisions)
        # Every decision is kept in the browser, those of "accept all shown" included.
        assert load_until(page, (review_dir / "review.html").as_uri(), lambda p: p.inner_text("#progress") == "3 of 3 decided")
        browser.close()
    assert problems == [] and requests == []

    saved = json.loads(decisions.read_text())
    assert {i: d["action"] for i, d in saved["decisions"].items()} == {"test_Art_1": "drop", "test_Art_2": "edit", "test_Art_3": "accept"}
    applied = harden_apply(review_dir, review_dir, decisions)
    assert applied.record.step("augment")["review"] == "reviewed"
    entries = {i: e["augment"] for i, e in applied.record.items.items()}
    assert entries["test_Art_1"]["review"] == {"state": "dropped", "note": "image not needed"}
    assert "a brand new option" in entries["test_Art_2"]["options"]
    ten = {it.id for it in load_benchmark("mmmu-pro", setting="standard-10", data=review_dir).items}
    assert ten == {"test_Art_2", "test_Art_3"}


def download(page, path):
    with page.expect_download() as info:
        page.click("#download")
    info.value.save_as(path)
    return json.loads(path.read_text())["decisions"]


def visible_inputs(page, card):
    return page.locator(f'section[data-id="{card}"] input[type=text]:visible').count()


def test_only_the_chosen_actions_inputs_are_shown_and_what_they_hold_is_downloaded(review_dir, tmp_path, chromium):
    from playwright import sync_api
    card = 'section[data-id="test_Art_2"]'
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"])
        page = browser.new_page(accept_downloads=True)
        page.goto((review_dir / "review.html").as_uri())
        page.wait_for_selector("section.card")
        new_options = page.locator(f"{card} .edits input").count()
        assert new_options == 6
        assert visible_inputs(page, "test_Art_2") == 0, "no action chosen: nothing to type into"

        page.check(f'{card} input[value="edit"]')
        assert visible_inputs(page, "test_Art_2") == 1 + new_options
        page.fill(f"{card} .edits input >> nth=0", "typed under edit")
        page.check(f'{card} input[value="accept"]')
        assert visible_inputs(page, "test_Art_2") == 1, "accept shows the note alone"
        assert not page.locator(f"{card} .edits").is_visible()
        accepted = download(page, tmp_path / "1.json")["test_Art_2"]
        assert accepted["action"] == "accept" and "distractors" not in accepted

        page.check(f'{card} input[value="edit"]')
        assert page.input_value(f"{card} .edits input >> nth=0") == "typed under edit"
        page.fill(f"{card} .edits input >> nth=1", "and a second one")
        edited = download(page, tmp_path / "2.json")["test_Art_2"]
        assert edited["action"] == "edit" and edited["distractors"][:2] == ["typed under edit", "and a second one"]
        assert len(edited["distractors"]) == new_options

        page.check(f'{card} input[value="drop"]')
        assert visible_inputs(page, "test_Art_2") == 1
        page.fill(f"{card} .note-field", "gives the answer away")
        dropped = download(page, tmp_path / "3.json")["test_Art_2"]
        assert dropped == {"action": "drop", "shown": edited["shown"], "note": "gives the answer away"}
        restored = load_until(page, (review_dir / "review.html").as_uri(),
                              lambda p: visible_inputs(p, "test_Art_2") == 1 and p.input_value(f"{card} .note-field") == "gives the answer away")
        assert restored, "a reload shows the decision and its note as they were"
        browser.close()


def test_a_tab_left_open_on_an_older_state_does_not_overwrite_another_tab_s_decisions(review_dir, chromium):
    # Drawing once wrote the tab's decisions to localStorage: the old tab, only redrawn (its
    # filter changed), put back its empty state over the decision the other tab had saved.
    from playwright import sync_api
    url = (review_dir / "review.html").as_uri()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"])
        context = browser.new_context()
        old, new = context.new_page(), context.new_page()
        for page in (old, new):
            page.goto(url)
            page.wait_for_selector("section.card")
        new.check('section[data-id="test_Art_1"] input[value="drop"]')
        new.fill('section[data-id="test_Art_1"] .note-field', "image not needed")
        old.select_option("#show", "undecided")
        assert old.locator("section.card").count() == 3, "the old tab knows nothing of the new decision"
        third = context.new_page()
        assert load_until(third, url, lambda p: p.inner_text("#progress") == "1 of 3 decided"
                          and p.input_value('section[data-id="test_Art_1"] .note-field') == "image not needed")
        browser.close()


def load_until(page, url, shown, *, seconds: float = 10.0) -> bool:
    """Load ``url`` in ``page`` until ``shown(page)``, for at most ``seconds``; whether it was shown.

    Chromium passes a page's localStorage writes to its browser process asynchronously, so a page
    loaded right after one (a reload, another tab) may read the state before it: a reload under
    the CI's load once showed the decision just made as undecided. A state that is never restored
    still fails.
    """
    end = time.monotonic() + seconds
    while True:
        page.goto(url)
        page.wait_for_selector("section.card")
        if shown(page):
            return True
        if time.monotonic() > end:
            return False
        page.wait_for_timeout(200)
