"""What the audit reads from an official MMMU-Pro file's rows beyond what scoring needs.

The official reader (``harnesses/readers/official.py``) builds items with what scoring needs (options,
gold) and leaves the rest out. The audit also shows a reviewer the question, checks its
``<image N>`` tokens against the images the row names (``image_1`` ... ``image_7``), and, where
the row holds both option sets (the 2024-era outputs and their build data ``mix_data.jsonl``:
``options`` beside ``shuffled_options``), keeps the original options in their order: the
four-option form the ten-option augmentation grew from (``forms.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

from mmmu_eval.core.jsonfile import loads

#: The image columns of the MMMU-Pro rows.
IMAGE_COLUMNS = tuple(f"image_{n}" for n in range(1, 8))


class RowText(NamedTuple):
    question: str
    images: int
    """How many images the row names."""
    original: tuple[str, ...] | None
    """The original options in their order, where the row also holds the shuffled ten; else None."""


def official_row_texts(path: Path) -> dict[str, RowText]:
    """Item id -> what the row holds for the audit (see the module); unreadable rows are left out
    (the official reader already reports them)."""
    out: dict[str, RowText] = {}
    for row in _rows(path):
        question = row.get("question")
        images = sum(1 for c in IMAGE_COLUMNS if isinstance(row.get(c), str) and row[c].strip())
        out[row["id"]] = RowText(question if isinstance(question, str) else "", images, _original(row))
    return out


def is_build_data(path: Path) -> bool:
    """Whether ``path`` is the MMMU-Pro build data (``mix_data.jsonl``): rows with both option sets
    and no model's response. It is no run, but it says what the augmentation added."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    first = next(iter(_rows(path, limit=1)), None)
    return first is not None and "shuffled_options" in first and "options" in first and "response" not in first


def build_data_originals(path: Path) -> dict[str, tuple[str, ...]]:
    """Item id -> its original options, from the build data."""
    return {item_id: text.original for item_id, text in official_row_texts(path).items() if text.original is not None}


def _original(row: dict) -> tuple[str, ...] | None:
    if "shuffled_options" not in row:
        return None
    try:
        options = ast.literal_eval(str(row.get("options")))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) for o in options):
        return None
    return tuple(options)


def _rows(path: Path, limit: int | None = None) -> list[dict]:
    rows: list[dict] = []
    try:
        fh = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return rows
    with fh:
        for line in fh:
            try:
                row = loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                rows.append(row)
                if limit is not None and len(rows) >= limit:
                    break
    return rows
