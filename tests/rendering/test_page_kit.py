"""Every HTML file the project writes follows the page kit's rules (``rendering/page.py``).

The pages: a run's report.html, the suite's report.html, harden's report.html and review.html,
and the pages ``harden render`` screenshots. Each must carry the kit's head (one doctype,
charset, viewport and Content-Security-Policy, the policy admitting exactly the page's own
script or none); each page that embeds images converts a TIFF (which Chromium does not show)
to PNG and embeds the browser's formats byte for byte; and each counts its image budget in
one unit: the data URL's length, as the page carries it.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from mmmu_eval.dataset.subjects import discipline_of
from mmmu_eval.core.records import ImageRef, Item, Response
from mmmu_eval.rendering.page import ImageBudget, content_security_policy, data_url, data_url_length, head

HEAD = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="')
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def encoded(fmt: str, color: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (40, 24)) -> bytes:
    image = Image.new("RGB", size, color)
    image.putpixel((3, 2), (10, 250, 10))  # not one flat colour: a conversion must keep every pixel
    buf = io.BytesIO()
    image.save(buf, format=fmt)
    return buf.getvalue()


def item_with(*images: bytes, item_id: str = "validation_Art_1") -> Item:
    subject = "Art"
    return Item(
        id=item_id, benchmark="mmmu", split="validation", setting=None, subject=subject,
        discipline=discipline_of(subject), question=" ".join(f"<image {k + 1}>" for k in range(len(images))),
        options=("red", "green", "blue", "grey"), answer="B", question_type="multiple-choice",
        images=tuple(ImageRef.from_bytes(f"image_{k + 1}", data) for k, data in enumerate(images)),
    )


def pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB").tobytes()


def decoded(url: str) -> tuple[str, bytes]:
    media, payload = re.fullmatch(r"data:([a-z/]+);base64,(.*)", url, re.S).groups()
    return media, base64.b64decode(payload)


# -- the pages, as their writers write them -----------------------------------------------------------


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    """name -> the page's HTML, from each writer the project has."""
    from fakes.mc_set import write_jsonl_set
    from mmmu_eval import evaluate
    from mmmu_eval.screenshots.item_page import choose_style, page_html
    from mmmu_eval.harden.record import Record
    from mmmu_eval.harden.harden_report import render_report_html
    from mmmu_eval.harden.review import write_review
    from mmmu_eval.harden.source import read_source
    from mmmu_eval.rendering.run_page import render_html
    from mmmu_eval.results.finished_run import read_run, prompts_for
    from mmmu_eval.run.progress import NullDisplay
    from mmmu_eval.suite.execute import evaluate_suite
    from suite.conftest import quiet

    root = tmp_path_factory.mktemp("kit")
    evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=str(root / "run"), limit=3,
             display=NullDisplay())
    run = read_run(root / "run", details=True)
    report = render_html(run.results, run.items, run.responses, run.scoring, run.manifest,
                         prompts=prompts_for(run.items, run.manifest))
    evaluate_suite(model="random", data="sample", out=str(root / "suite"), limit=2, ocr=False, display=quiet(),
                   bootstrap=10)
    items = read_source(write_jsonl_set(root / "set", [
        {"id": "test_Art_1", "question": "which colour? <image 1>", "options": ["red", "green", "blue", "grey"],
         "answer": "B", "image_1": "auto"}])).items
    record = Record.new({"data": "set", "kind": "jsonl"})
    record.item(items[0].id)["augment"] = {"options": ["red", "green", "blue", "grey", "pink"], "answer": "B",
                                           "sources": ["A", "B", "C", "D", "model"], "distractors": ["pink"]}
    write_review(root, record, items)
    style = choose_style(0, items[0].id, ("DejaVu Sans",), options=items[0].options, photo_share=0.0)
    return {
        "run report": report,
        "suite report": (root / "suite" / "report.html").read_text(encoding="utf-8"),
        "harden report": render_report_html(record),
        "review page": (root / "review.html").read_text(encoding="utf-8"),
        "rendered page": page_html(items[0], items[0].options, style, {"image_1": data_url(items[0].images[0].load())}),
    }


def scripts(page: str) -> list[str]:
    """The page's runnable scripts (not its JSON data)."""
    return re.findall(r"<script>(.*?)</script>", page, re.S)


def test_every_page_carries_the_kits_head_and_policy(pages):
    assert set(pages) == {"run report", "suite report", "harden report", "review page", "rendered page"}
    for name, page in pages.items():
        assert page.startswith(HEAD), name
        assert VIEWPORT in page.split("</head>")[0], name
        policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
        own = scripts(page)
        assert len(own) <= 1, name
        # The policy admits exactly the page's one script, or none at all.
        assert policy == content_security_policy(own[0] if own else None), name
        assert policy.startswith("default-src 'none'; img-src data:; style-src 'unsafe-inline'"), name
        assert ("script-src" in policy) == bool(own), name
        assert page.count("Content-Security-Policy") == 1, name


def test_pages_with_a_script_and_without(pages):
    """The reports and the review run their script; harden's report and the screenshot pages run none."""
    with_script = {name for name, page in pages.items() if scripts(page)}
    assert with_script == {"run report", "suite report", "review page"}
    for name in ("harden report", "rendered page"):
        assert "<script" not in pages[name], name


def test_only_the_kit_writes_a_head():
    """No module writes a doctype or a policy of its own: a page made without the kit would show here."""
    import mmmu_eval

    kit = Path(mmmu_eval.__file__).parent / "rendering" / "page.py"
    for path in Path(mmmu_eval.__file__).parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8").lower()
        if path != kit:
            assert "<!doctype" not in text and "http-equiv" not in text, path


