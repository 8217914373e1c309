"""Every render style stays readable: Tesseract reads back the question and the options.

One page per installed font family (serif, sans, handwriting, monospace), with the other
choices turned in step so that each appears several times: options in one or two columns,
images inline or after the question, screenshot or photo of a screen, and every background.
The figures printed (``-s``) are the word recovery per page.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
import subprocess

import pytest
from PIL import Image, ImageDraw

from mmmu_eval.screenshots.browser import Screenshotter
from mmmu_eval.screenshots.item_page import BACKGROUNDS, HANDWRITING, MIN_FONT_SIZE, MONO, Style, choose_style, installed_fonts, page_html
from mmmu_eval.screenshots.photo import draw_photo
from mmmu_eval.harden.render import render_item
from mmmu_eval.core.records import ImageRef, Item

QUESTION = "Which country in the chart <image 1> exported the most wheat in the year shown?"
OPTIONS = ("Canada", "France", "Brazil", "India", "Kenya", "Norway", "Chile", "Japan", "Egypt", "Peru")
WORDS = [w for w in re.sub(r"<image 1>|\?", "", QUESTION).split()] + list(OPTIONS)


def chart() -> bytes:
    image = Image.new("RGB", (320, 160), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for k, height in enumerate((60, 120, 90, 140)):
        draw.rectangle([20 + 70 * k, 150 - height, 70 + 70 * k, 150], fill=(60, 110, 190))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


ITEM = Item("validation_Economics_1", "mmmu-pro", "test", "standard-10", "Economics", "Business", QUESTION, OPTIONS, "B",
            "multiple-choice", (ImageRef.from_bytes("image_1", chart()),))


def styles(fonts: tuple[str, ...]) -> list[Style]:
    out = []
    for k, font in enumerate(fonts):
        rng = random.Random(f"styles:{k}")
        photo = k % 2 == 1
        out.append(Style(font, max(16 + (3 * k) % 9, MIN_FONT_SIZE.get(font, 0)), 640 + 20 * ((7 * k) % 18), list(BACKGROUNDS)[k % len(BACKGROUNDS)],
                         options_columns=1 + (k // 2) % 2, images="after question" if k % 3 == 0 else "inline",
                         medium="photo" if photo else "screenshot", photo=draw_photo(rng) if photo else None))
    return out


async def render_all(chosen: list[Style]) -> list[bytes]:
    async with Screenshotter(workers=2) as shots:
        return list(await asyncio.gather(*(render_item(shots, ITEM, OPTIONS, s) for s in chosen)))


@pytest.mark.slow
@pytest.mark.usefixtures("chromium", "tesseract")
def test_tesseract_reads_the_question_and_options_of_every_style(tmp_path):
    fonts = installed_fonts()
    chosen = styles(fonts)
    kinds = {(s.options_columns, s.images, s.medium) for s in chosen}
    assert {c for c, _, _ in kinds} == {1, 2} and {i for _, i, _ in kinds} == {"inline", "after question"}
    assert {m for _, _, m in kinds} == {"screenshot", "photo"}
    assert set(HANDWRITING) & set(fonts) and set(MONO) & set(fonts), "make browser installs the handwriting and monospace fonts"
    found = total = letters_read = 0
    for style, image in zip(chosen, asyncio.run(render_all(chosen))):
        path = tmp_path / "page"
        path.write_bytes(image)
        text = subprocess.run(["tesseract", str(path), "-"], capture_output=True, text=True, check=True).stdout.lower()
        missed = [w for w in WORDS if w.lower() not in text]
        found, total = found + len(WORDS) - len(missed), total + len(WORDS)
        print(f"{style.font:18} {style.medium:10} {style.options_columns} col, images {style.images:14} {style.background:13} "
              f"{len(WORDS) - len(missed)}/{len(WORDS)} words {missed}")
        assert len(missed) <= 2, f"{style}: Tesseract missed {missed}"
        # A letter counts as read before its option's text, or alone at the start of a line (Tesseract
        # reads a hanging indent as a column of its own on some pages).
        letters = {letter for letter, o in zip("abcdefghij", OPTIONS) if re.search(rf"(?<![a-z]){letter}\W{{0,2}}\s*{o.lower()}", text)}
        letters |= set(re.findall(r"(?m)^\W*([a-j])(?:[^a-z]|$)", text))
        letters_read += len(letters)
        print(f"{'':18} option letters read: {len(letters)}/10")
    print(f"recovered {found}/{total} words ({100 * found / total:.1f}%) and {letters_read}/{10 * len(chosen)} option letters over {len(chosen)} pages")
    assert found / total >= 0.97
    assert letters_read >= 0.8 * 10 * len(chosen), "single letters are Tesseract's weak spot, but most must read"


def test_two_columns_only_for_short_text_options_and_every_choice_recorded():
    fonts = ("DejaVu Serif", "Comic Neue")
    drawn = [choose_style(0, f"id{k}", fonts, options=OPTIONS) for k in range(60)]
    assert {s.options_columns for s in drawn} == {1, 2} and {s.images for s in drawn} == {"inline", "after question"}
    assert {s.medium for s in drawn} == {"screenshot", "photo"}
    assert all((s.photo is not None) == (s.medium == "photo") for s in drawn)
    long = [choose_style(0, f"id{k}", fonts, options=("a rather long option that will not fit in half a page", "b")) for k in range(60)]
    assert {s.options_columns for s in long} == {1}
    images = [choose_style(0, f"id{k}", fonts, options=("<image 1>", "<image 2>")) for k in range(60)]
    assert {s.options_columns for s in images} == {1}
    assert {s.medium for s in (choose_style(0, f"id{k}", fonts, options=OPTIONS, photo_share=0.0) for k in range(60))} == {"screenshot"}
    recorded = drawn[0].to_json()
    assert set(recorded) == {"font", "font_size", "page_width", "background", "options_columns", "images", "medium", "photo"}


def test_images_after_the_question_keep_the_token_in_the_text_and_follow_it():
    style = Style("DejaVu Serif", 18, 700, "white", images="after question")
    html = page_html(ITEM, OPTIONS, style, {"image_1": "data:one"})
    assert "chart &lt;image 1&gt; exported" in html and html.index("shown?") < html.index("data:one")
    inline = page_html(ITEM, OPTIONS, Style("DejaVu Serif", 18, 700, "white"), {"image_1": "data:one"})
    assert html.index("data:one") > inline.index("data:one") and '<ol class="two">' not in inline
    assert '<ol class="two">' in page_html(ITEM, OPTIONS, Style("DejaVu Serif", 18, 700, "white", options_columns=2), {})
