"""The question text and image count of each row of an official MMMU-Pro output file.

The official reader (``harnesses/readers/official.py``) builds items with what scoring needs (options,
gold) and leaves the question out; an audit shows a reviewer the question, and checks its
``<image N>`` tokens against the images the row names (``image_1`` ... ``image_7``). This reads
only those two things, row by row; every other field comes from the official reader.
"""

from __future__ import annotations

import json
from pathlib import Path

#: The image columns of the MMMU-Pro rows.
IMAGE_COLUMNS = tuple(f"image_{n}" for n in range(1, 8))


def official_row_texts(path: Path) -> dict[str, tuple[str, int]]:
    """Item id -> (question text, number of images the row names); unreadable rows are left out
    (the official reader already reports them)."""
    out: dict[str, tuple[str, int]] = {}
    try:
        fh = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return out
    with fh:
        for line in fh:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                continue
            question = row.get("question")
            images = sum(1 for c in IMAGE_COLUMNS if isinstance(row.get(c), str) and row[c].strip())
            out[row["id"]] = (question if isinstance(question, str) else "", images)
    return out
