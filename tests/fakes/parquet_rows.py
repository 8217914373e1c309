"""Write MMMU-shaped parquet files: hub layout, hub schema, images as ``{bytes, path}`` structs.

Build rows with ``mmmu_row`` / ``pro_row`` / ``vision_row`` (every column filled with a sensible
default, override any), then write a snapshot with ``write_mmmu`` / ``write_pro`` and load it
with ``load_benchmark(..., data=root)``. ``LocalHub`` stands in for the Hugging Face hub.

    root = tmp_path / "snap"
    write_mmmu(root, "Accounting", "validation", [mmmu_row("validation_Accounting_1")])
    ds = load_benchmark("mmmu", data=root, subjects=["acc"])
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Iterable, Mapping

import pyarrow as pa
import pytest
import pyarrow.parquet as pq
from PIL import Image

from mmmu_eval.dataset import parquet
from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.dataset.schema import (
    MMMU_COLUMNS,
    PRO_STANDARD_COLUMNS,
    PRO_VISION_COLUMNS,
    arrow_schema,
    is_image_column,
)

Row = dict[str, object]


def png(color: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (8, 6)) -> bytes:
    """A small valid PNG of one colour."""
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def image_cell(data: bytes | None, path: str | None = None) -> dict[str, object]:
    """An HF image cell: ``{"bytes": ..., "path": ...}``."""
    return {"bytes": data, "path": path}


def mmmu_row(item_id: str, **overrides: object) -> Row:
    """An MMMU row (multiple choice, 4 options, answer B, one image) with overrides applied."""
    row: Row = {
        "id": item_id,
        "question": "Which bar is tallest? <image 1>",
        "options": "['red', 'green', 'blue', 'grey']",
        "explanation": "",
        **{f"image_{n}": None for n in range(1, 8)},
        "image_1": image_cell(png(), f"{item_id}_1.png"),
        "img_type": "['Plots and Charts']",
        "answer": "B",
        "topic_difficulty": "Easy",
        "question_type": "multiple-choice",
        "subfield": "Charts",
    }
    row.update(overrides)
    return row


def pro_row(item_id: str, subject: str | None = None, **overrides: object) -> Row:
    """An MMMU-Pro standard row (10 options, answer C) with overrides applied."""
    row: Row = {
        "id": item_id,
        "question": "Which option is the third letter of the alphabet? <image 1>",
        "options": str([chr(ord("a") + i) for i in range(10)]),
        "explanation": "?",
        **{f"image_{n}": None for n in range(1, 8)},
        "image_1": image_cell(png((30, 30, 200)), f"{item_id}_1.png"),
        "img_type": "['Diagrams']",
        "answer": "C",
        "topic_difficulty": "Medium",
        "subject": subject if subject is not None else "_".join(item_id.split("_")[1:-1]),
    }
    row.update(overrides)
    return row


def vision_row(item_id: str, subject: str | None = None, **overrides: object) -> Row:
    """An MMMU-Pro vision row (one screenshot, 4 options, answer A) with overrides applied."""
    row: Row = {
        "id": item_id,
        "image": image_cell(png((240, 240, 240), (16, 12)), f"{item_id}.png"),
        "options": "['one', 'two', 'three', 'four']",
        "answer": "A",
        "subject": subject if subject is not None else "_".join(item_id.split("_")[1:-1]),
    }
    row.update(overrides)
    return row


def write_parquet(
    path: Path, rows: Iterable[Mapping[str, object]], columns: tuple[str, ...], *, row_group_size: int | None = None
) -> Path:
    """Write rows with exactly these columns (in this order, hub types) to one parquet file."""
    rows = list(rows)
    schema = arrow_schema(columns)
    data = {c: [r.get(c) for r in rows] for c in columns}
    table = pa.Table.from_pydict(data, schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def write_mmmu(
    root: Path, subject: str, split: str, rows: Iterable[Mapping[str, object]],
    *, columns: tuple[str, ...] = MMMU_COLUMNS, shards: int = 1, row_group_size: int | None = None,
) -> list[Path]:
    """Write ``root/<subject>/<split>-0000k-of-0000n.parquet`` (split into ``shards`` files)."""
    return _write_shards(root / subject, split, list(rows), columns, shards, row_group_size)


def write_pro(
    root: Path, setting: str, rows: Iterable[Mapping[str, object]],
    *, columns: tuple[str, ...] | None = None, shards: int = 1, row_group_size: int | None = None,
) -> list[Path]:
    """Write ``root/<config>/test-0000k-of-0000n.parquet`` for a setting (``standard-10`` ...)."""
    if columns is None:
        columns = PRO_VISION_COLUMNS if setting == "vision" else PRO_STANDARD_COLUMNS
    return _write_shards(root / PRO_CONFIGS[setting], "test", list(rows), columns, shards, row_group_size)


def drop_column(columns: tuple[str, ...], name: str) -> tuple[str, ...]:
    return tuple(c for c in columns if c != name)


def _write_shards(folder: Path, split: str, rows: list[Mapping[str, object]], columns, shards, row_group_size) -> list[Path]:
    per = -(-len(rows) // shards) if rows else 0
    return [
        write_parquet(folder / f"{split}-{k:05d}-of-{shards:05d}.parquet", rows[k * per:(k + 1) * per], columns,
                      row_group_size=row_group_size)
        for k in range(shards)
    ]


class LocalHub:
    """A HubClient serving ``root/<owner>/<name>/...`` as if it were the hub at one commit.

    ``fetch`` copies each file into ``cache`` (like a download) and counts what was fetched, so a
    test can check that only the needed files were downloaded.
    """

    def __init__(self, root: Path, cache: Path, commit: str = "c0ffee" + "0" * 34, branches: Iterable[str] = ("main",)):
        self.root, self.cache, self.commit = Path(root), Path(cache), commit
        self.branches = set(branches)
        self.fetched: list[str] = []
        self.resolved: list[str] = []

    def resolve(self, repo_id: str, revision: str) -> str:
        from mmmu_eval.core.errors import DataError

        self.resolved.append(revision)
        if revision == self.commit or revision in self.branches:
            return self.commit
        raise DataError(f"cannot read {repo_id} at {revision} (unknown revision)")

    def list_files(self, repo_id: str, commit: str) -> list[str]:
        assert commit == self.commit, "the loader must list files at the resolved commit"
        base = self.root / repo_id
        return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())

    def fetch(self, repo_id: str, filename: str, commit: str) -> Path:
        assert commit == self.commit, "the loader must fetch files at the resolved commit"
        target = self.cache / repo_id / commit / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.root / repo_id / filename, target)
        self.fetched.append(filename)
        return target


__all__ = [
    "LocalHub", "Row", "drop_column", "image_cell", "is_image_column", "mmmu_row", "png", "pro_row",
    "vision_row", "write_mmmu", "write_parquet", "write_pro",
]


@pytest.fixture(autouse=True)
def fresh_image_cache():
    """Import into a conftest: every test there starts and ends with an empty image cache, so
    files a test rewrites are read again."""
    parquet.clear_cache()
    yield
    parquet.clear_cache()
