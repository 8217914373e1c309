"""Images stay on disk until ImageRef.load(), and a bad one is a DataError naming item and field."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest
from PIL import Image

from fakes.parquet_rows import image_cell, mmmu_row, png, vision_row, write_mmmu, write_pro
from mmmu_eval.dataset import load_benchmark, parquet
from mmmu_eval.core.errors import DataError


@pytest.fixture
def reads(monkeypatch):
    """Record every column list read from parquet (whole-file reads and row-group reads)."""
    seen: list[tuple[str, tuple[str, ...]]] = []
    real_read, real_group = pq.ParquetFile.read, pq.ParquetFile.read_row_group

    def read(self, columns=None, **kw):
        seen.append(("file", tuple(columns or ())))
        return real_read(self, columns=columns, **kw)

    def read_row_group(self, i, columns=None, **kw):
        seen.append(("group", tuple(columns or ())))
        return real_group(self, i, columns=columns, **kw)

    monkeypatch.setattr(pq.ParquetFile, "read", read)
    monkeypatch.setattr(pq.ParquetFile, "read_row_group", read_row_group)
    return seen


def _jpeg(color=(10, 200, 10)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(buf, format="JPEG")
    return buf.getvalue()


def test_loading_items_reads_no_image_bytes(snap, reads):
    rows = [mmmu_row(f"validation_Art_{i}", image_2=image_cell(png((i, 0, 0)))) for i in range(1, 6)]
    write_mmmu(snap, "Art", "validation", rows)
    ds = load_benchmark("mmmu", data=snap)
    assert len(ds.items) == 5
    assert [kind for kind, _ in reads] == ["file"]
    image_columns = [c for c in reads[0][1] if c.startswith("image")]
    assert image_columns == [f"image_{n}.path" for n in range(1, 8)]  # only the path child, never bytes


def test_load_reads_one_row_group_column_and_returns_the_stored_bytes(snap, reads):
    pictures = [png((i * 40, 0, 0), (4 + i, 3)) for i in range(6)]
    rows = [mmmu_row(f"validation_Art_{i + 1}", image_1=image_cell(p)) for i, p in enumerate(pictures)]
    write_mmmu(snap, "Art", "validation", rows, row_group_size=2)
    items = load_benchmark("mmmu", data=snap).items
    reads.clear()
    assert items[4].images[0].load() == pictures[4]  # row group 2, offset 0
    assert items[5].images[0].load() == pictures[5]  # same row group: served from the cache
    assert items[1].images[0].load() == pictures[1]  # row group 0, offset 1
    assert reads == [("group", ("image_1",)), ("group", ("image_1",))]


def test_cache_is_bounded(snap):
    rows = [mmmu_row(f"validation_Art_{i}", image_1=image_cell(png((i, i, i)))) for i in range(1, 31)]
    write_mmmu(snap, "Art", "validation", rows, row_group_size=1)
    for item in load_benchmark("mmmu", data=snap).items:
        item.images[0].load()
    assert len(parquet._cache) == parquet.CACHE_SIZE


def test_cache_holds_few_large_row_groups(snap, monkeypatch):
    monkeypatch.setattr(parquet, "CACHE_BYTES", 1)  # smaller than any row group: only the newest stays
    rows = [mmmu_row(f"validation_Art_{i}", image_1=image_cell(png((i, i, i)))) for i in range(1, 5)]
    write_mmmu(snap, "Art", "validation", rows, row_group_size=1)
    items = load_benchmark("mmmu", data=snap).items
    assert [item.images[0].load() for item in items] == [png((i, i, i)) for i in range(1, 5)]
    assert len(parquet._cache) == 1


def test_corrupt_image_names_item_and_field(snap):
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1"),
                                            mmmu_row("validation_Art_2", image_2=image_cell(b"\x89PNG\r\n\x1a\nbroken"))])
    good, bad = load_benchmark("mmmu", data=snap).items
    assert good.images[0].load().startswith(b"\x89PNG")
    bad.images[0].load()  # image_1 of the bad row is fine
    with pytest.raises(DataError, match=r"^validation_Art_2: image_2 is not a readable image") as info:
        bad.images[1].load()
    assert info.value.item_id == "validation_Art_2"


def test_truncated_jpeg_is_caught(snap):
    whole = _jpeg()
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=image_cell(whole)),
                                            mmmu_row("validation_Art_2", image_1=image_cell(whole[: len(whole) // 2]))])
    ok, cut = load_benchmark("mmmu", data=snap).items
    assert ok.images[0].load() == whole
    with pytest.raises(DataError, match="validation_Art_2: image_1 is not a readable image"):
        cut.images[0].load()


@pytest.mark.parametrize("cell", [image_cell(None, None), image_cell(b"", "gone.png")])
def test_missing_image_bytes_name_item_and_field(snap, cell):
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=cell)])
    (item,) = load_benchmark("mmmu", data=snap).items
    assert [r.field for r in item.images] == ["image_1"]
    with pytest.raises(DataError, match=r"^validation_Art_1: image_1 is missing"):
        item.images[0].load()


def test_image_stored_as_a_side_file_path_is_read(snap):
    picture = png((1, 2, 3))
    (snap / "Art").mkdir()
    (snap / "Art" / "pic.png").write_bytes(picture)
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=image_cell(None, "pic.png"))])
    assert load_benchmark("mmmu", data=snap).items[0].images[0].load() == picture


def test_null_image_cells_are_not_images(snap):
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=None, question="no picture")])
    assert load_benchmark("mmmu", data=snap).items[0].images == ()


def test_vision_item_without_its_screenshot_fails_on_load_not_on_read(snap):
    write_pro(snap, "vision", [vision_row("test_History_1", image=None), vision_row("test_History_2")])
    ds = load_benchmark("mmmu-pro", setting="vision", data=snap)
    assert len(ds.items) == 2 and not ds.problems
    with pytest.raises(DataError, match=r"^test_History_1: image is missing"):
        ds.items[0].images[0].load()
    assert ds.items[1].images[0].load().startswith(b"\x89PNG")


def test_a_rewritten_file_is_not_served_from_a_stale_cache(snap):
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=image_cell(png((1, 1, 1))))])
    assert load_benchmark("mmmu", data=snap).items[0].images[0].load() == png((1, 1, 1))
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1", image_1=image_cell(png((9, 9, 9), (5, 5))))])
    assert load_benchmark("mmmu", data=snap).items[0].images[0].load() == png((9, 9, 9), (5, 5))


def test_item_repr_shows_no_bytes(snap):
    write_mmmu(snap, "Art", "validation", [mmmu_row("validation_Art_1")])
    item = load_benchmark("mmmu", data=snap).items[0]
    assert repr(item) == "Item('validation_Art_1', multiple-choice, 4 options, 1 images)"
