"""The same pages rendered twice while the CPUs are busy give the same PNG bytes.

Under load a capture once came back with a cut-off second copy of the page at its right edge
(2 of 23 pages); the capture check redraws such a capture, so a loaded machine gives the bytes
an idle one gives. The load is busy processes on every core, stopped when the test ends.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from fakes.mc_set import write_jsonl_set
from mmmu_eval.harden import RenderSettings, harden_render

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("chromium")]
PAGES = 16
#: A busy loop that ends by itself after two minutes, or once its parent (the test) is gone.
BUSY = "import os, time\nparent, end = os.getppid(), time.monotonic() + 120\nwhile time.monotonic() < end and os.getppid() == parent:\n    sum(range(10000))\n"


def rows() -> list[dict]:
    return [
        {"id": f"validation_Economics_{k}", "question": f"Question {k}: which of these goods has the most elastic demand "
         "when its price rises by ten per cent over one year? <image 1>",
         "options": [f"good number {j} of the list" for j in range(1, 11)], "answer": "C", "image_1": "auto"}
        for k in range(1, PAGES + 1)
    ]


def shots(out) -> dict[str, bytes]:
    return {r["id"]: r["image"]["bytes"] for r in pq.read_table(out / "vision" / "test-00000-of-00001.parquet").to_pylist()}


def test_rendering_twice_under_load_gives_the_same_bytes(tmp_path):
    data = write_jsonl_set(tmp_path / "set", rows())
    load = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(os.cpu_count() or 2)]
    try:
        one = harden_render(data, tmp_path / "one", RenderSettings(workers=4))
        two = harden_render(data, tmp_path / "two", RenderSettings(workers=4))
    finally:
        for process in load:
            process.kill()
            process.wait()
    first, second = shots(tmp_path / "one"), shots(tmp_path / "two")
    assert len(first) == PAGES and first.keys() == second.keys()
    differ = [i for i in first if first[i] != second[i]]
    assert differ == [], f"{len(differ)} of {PAGES} pages differ between the two renders: {differ}"
    # The style, digest and size recorded per page agree too; only a redraw's reasons may differ.
    recorded = lambda result, i: {k: v for k, v in result.record.items[i]["render"].items() if k != "redrawn"}  # noqa: E731
    assert all(recorded(one, i) == recorded(two, i) for i in first)
    for result in (one, two):
        print(f"redrawn: {result.record.step('render')['counts']['redrawn']} of {PAGES}")
