"""Read a hub parquet file's rows without its image bytes, and fetch one image on demand.

The text columns of a whole split are small; its images are not (the MMMU test split is close
to a gigabyte). So a file is read in two ways:

- ``read_rows`` reads every non-image column, and of each image column only the struct's
  ``path`` child, which is enough to know whether a row has that image. No image bytes are read.
- each present image gets a loader (``load_image`` bound to file, row group, offset, column)
  that reads that one column of that one row group when called, keeps a copy of the single
  cell, and checks that PIL can open it (once per cell). A tiny cache of decoded row-group
  columns keeps neighbouring images (the next item, the next image of the same item) from
  re-reading the file.

Memory therefore stays flat while iterating a 10,500-item split: items hold loaders, and at most
``CACHE_SIZE`` row-group columns (``CACHE_BYTES`` in all) are alive at once.
"""

from __future__ import annotations

import bisect
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from mmmu_eval.dataset.schema import is_image_column
from mmmu_eval.core.errors import DataError
from mmmu_eval.core.records import sniff_media_type

#: Row-group columns kept decoded. Seven image columns plus one keeps a multi-image item in cache.
CACHE_SIZE = 8
#: ... and at most this many bytes of them (the newest is always kept): a row group of 30 large
#: MMMU images is about 9 MB, so eight of them would sit on 70 MB that a run never reads again.
CACHE_BYTES = 24 * 1024 * 1024

_cache: OrderedDict[tuple, pa.Array | pa.ChunkedArray] = OrderedDict()
_cache_lock = threading.Lock()
#: Cells already checked to open with PIL, with their size and type: a run reads each image for
#: its request, and the report then needs no second check, nor a read to plan its image budget.
_seen: dict[tuple, tuple[int, str]] = {}


@dataclass(frozen=True)
class RawRow:
    """One parquet row before normalisation: text cells plus loaders for the images it has."""

    file: str
    """The file, relative to the repository or snapshot root (for messages)."""
    index: int
    """0-based row number in the file."""
    values: dict[str, object]
    """Every non-image column's cell."""
    images: dict[str, Callable[[], bytes]]
    """Image column -> loader, for the image cells that are not null."""
    columns: frozenset[str]
    """Every column the file has, images included (to tell absent columns from null cells)."""

    @property
    def label(self) -> str:
        """The row's id, or where it sits when it has none."""
        return _label(self.values, self.file, self.index)


def read_rows(path: Path, rel: str) -> Iterator[RawRow]:
    """Yield the rows of one parquet file, text only; images stay on disk.

    Raises DataError (naming ``rel``) when the file is not readable parquet.
    """
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
        image_cols = [f.name for f in schema if is_image_column(f.name)]
        text_cols = [f.name for f in schema if not is_image_column(f.name)]
        wanted = text_cols + [
            f"{c}.path" if _is_struct_with_path(schema.field(c).type) else c for c in image_cols
        ]
        table = pf.read(columns=wanted)
        group_of = _row_groups(pf)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(
            f"{rel}: not a readable parquet file ({exc}); download it again "
            "(delete it, then `mmmu-eval data download`, or --data hub)"
        ) from exc
    presence = {c: table.column(c).is_null().to_pylist() for c in image_cols}
    texts = table.select(text_cols).to_pylist()
    del table
    columns = frozenset(schema.names)
    key = _file_key(path)
    for index, values in enumerate(texts):
        row_group, offset = group_of(index)
        label = _label(values, rel, index)
        images = {
            c: CellLoader(key, row_group, offset, c, label)
            for c in image_cols
            if not presence[c][index]
        }
        yield RawRow(rel, index, values, images, columns)


class CellLoader:
    """An ImageRef's loader for one parquet cell: ``load_image`` with the cell's place bound.

    ``peek`` answers, without reading the file, what the report needs to plan its image budget:
    the size and type of an image this process has already read (every image, once a run has
    built its requests).
    """

    __slots__ = ("file_key", "row_group", "offset", "column", "label")

    def __init__(self, file_key: tuple, row_group: int, offset: int, column: str, label: str) -> None:
        self.file_key, self.row_group, self.offset, self.column, self.label = file_key, row_group, offset, column, label

    def __call__(self) -> bytes:
        return load_image(self.file_key, self.row_group, self.offset, self.column, self.label)

    def peek(self) -> tuple[int, str] | None:
        """(bytes, MIME type) of the cell when it was read and checked before; else None."""
        return _seen.get((self.file_key, self.row_group, self.offset, self.column))


