"""The bundled sample: it loads cleanly, covers what the real data does, and regenerates exactly."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from mmmu_eval.dataset import load_benchmark
from mmmu_eval.dataset.sample import SAMPLE_ROOT, sample_revision
from mmmu_eval.dataset.subjects import DISCIPLINES

REPO = Path(__file__).resolve().parents[2]
SETTINGS = ("standard-10", "standard-4", "vision")


def _mmmu(split):
    return load_benchmark("mmmu", split=split, data="sample")


def _pro(setting):
    return load_benchmark("mmmu-pro", setting=setting, data="sample")


@pytest.mark.parametrize("split, n", [("dev", 20), ("validation", 40)])
def test_mmmu_sample_loads_cleanly(split, n):
    ds = _mmmu(split)
    assert (len(ds.items), ds.problems, ds.source, ds.revision) == (n, (), "sample", sample_revision())
    assert {d for d in DISCIPLINES} == {i.discipline for i in ds.items}  # all six disciplines
    assert len({i.subject for i in ds.items}) == 10


@pytest.mark.parametrize("setting", SETTINGS)
def test_pro_sample_loads_cleanly(setting):
    ds = _pro(setting)
    assert len(ds.items) == 24 and not ds.problems
    assert all(i.question_type == "multiple-choice" and i.answer in i.choices for i in ds.items)


def test_pro_settings_list_the_same_ids_in_the_same_order():
    orders = [[i.id for i in _pro(s).items] for s in SETTINGS]
    assert orders[0] == orders[1] == orders[2]


def test_every_sample_image_decodes():
    datasets = [_mmmu("dev"), _mmmu("validation"), *(_pro(s) for s in SETTINGS)]
    count = 0
    for ds in datasets:
        for item in ds.items:
            for ref in item.images:
                with Image.open(io.BytesIO(ref.load())) as img:
                    img.load()
                    count += 1
    assert count > 150


def test_sample_covers_the_quirks_of_the_real_data():
    mmmu = _mmmu("dev").items + _mmmu("validation").items
    mc = [i for i in mmmu if i.question_type == "multiple-choice"]
    open_ = [i for i in mmmu if i.question_type == "open"]
    assert set(range(2, 11)) <= {len(i.options) for i in mc}, "2 to 10 options"
    assert all(isinstance(i.answer, str) and i.answer in i.choices for i in mc), "MC answers are choice letters"
    assert any(isinstance(i.answer, str) and re.fullmatch(r"\d+", i.answer) for i in open_), "numeric open answer"
    assert any(isinstance(i.answer, str) and i.answer.isalpha() for i in open_), "text open answer"
    assert any(isinstance(i.answer, tuple) and len(i.answer) == 2 for i in open_), "a list answer in a string"
    assert any(all(o.startswith("<image ") for o in i.options) for i in mc), "images inside options"
    multi = [i for i in mmmu if len(i.images) > 1 and "<image 2>" in i.question]
    tokens = [re.findall(r"<image (\d+)>", i.question) for i in multi]
    assert any(t != sorted(t) and len(t) != len(set(t)) for t in tokens), "tokens out of order and repeated"

    std10 = {i.id: i for i in _pro("standard-10").items}
    assert len(std10["test_Computer_Science_61"].options) == 12 and "L" in std10["test_Computer_Science_61"].choices
    acc29 = std10["validation_Accounting_29"]
    assert acc29.options == ("A", "B", "Not enough information") and any("nested" in n for n in acc29.notes)
    assert any(not re.search(r"<image \d+>", i.question) for i in std10.values()), "images only in the options"
    option_tokens = [re.findall(r"<image (\d+)>", " ".join(i.options)) for i in std10.values()]
    assert any(t and t != sorted(t) for t in option_tokens), "shuffled image options"
    assert Counter(len(i.options) for i in _pro("standard-4").items)[4] >= 20
    assert {len(i.options) for i in _pro("standard-4").items} > {4}, "standard-4 is not always 4 (issue #40)"

    vision = _pro("vision").items
    assert all(i.question == "" and [r.field for r in i.images] == ["image"] for i in vision)


def test_sample_is_small():
    total = sum(p.stat().st_size for p in SAMPLE_ROOT.rglob("*") if p.is_file())
    assert total < 3_000_000


def test_manifest_matches_the_committed_files():
    manifest = json.loads((SAMPLE_ROOT / "MANIFEST.json").read_text())
    on_disk = {p.relative_to(SAMPLE_ROOT).as_posix() for p in SAMPLE_ROOT.rglob("*.parquet")}
    assert set(manifest["files"]) == on_disk
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((SAMPLE_ROOT / name).read_bytes()).hexdigest() == digest, name


def test_generator_reproduces_the_sample(tmp_path, monkeypatch):
    """Same content always; the same bytes too when pyarrow and Pillow match the committed run.

    PNG and parquet encoders may change their output bytes between library versions without
    changing a pixel or a cell, so content (text cells, decoded pixels) is compared everywhere.
    """
    spec = importlib.util.spec_from_file_location("make_sample", REPO / "scripts" / "make_sample.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_sample", module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    module.build(tmp_path)
    committed = json.loads((SAMPLE_ROOT / "MANIFEST.json").read_text())
    fresh = json.loads((tmp_path / "MANIFEST.json").read_text())
    assert sorted(fresh["files"]) == sorted(committed["files"])
    for name in committed["files"]:
        assert _content(tmp_path / name) == _content(SAMPLE_ROOT / name), name
    if fresh["versions"] == committed["versions"]:
        assert fresh["files"] == committed["files"]


def _content(path: Path) -> list:
    table = pq.read_table(path)
    rows = []
    for row in table.to_pylist():
        cells = []
        for name, value in row.items():
            if isinstance(value, dict) and value.get("bytes"):
                with Image.open(io.BytesIO(value["bytes"])) as img:
                    value = (value["path"], img.mode, img.size, hashlib.sha256(img.tobytes()).hexdigest())
            cells.append((name, value))
        rows.append(cells)
    return [str(table.schema), rows]


def test_sample_files_have_the_hub_schema():
    schema = pq.read_schema(SAMPLE_ROOT / "MMMU" / "Accounting" / "validation-00000-of-00001.parquet")
    assert schema.names[:4] == ["id", "question", "options", "explanation"]
    assert schema.field("image_7").type == pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    vision = pq.read_schema(SAMPLE_ROOT / "MMMU_Pro" / "vision" / "test-00000-of-00001.parquet")
    assert vision.names == ["id", "image", "options", "answer", "subject"]
