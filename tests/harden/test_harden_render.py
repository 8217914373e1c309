"""render in headless Chromium, read back by OCR: the question's words and the option letters are there.

Uses the Debian chromium (``make browser``) and Tesseract (``apt-get install tesseract-ocr``);
never ``playwright install``. MMMU_EVAL_KEEP_RENDER=DIR keeps the pages to look at.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fakes.mc_set import write_jsonl_set
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.harden import RenderSettings, harden_render
from mmmu_eval.screenshots.item_page import BACKGROUNDS, Style, choose_style, latex_to_mathml, page_html
from mmmu_eval.core.records import ImageRef, Item

# Chromium renders, Tesseract reads back: both skip locally and fail under CI when missing.
_BROWSER_MARKS = (pytest.mark.slow, pytest.mark.usefixtures("chromium", "tesseract"))


def needs_browser(test):
    """Chromium renders, Tesseract reads back."""
    for mark in _BROWSER_MARKS:
        test = mark(test)
    return test
WORDS = ["Which", "planet", "Red", "Planet", "solar", "system", "Mars", "Venus", "Jupiter", "Saturn"]


def ocr(png: bytes, tmp_path: Path) -> str:
    path = tmp_path / "page.png"
    path.write_bytes(png)
    return subprocess.run(["tesseract", str(path), "-"], capture_output=True, text=True, check=True).stdout


def rows(n: int) -> list[dict]:
    return [
        {"id": f"validation_Physics_{k}", "question": "Which planet is known as the Red Planet in our solar system? <image 1>",
         "options": ["Mars", "Venus", "Jupiter", "Saturn"], "answer": "A", "image_1": "auto"}
        for k in range(1, n + 1)
    ]


@needs_browser
def test_every_rendered_page_reads_back_its_question_words_and_option_letters(tmp_path):
    data = write_jsonl_set(tmp_path / "set", rows(8))
    result = harden_render(data, tmp_path / "hard", RenderSettings(workers=3))
    assert result.exit_status == 0
    table = pq.read_table(tmp_path / "hard" / "vision" / "test-00000-of-00001.parquet").to_pylist()
    assert len(table) == 8
    styles = set()
    letters_read = 0  # a single letter is OCR's weak spot ("Cc. Jupiter"; a left column's letters on a two-column page): most must read
    for row in table:
        text = ocr(row["image"]["bytes"], tmp_path)
        missing = [w for w in WORDS if w.lower() not in text.lower()]  # a handwriting family has capitals only
        assert not missing, f"{row['id']} ({row['font']}, {row['font_size']}px, {row['background']}, {row['medium']}): OCR missed {missing}"
        letters = set(re.findall(r"(?<![A-Za-z])([A-D])[.,:]?\s+(?:Mars|Venus|Jupiter|Saturn)", text, re.I))
        read = {x.upper() for x in letters} & {"A", "B", "C", "D"}
        letters_read += len(read)
        assert len(read) >= 2, f"{row['id']}: OCR found option letters {sorted(read)} in {text!r}"
        styles.add((row["font"], row["background"]))
        if os.environ.get("MMMU_EVAL_KEEP_RENDER"):
            Path(os.environ["MMMU_EVAL_KEEP_RENDER"], f"{row['id']}.png").write_bytes(row["image"]["bytes"])
    assert len(styles) > 3, "fonts and backgrounds vary per item"
    assert letters_read >= 28, f"{letters_read} of 32 option letters read"


@needs_browser
def test_the_vision_config_records_each_pages_style_and_mmmu_eval_reads_it(tmp_path):
    data = write_jsonl_set(tmp_path / "set", rows(3))
    result = harden_render(data, tmp_path / "hard", draw_seed=5)
    table = pq.read_table(tmp_path / "hard" / "vision" / "test-00000-of-00001.parquet")
    assert table.column_names[:5] == ["id", "image", "options", "answer", "subject"]
    columns = ["font", "font_size", "page_width", "background", "options_columns", "images", "medium"]
    assert table.column_names[5:] == columns
    for row in table.to_pylist():
        recorded = result.record.items[row["id"]]["render"]
        assert [str(recorded[c]) for c in columns] == [row[c] for c in columns]
        assert (recorded["photo"] is not None) == (row["medium"] == "photo")
    items = load_benchmark("mmmu-pro", setting="vision", data=tmp_path / "hard").items
    assert [it.options for it in items] == [("Mars", "Venus", "Jupiter", "Saturn")] * 3
    assert result.record.step("render")["items_per_s"] > 0
    assert "Chromium" in result.record.step("render")["browser"]


@needs_browser
def test_the_same_seed_gives_the_same_bytes_and_a_rerun_renders_nothing_again(tmp_path):
    data = write_jsonl_set(tmp_path / "set", rows(3))
    one = harden_render(data, tmp_path / "one")
    two = harden_render(data, tmp_path / "two")
    shots = lambda out: [r["image"]["bytes"] for r in pq.read_table(out / "vision" / "test-00000-of-00001.parquet").to_pylist()]  # noqa: E731
    assert shots(tmp_path / "one") == shots(tmp_path / "two")
    assert one.record.items == two.record.items
    again = harden_render(data, tmp_path / "one")
    assert again.record.step("render")["counts"]["reused"] == 3
    other = harden_render(data, tmp_path / "three", draw_seed=1)
    assert [e["render"] for e in other.record.items.values()] != [e["render"] for e in one.record.items.values()]


@needs_browser
def test_latex_is_rendered_as_mathml_and_money_stays_text(tmp_path):
    data = write_jsonl_set(tmp_path / "set", [{"id": "validation_Math_1", "question": r"Evaluate $\frac{1}{2}+x^2$; it costs $5 to $6.",
                                               "options": [r"$\sqrt{2}$", "1", "2", "3"], "answer": "B"}])
    result = harden_render(data, tmp_path / "hard", RenderSettings(fonts=["DejaVu Sans"], photo_share=0.0))
    assert result.exit_status == 0
    png = pq.read_table(tmp_path / "hard" / "vision" / "test-00000-of-00001.parquet").to_pylist()[0]["image"]["bytes"]
    text = ocr(png, tmp_path)
    assert "Evaluate" in text and "$5 to $6" in text and "\\frac" not in text


def test_a_page_holds_images_in_token_order_escaped_text_and_no_script():
    item = Item("v_Art_1", "mmmu-pro", "test", "standard-10", "Art", "Art and Design", "<b>Look</b> at <image 2> then <image 1>",
                ("<image 1>", "two"), "A", "multiple-choice",
                (ImageRef.from_bytes("image_1", b"1"), ImageRef.from_bytes("image_2", b"2"), ImageRef.from_bytes("image_3", b"3")))
    html = page_html(item, item.options, Style("DejaVu Serif", 18, 700, "dots"), {"image_1": "data:one", "image_2": "data:two", "image_3": "data:three"})
    assert html.index("data:two") < html.index("data:one") and "data:three" in html
    assert "&lt;b&gt;Look&lt;/b&gt;" in html and "<script" not in html and "default-src 'none'" in html
    assert "A. <img" in html and "B. two" in html


def test_latex_conversion_refuses_anything_but_mathml():
    assert latex_to_mathml(r"\frac{a}{b}").startswith("<math")
    assert latex_to_mathml(r"\text{<b onload=x>&}") is None


def test_styles_are_drawn_per_item_from_the_seed():
    fonts = ("DejaVu Serif", "DejaVu Sans")
    one = choose_style(0, "a", fonts)
    assert one == choose_style(0, "a", fonts) and one.background in BACKGROUNDS
    assert 16 <= one.font_size <= 24 and 640 <= one.page_width <= 980 and one.page_width % 20 == 0
    assert len({choose_style(0, f"id{k}", fonts) for k in range(20)}) > 10