def load_image(file_key: tuple, row_group: int, offset: int, column: str, label: str) -> bytes:
    """The encoded bytes of one image cell, checked to open with PIL.

    Raises DataError naming the item and the column when the cell is missing or unreadable.
    """
    try:
        chunk = _row_group_column(file_key, row_group, column)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(f"{column}: cannot read {Path(file_key[0]).name} ({exc})", label) from exc
    cell = chunk[offset].as_py()
    if isinstance(cell, dict):
        data = cell.get("bytes")
        if not data and cell.get("path"):
            data = _read_side_file(Path(file_key[0]).parent / str(cell["path"]), column, label)
    else:
        data = cell
    if not data:
        raise DataError(f"{column} is missing (the cell has no image bytes)", label)
    data = bytes(data)
    cell_key = (file_key, row_group, offset, column)
    if cell_key not in _seen:  # the file key changes when the file does
        check_image(data, column, label)
        _seen[cell_key] = (len(data), sniff_media_type(data))
    return data


def check_image(data: bytes, column: str, label: str) -> None:
    """Raise DataError unless PIL can open (and, for non-PNG, decode) the bytes.

    Nothing is decoded at full size that need not be: a PNG is verified (its CRCs), a JPEG decoded
    at 1/8 scale (``draft``: every byte of it is still read, so a cut one is found), another
    format decoded only within Pillow's limit (``PIL.Image.MAX_IMAGE_PIXELS``, read from the header).
    """
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format
            pixels = img.width * img.height
            img.verify()
        within = Image.MAX_IMAGE_PIXELS is None or pixels <= Image.MAX_IMAGE_PIXELS
        if fmt != "PNG" and (fmt == "JPEG" or within):  # other formats need a decode to find truncation
            with Image.open(io.BytesIO(data)) as img:
                if fmt == "JPEG":
                    img.draft(None, (1, 1))
                img.load()
    except Exception as exc:  # PIL raises many types for bad data; all mean "unusable image"
        # PIL's own message for unknown bytes names a BytesIO object and its address; the first
        # bytes of the cell say more (and keep the message the same from run to run).
        reason = f"{type(exc).__name__}: {exc}" if "BytesIO" not in str(exc) else "not a format PIL knows"
        raise DataError(
            f"{column} is not a readable image ({reason}; its {len(data)} bytes start {data[:16]!r})", label
        ) from exc


def clear_cache() -> None:
    """Drop the cached row-group columns (tests; freeing memory between runs)."""
    with _cache_lock:
        _cache.clear()
    _seen.clear()


def _label(values: dict[str, object], rel: str, index: int) -> str:
    rid = values.get("id")
    return rid if isinstance(rid, str) and rid else f"{rel} row {index}"


def _read_side_file(path: Path, column: str, label: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        raise DataError(f"{column} is missing (no bytes, and no file at {path})", label) from None


def _row_group_column(file_key: tuple, row_group: int, column: str) -> pa.Array | pa.ChunkedArray:
    key = (file_key, row_group, column)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    # Read outside the lock: two threads may read the same chunk once each, never block each other.
    # Memory: a row group of 30 large images is 9 MB, and read the default way it cost a run 60 MB
    # at a time, kept afterwards by Arrow's allocator. Mapped rather than copied in, on this
    # thread (Arrow's pool threads each keep memory of their own), left in its chunks (no copy
    # into one), with what Arrow freed handed back at once: the read costs about its own size.
    chunk = pq.ParquetFile(file_key[0], memory_map=True).read_row_group(row_group, columns=[column],
                                                                        use_threads=False).column(0)
    pa.default_memory_pool().release_unused()
    with _cache_lock:
        _cache[key] = chunk
        while len(_cache) > CACHE_SIZE or (len(_cache) > 1 and _cached_bytes() > CACHE_BYTES):
            _cache.popitem(last=False)
    return chunk


def _cached_bytes() -> int:
    return sum(chunk.nbytes for chunk in _cache.values())


def _file_key(path: Path) -> tuple:
    """Path plus size and mtime, so a rewritten file never serves a stale cached image."""
    st = path.stat()
    return (str(path), st.st_size, st.st_mtime_ns)


def _is_struct_with_path(t: pa.DataType) -> bool:
    return pa.types.is_struct(t) and t.get_field_index("path") >= 0


def _row_groups(pf: pq.ParquetFile) -> Callable[[int], tuple[int, int]]:
    starts: list[int] = []
    total = 0
    for g in range(pf.metadata.num_row_groups):
        starts.append(total)
        total += pf.metadata.row_group(g).num_rows

    def locate(index: int) -> tuple[int, int]:
        group = bisect.bisect_right(starts, index) - 1  # the last group starting at or before it
        return group, index - starts[group]

    return locate
