"""A snapshot the environment tests write: every option count, images in shuffled token order,
open questions, and the bad rows an environment must survive (each named in ``BAD``)."""

from __future__ import annotations

import pytest

from fakes.parquet_rows import (  # noqa: F401 (fresh_image_cache is autouse)
    fresh_image_cache, image_cell, mmmu_row, png, pro_row, vision_row, write_mmmu, write_pro,
)

#: A distinct PNG per image field, so a test can tell which image went where.
IMAGES = {n: png((40 * n, 255 - 30 * n, 17 * n)) for n in range(1, 8)}

#: The rows that cannot be asked, by setting (or MMMU split), and what is wrong with each.
BAD = {
    "standard-10": {
        "test_Art_1": "refers to <image 2>",       # a token names an image the row lacks
        "test_Art_2": "options",                   # options that are not a list
        "test_Art_3": "not a readable image",        # image bytes that are no image
    },
    "vision": {"test_Art_9": "image is missing"},
    "validation": {"validation_Accounting_9": "options"},
}


def images(*numbers: int) -> dict[str, object]:
    return {f"image_{n}": image_cell(IMAGES[n], f"img{n}.png") for n in numbers}


@pytest.fixture
def snapshot(tmp_path):
    root = tmp_path / "snap"
    ten = [chr(ord("a") + i) for i in range(10)]
    write_pro(root, "standard-10", [
        # image 2 first, then image 1, then image 3 from option B, image 1 again from option C
        pro_row("test_Accounting_1", question="Compare <image 2> with <image 1>.",
                options=str(["first", "<image 3>", "again <image 1>", *ten[3:]]), answer="B", **images(1, 2, 3)),
        pro_row("test_Accounting_2", question="Yes or no? <image 1>", options="['yes', 'no']", answer="A",
                **images(1)),
        pro_row("test_Art_1", question="What is in <image 2>?", **images(1)),
        pro_row("test_Art_2", options="not a list ["),
        pro_row("test_Art_3", image_1=image_cell(b"this is not an image", "bad.png")),
        pro_row("test_Biology_1", question="Cells? <image 1>", options=str([f"o{i}" for i in range(10)]),
                answer="J", **images(1)),
    ])
    write_pro(root, "standard-4", [
        pro_row("test_Accounting_1", question="Compare <image 2> with <image 1>.",
                options="['first', '<image 3>', 'again <image 1>', 'd']", answer="B", **images(1, 2, 3)),
    ])
    write_pro(root, "vision", [
        vision_row("test_Accounting_1", answer="B", image=image_cell(IMAGES[5], "s1.png")),
        vision_row("test_Biology_1", options=str([f"o{i}" for i in range(10)]), answer="J",
                   image=image_cell(IMAGES[6], "s2.png")),
        vision_row("test_Art_9", image=None),
    ])
    twelve = [f"choice {i}" for i in range(12)]
    write_mmmu(root, "Accounting", "validation", [
        mmmu_row("validation_Accounting_1", question="Which? <image 1> or <image 2>", options=str(twelve),
                 answer="L", **images(1, 2)),
        mmmu_row("validation_Accounting_2", question="How many watts does <image 1> use?", options="[]",
                 answer="36", question_type="open", **images(1)),
        mmmu_row("validation_Accounting_3", question="Name the city in <image 3>.", options="[]",
                 answer="['Paris', 'paris, france']", question_type="open", image_1=None, **images(3)),
        mmmu_row("validation_Accounting_9", options="{broken"),
    ])
    write_mmmu(root, "Accounting", "dev", [mmmu_row("dev_Accounting_1", **images(1))])
    return root
