"""Write the hub's MMMU-Pro layout: the only code in the package that writes dataset files.

``OUT/standard (4 options)/test-00000-of-00001.parquet``, ``OUT/standard (10 options)/...`` and
``OUT/vision/...``, with exactly the hub's columns in the hub's order and types
(``dataset/schema.py``), so ``mmmu-eval run --benchmark mmmu-pro --data OUT`` reads them as it
reads the hub. The vision config adds seven columns after the hub's five, the rendering
parameters of each page (``RENDER_COLUMNS``) (the official build data kept font, size and background per item
too); readers ignore columns they do not know.

Rows are streamed into small row groups (images are read one item at a time, and the loader
reads one row group per image), into a temporary file beside the config's file. Nothing here
rewrites a file in place: a loaded item's images are lazy references to row positions of the
file it came from, so a file must not change while such items may still be read. A step that
writes a config from items of the same directory (``augment --apply`` in place drops rows of
the 4-option file that the 10-option rows and the review page still read) writes every file
into a ``Beside`` and replaces them all at once, after its last read. An item whose images
cannot be read is a Problem, not a crash.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from mmmu_eval.dataset.digest import file_sha256
from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.dataset.schema import PRO_STANDARD_COLUMNS, PRO_VISION_COLUMNS, arrow_schema
from mmmu_eval.core.errors import DataError, StoreError
from mmmu_eval.harden.problems import Problem
from mmmu_eval.core.records import Item, sniff_media_type
from mmmu_eval.core.atomic import TEXT_ERRORS, remove_leftovers, temporary_beside
from mmmu_eval.core.nofollow import refuse_link

__all__ = [
    "RENDER_COLUMNS", "Beside", "Written", "replace_text", "config_file", "copy_config", "remove_config", "standard_row", "vision_row",
    "write_config",
]

#: Rendering parameters in the vision config, after the hub's columns.
RENDER_COLUMNS: tuple[str, ...] = ("font", "font_size", "page_width", "background", "options_columns", "images", "medium")
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


class Beside:
    """Files written next to the ones they will replace, put in place together by ``replace_all``.

    Until then every earlier file is untouched, so items loaded from them read the right rows.
    ``discard`` (or leaving the ``with`` block on an error) removes what was written.
    """

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path, bool]] = []
        self._folders: set[Path] = set()

    def __enter__(self) -> "Beside":
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.discard()
        elif self._pending:
            self.replace_all()

    def temporary(self, target: Path, *, sole_shard: bool = False) -> Path:
        """A new empty file beside ``target``, to replace it at ``replace_all``.

        ``sole_shard``: the target is its config's only parquet file, so the other shards of an
        earlier layout go when it is put in place.
        """
        if target.parent not in self._folders:  # the first file staged there: a step killed before
            self._folders.add(target.parent)     # its rename left its temporary file behind
            remove_leftovers(target.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temporary_beside(target)  # created with the user's umask, as every file we write
        os.close(fd)
        for pending in [p for p in self._pending if p[1] == target]:
            pending[0].unlink(missing_ok=True)
            self._pending.remove(pending)
        self._pending.append((Path(tmp), target, sole_shard))
        return Path(tmp)

    def text(self, target: Path, text: str) -> None:
        """``text`` as the future content of ``target``."""
        self.temporary(target).write_text(text, encoding="utf-8", errors=TEXT_ERRORS)

    def replace_all(self) -> None:
        """Move every file into place (each move is atomic), then forget them."""
        try:
            for tmp, target, sole_shard in self._pending:
                if sole_shard:
                    for old in target.parent.glob("test*.parquet"):
                        if old != target:
                            old.unlink()  # an earlier layout with several shards
                refuse_link(target)  # a dataset file of the output is never a link's replacement (nofollow)
                os.replace(tmp, target)
        except OSError as exc:
            raise StoreError(f"cannot put the new files in place ({exc.strerror or exc})", target) from exc
        finally:
            self.discard()

    def discard(self) -> None:
        for tmp, _, _ in self._pending:
            tmp.unlink(missing_ok=True)
        self._pending = []


def replace_text(target: Path, text: str) -> None:
    """Write a text file (the review files, the report) beside its old self, then replace it."""
    with Beside() as beside:
        beside.text(Path(target), text)


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
    root: Path, setting: str, items: Iterable[Item], row_of: Callable[[Item], dict[str, object]], *, step: str,
    beside: Beside | None = None,
) -> Written:
    """Write one config of ``root`` from ``row_of(item)`` for each item, replacing what was there.

    With ``beside`` the new file waits beside the old one until ``beside.replace_all()``;
    without it, it replaces the old one once complete (nothing may read the old one after).

    Raises:
        StoreError: the file cannot be written (the old one, if any, is kept).
    """
    target = config_file(root, setting)
    columns = VISION_COLUMNS if setting == "vision" else PRO_STANDARD_COLUMNS
    schema = arrow_schema(columns)
    ids: list[str] = []
    problems: list[Problem] = []
    own = beside is None
    staging = Beside() if own else beside
    try:
        tmp = staging.temporary(target, sole_shard=True)
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
            digest = file_sha256(tmp)
            if own:
                staging.replace_all()
        except BaseException:
            staging.discard()
            raise
    except OSError as exc:
        raise StoreError(f"cannot write ({exc.strerror or exc}); choose a writable --out", target) from exc
    return Written(target, tuple(ids), tuple(problems), digest)


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
        files = sorted(source.glob("test*.parquet"))
        with Beside() as beside:
            for file in files:
                shutil.copyfile(file, beside.temporary(folder / file.name))
        for old in folder.glob("test*.parquet"):
            if old.name not in {f.name for f in files}:
                old.unlink()
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
