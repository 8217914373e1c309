"""report.html, checked as text: escaping, embedded data, images, sections."""

import json
import re

import pytest

from mmmu_eval.core.records import ImageRef, Response
from mmmu_eval.core.errors import DataError
from mmmu_eval.rendering.run_page import item_rows, render_html, script_json
from mmmu_eval.results.results_json import build_results

HOSTILE = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><!-- ]]>'


@pytest.fixture
def results(scoring, items, manifest, responses):
    return build_results(scoring, items, manifest, bootstrap=100, responses=responses)


def _data_block(page: str) -> list[dict]:
    match = re.search(r'<script type="application/json" id="items-data">(.*?)</script>', page, re.S)
    assert match, "the item data block is missing"
    return json.loads(match.group(1))


@pytest.mark.parametrize("text", [HOSTILE, "<!--", "</SCRIPT >", "a & b > c", "\u2028line\u2029"])
def test_script_json_cannot_close_the_element_and_round_trips(text):
    encoded = script_json({"response": text})
    assert "<" not in encoded and ">" not in encoded and "\u2028" not in encoded
    assert json.loads(encoded) == {"response": text}


def test_untrusted_text_never_appears_unescaped(results, items, responses, scoring, manifest):
    hostile_responses = dict(responses, validation_Art_2=Response("validation_Art_2", "ok", text=HOSTILE))
    manifest = dict(manifest, config=dict(manifest["config"], model=HOSTILE))
    results = dict(results, run=dict(results["run"], model=HOSTILE))
    page = render_html(results, items, hostile_responses, scoring, manifest, prompts={"validation_Art_1": HOSTILE})
    assert page.count("<script") == 2  # the data block and our own script, nothing else
    assert "<img" not in page and "<!--" not in page  # only ever escaped
    assert "window.__pwned" in page  # present, but as inert text
    rows = {r["id"]: r for r in _data_block(page)}
    assert rows["validation_Art_2"]["response"] == HOSTILE
    assert rows["validation_Art_1"]["prompt"] == HOSTILE


def test_csp_allows_only_our_script_by_hash(results, items, responses, scoring, manifest):
    page = render_html(results, items, responses, scoring, manifest, prompts={})
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp and "img-src data:" in csp
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'$", csp)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing to fetch
    assert "https://cdn" not in page


def test_item_rows_carry_what_the_browser_shows(items, responses, scoring):
    rows = {r["id"]: r for r in item_rows(items, responses, scoring, {"validation_Art_1": "the prompt"})}
    art1 = rows["validation_Art_1"]
    assert (art1["verdict"], art1["pred"], art1["answer"], art1["prompt"]) == ("correct", "A", ["A"], "the prompt")
    assert art1["letters"] == ["A", "B", "C", "D"] and art1["options"][0] == "option 0"
    assert rows["validation_Art_3"]["fallback"] is True and rows["validation_Art_3"]["verdict"] == "wrong"
    assert rows["validation_Math_2"]["status"] == "truncated"
    assert rows["validation_Physics_2"]["verdict"] == "error"
    assert rows["validation_Physics_2"]["error"] == "server gave up after 6 attempts"
    assert rows["validation_Physics_3"]["verdict"] == "missing"
    assert rows["validation_Math_3"]["options"] == [] and rows["validation_Math_3"]["pred"] == "42.0"  # the first candidate, a float, as a string
    assert [im["field"] for im in rows["validation_Math_1"]["images"]] == ["image_1", "image_2"]
    assert rows["validation_Math_1"]["images"][0]["src"].startswith("data:image/png;base64,")


def test_no_images_embeds_none_and_says_so(items, responses, scoring):
    rows = item_rows(items, responses, scoring, {}, images=False)
    assert all(im["src"] is None and "--no-images" in im["note"] for r in rows for im in r["images"])


def test_image_budget_serves_wrong_answers_first(items, responses, scoring):
    one_image = len(item_rows(items[:1], responses, scoring, {})[0]["images"][0]["src"])
    rows = {r["id"]: r for r in item_rows(items, responses, scoring, {}, image_budget=one_image)}
    embedded = [i for i, r in rows.items() if any(im["src"] for im in r["images"])]
    assert embedded == ["validation_Art_2"]  # the first item that is not a clean correct answer
    assert "budget" in rows["validation_Art_1"]["images"][0]["note"]


def test_an_unreadable_image_is_a_note_not_a_crash(items, responses, scoring):
    import dataclasses

    def broken() -> bytes:
        raise DataError("image_1 is not a PNG or JPEG", "validation_Art_1")

    bad = dataclasses.replace(items[0], images=(ImageRef("image_1", broken),))
    rows = item_rows((bad, *items[1:]), responses, scoring, {})
    assert rows[0]["images"][0]["src"] is None
    assert rows[0]["images"][0]["note"] == "unreadable: validation_Art_1: image_1 is not a PNG or JPEG"


def test_page_has_headline_charts_published_and_breakdowns(results, items, responses, scoring, manifest):
    page = render_html(results, items, responses, scoring, manifest, prompts={})
    assert '<span class="big" id="headline">57.1%</span>' in page
    assert page.count("<svg") == 4  # disciplines, subjects, human experts (MMMU validation), published
    assert "GPT-4o (0513)" in page and "arxiv.org/abs/2409.02813" in page
    assert "Random Choice" in page and "[1]" in page and "[2]" in page
    assert "Option count" in page and "Topic difficulty" in page
    assert "Run manifest" in page


def test_dev_split_says_nothing_was_published(results, items, responses, scoring, manifest):
    page = render_html(dict(results, split="dev"), items, responses, scoring, manifest, prompts={})
    assert "No published figures for mmmu/dev" in page


def test_streamed_page_holds_the_item_data_exactly_as_one_json_document(results, items, responses, scoring, manifest):
    """html_chunks writes each item's JSON with its images spliced in; the data block is byte for
    byte what script_json gives for all rows at once with the images embedded (the old page)."""
    from mmmu_eval.rendering.run_page import html_chunks

    prompts = {"validation_Art_1": "</script><!-- & \u2028 é"}
    page = "".join(html_chunks(results, items, responses, scoring, manifest, prompts=prompts, image_budget=3000))
    from mmmu_eval.rendering.html_sections import mark_loose_images

    block = page.split('<script type="application/json" id="items-data">', 1)[1].split("</script>", 1)[0]
    rows = item_rows(items, responses, scoring, prompts, image_budget=3000)
    mark_loose_images(rows, items, manifest)
    assert block == script_json(rows)
    assert page == render_html(results, items, responses, scoring, manifest, prompts=prompts, image_budget=3000)


def test_each_items_images_are_read_when_its_piece_is_written(results, items, responses, scoring, manifest):
    """The page is never in memory whole: image bytes are read item by item as the page is made."""
    import dataclasses

    from mmmu_eval.rendering.run_page import html_chunks

    reads: list[str] = []

    def counted(item):
        def load(data=item.images[0].load()):
            reads.append(item.id)
            return data
        return dataclasses.replace(item, images=(ImageRef("image_1", load),))

    counted_items = tuple(counted(it) if it.images else it for it in items)
    chunks = html_chunks(results, counted_items, responses, scoring, manifest, prompts={})
    next(chunks)  # the page up to the item data: every image sized (read once), none kept
    assert sorted(reads) == sorted(it.id for it in counted_items if it.images)
    next(chunks)  # the opening of the data block
    reads.clear()
    first = next(chunks)
    assert reads == [counted_items[0].id] and "data:image/png;base64," in first
    rest = list(chunks)
    assert len(rest) == len(items)  # one piece per remaining item, then the closing piece