def test_head_escapes_its_title_and_leaves_none_out():
    page = head("a </title><script>x</script>", style="", script=None)
    assert "<title>a &lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>" in page
    assert "<title>" not in head(None, style="b{}")


# -- one conversion rule -----------------------------------------------------------------------------


def embedded(images: list[bytes], budget: int = 10**9) -> dict[str, list[str | None]]:
    """page -> what it embeds for each image of an item holding ``images`` (a data URL, or None)."""
    from mmmu_eval.screenshots.item_page import choose_style
    from mmmu_eval.harden.render import render_item
    from mmmu_eval.harden.review import _images
    from mmmu_eval.rendering.html_items import item_rows
    from mmmu_eval.scoring.scorer import score_responses
    from mmmu_eval.suite.suite_page import _side

    item = item_with(*images)
    responses = {item.id: Response(item.id, "ok", "The answer is (A).")}
    scoring = score_responses([item], responses)
    pool: dict[str, str] = {}
    side = _side(SimpleNamespace(results={}, label="s", name="run"), item, responses[item.id], "A", pool,
                 ImageBudget(budget))
    review = _images([item], {item.id}, budget).get(item.id, {})

    class Shots:  # gives back the page it is asked to capture
        async def capture(self, html: str, *, width: int, label: str) -> str:
            return html

    style = choose_style(0, item.id, ("DejaVu Sans",), options=item.options, photo_share=0.0)
    rendered = asyncio.run(render_item(Shots(), item, item.options, style))  # type: ignore[arg-type]
    return {
        "run report": [im["src"] for im in item_rows([item], responses, scoring, {}, image_budget=budget)[0]["images"]],
        "suite report": [pool.get(im["ref"]) for im in side["images"]],
        "review page": [url if url.startswith("data:") else None for url in (review.get(ref.field, "") for ref in item.images)],
        "rendered page": re.findall(r'<img class="fig" src="(data:[^"]*)"', rendered),
    }


def test_a_tiff_or_bmp_is_embedded_as_png_by_every_page():
    stored = [encoded("TIFF"), encoded("BMP", (20, 40, 200))]
    pages = embedded(stored)
    assert set(pages) == {"run report", "suite report", "review page", "rendered page"}
    for name, urls in pages.items():
        assert len(urls) == 2, name
        for url, data in zip(urls, stored):
            media, shown = decoded(url)
            assert media == "image/png" and shown.startswith(b"\x89PNG"), name
            assert pixels(shown) == pixels(data), name


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP"])
def test_a_browser_format_is_embedded_byte_for_byte(fmt):
    """What Chromium shows goes in as stored: a rendered page, and so its screenshot, is as it was."""
    stored = encoded(fmt)
    for name, urls in embedded([stored]).items():
        media, shown = decoded(urls[0])
        assert media == f"image/{fmt.lower()}" and shown == stored, name


def test_an_image_no_page_can_show_is_a_note_or_an_error_naming_it():
    """Bytes of no browser format that PIL cannot read either: the reports and the review say so in its
    place; a rendered page, whose screenshot would lack the figure, is not made (the item is left out)."""
    from mmmu_eval.core.errors import DataError
    from mmmu_eval.harden.render import render_item
    from mmmu_eval.harden.review import _images
    from mmmu_eval.rendering.html_items import item_rows
    from mmmu_eval.scoring.scorer import score_responses

    item = item_with(b"II*\x00 not really a tiff")
    responses = {item.id: Response(item.id, "ok", "The answer is (A).")}
    row = item_rows([item], responses, score_responses([item], responses), {})[0]["images"][0]
    assert row["src"] is None and row["note"].startswith("unreadable: ")
    assert _images([item], {item.id}, 10**9)[item.id]["image_1"].startswith("note:not shown (")
    with pytest.raises(DataError, match="image_1: cannot be shown on the page"):
        asyncio.run(render_item(None, item, item.options, None))  # type: ignore[arg-type]


# -- one budget rule -------------------------------------------------------------------------------------


def test_every_page_counts_its_budget_in_data_url_bytes():
    """A budget of exactly one image's data URL embeds it on every page; one byte less embeds none.

    The raw bytes are a quarter fewer than the base64: a page counting them would still embed.
    """
    stored = encoded("PNG", size=(60, 40))
    cost = data_url_length(stored)
    assert cost == len(data_url(stored)) > len(stored) + 4
    for name in ("run report", "suite report", "review page"):
        assert embedded([stored], budget=cost)[name] == [data_url(stored)], name
        assert embedded([stored], budget=cost - 1)[name] == [None], name


class Peeking:
    """A loader that knows its image's size and type without a read, as a parquet image the run sent does."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __call__(self) -> bytes:
        return self.data

    def peek(self) -> tuple[int, str]:
        return len(self.data), "image/png"


def test_the_run_report_counts_a_size_it_knows_without_a_read_in_the_same_unit():
    from mmmu_eval.rendering.html_items import item_rows
    from mmmu_eval.scoring.scorer import score_responses

    stored = encoded("PNG", size=(60, 40))
    item = dataclasses.replace(item_with(stored), images=(ImageRef("image_1", Peeking(stored)),))
    assert item.images[0].peek() == (len(stored), "image/png")
    responses = {item.id: Response(item.id, "ok", "The answer is (A).")}
    scoring = score_responses([item], responses)
    for budget, src in ((data_url_length(stored), data_url(stored)), (data_url_length(stored) - 1, None)):
        assert item_rows([item], responses, scoring, {}, image_budget=budget)[0]["images"][0]["src"] == src


def test_the_budget_takes_what_fits_and_skips_what_does_not():
    budget = ImageBudget(10)
    assert budget.take(6) and not budget.take(5) and budget.take(4) and not budget.take(1)
    assert budget.spent == 10
