"""Write the hub's MMMU-Pro layout: the only code in the package that writes dataset files.

``OUT/standard (4 options)/test-00000-of-00001.parquet``, ``OUT/standard (10 options)/...`` and
``OUT/vision/...``, with exactly the hub's columns in the hub's order and types
(``dataset/schema.py``), so ``mmmu-eval run --benchmark mmmu-pro --data OUT`` reads them as it
reads the hub. The vision config adds four columns after the hub's five, the rendering
parameters of each screenshot (the official build data kept font, size and background per item
too); readers ignore columns they do not know.

Rows are streamed into small row groups (images are read one item at a time, and the loader
reads one row group per image), into a temporary file that replaces the config's file only
when it is complete. An item whose images cannot be read is a Problem, not a crash.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from mmmu_eval.dataset.layout import PRO_CONFIGS
from mmmu_eval.dataset.schema import PRO_STANDARD_COLUMNS, PRO_VISION_COLUMNS, arrow_schema
from mmmu_eval.errors import DataError, StoreError
from mmmu_eval.harden.problems import Problem
from mmmu_eval.records import Item, sniff_media_type
from mmmu_eval.store.atomic import temporary_beside

__all__ = [
    "RENDER_COLUMNS", "Written", "config_file", "copy_config", "remove_config", "standard_row", "vision_row",
    "write_config",
]

#: Rendering parameters in the vision config, after the hub's columns.
RENDER_COLUMNS: tuple[str, ...] = ("font", "font_size", "page_width", "background")
VISION_COLUMNS = PRO_VISION_COLUMNS + RENDER_COLUMNS
#: Rows per row group: a loader reads a whole group's image column to get one image.
ROW_GROUP = 16
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True)
class Written:
    """One config written."""

    path: Path
    ids: tuple[str, ...]
    """The items written, in order."""
    problems: tuple[Problem, ...]
    """Items left out because their row could not be built (an unreadable image)."""
    sha256: str
    """Of the parquet file's bytes."""


def config_file(root: Path, setting: str) -> Path:
    """Where a config's single file lives under ``root``."""
    return Path(root) / PRO_CONFIGS[setting] / "test-00000-of-00001.parquet"


def standard_row(item: Item, options: Iterable[str] | None = None, answer: str | None = None) -> dict[str, object]:
    """The hub row of a standard config; the item's own options and answer unless given.

    Raises DataError (naming the item) when one of its images cannot be read.
    """
    row: dict[str, object] = {
        "id": item.id,
        "question": item.question,
        "options": str(list(item.options if options is None else options)),
        "explanation": item.explanation,
        "img_type": str(list(item.img_type)),
        "answer": item.answer if answer is None else answer,
        "topic_difficulty": item.topic_difficulty or "",
        "subject": item.subject,
    }
    for n in range(1, 8):
        ref = item.image(n)
        row[f"image_{n}"] = _cell(ref.load(), f"{item.id}_{n}") if ref is not None else None
    return row


def vision_row(item: Item, screenshot: bytes, options: Iterable[str], answer: str, params: dict[str, object]) -> dict[str, object]:
    """The hub row of the vision config, plus the rendering parameters."""
    row: dict[str, object] = {
        "id": item.id,
        "image": _cell(screenshot, item.id),
        "options": str(list(options)),
        "answer": answer,
        "subject": item.subject,
    }
    for column in RENDER_COLUMNS:
        row[column] = str(params[column])
    return row


def write_config(
    root: Path, setting: str, items: Iterable[Item], row_of: Callable[[Item], dict[str, object]], *, step: str
) -> Written:
    """Write one config of ``root`` from ``row_of(item)`` for each item, replacing what was there.

    Raises:
        StoreError: the file cannot be written (the old one, if any, is kept).
    """
    target = config_file(root, setting)
    columns = VISION_COLUMNS if setting == "vision" else PRO_STANDARD_COLUMNS
    schema = arrow_schema(columns)
    ids: list[str] = []
    problems: list[Problem] = []
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temporary_beside(target, ".parquet.tmp")
        os.close(fd)
        try:
            with pq.ParquetWriter(tmp, schema, compression="snappy") as out:
                batch: list[dict[str, object]] = []
                for item in items:
                    try:
                        batch.append(row_of(item))
                    except DataError as exc:
                        problems.append(Problem.from_error(exc, step, "image", where=item.id))
                        continue
                    ids.append(item.id)
                    if len(batch) == ROW_GROUP:
                        out.write_table(_table(batch, columns, schema))
                        batch = []
                if batch or not ids:
                    out.write_table(_table(batch, columns, schema))
            for old in target.parent.glob("test*.parquet"):
                if old != target:
                    old.unlink()  # an earlier layout with several shards
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StoreError(f"cannot write ({exc.strerror or exc}); choose a writable --out", target) from exc
    return Written(target, tuple(ids), tuple(problems), _sha256(target))


def copy_config(source_root: Path, root: Path, setting: str) -> Path | None:
    """Copy a config's files byte for byte from an earlier step's output; None when it has none.

    Nothing is copied when both roots are the same directory (a step extending its input).
    """
    source = Path(source_root) / PRO_CONFIGS[setting]
    if not source.is_dir():
        nested = Path(source_root) / "MMMU_Pro" / PRO_CONFIGS[setting]
        if not nested.is_dir():
            return None
        source = nested
    folder = Path(root) / PRO_CONFIGS[setting]
    if folder.exists() and folder.resolve() == source.resolve():
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("test*.parquet"):
            old.unlink()
        for file in sorted(source.glob("test*.parquet")):
            shutil.copyfile(file, folder / file.name)
    except OSError as exc:
        raise StoreError(f"cannot copy {source} ({exc.strerror or exc})", folder) from exc
    return folder


def remove_config(root: Path, setting: str) -> bool:
    """Delete a config a changed earlier step made stale; True when there was one."""
    folder = Path(root) / PRO_CONFIGS[setting]
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True


def _cell(data: bytes, stem: str) -> dict[str, object]:
    return {"bytes": data, "path": f"{stem}.{_EXTENSIONS.get(sniff_media_type(data), 'bin')}"}


def _table(rows: list[dict[str, object]], columns: tuple[str, ...], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pydict({c: [r.get(c) for r in rows] for c in columns}, schema=schema)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
