"""Small writers for hand-written harness outputs: each test writes its rows in the harness's own format."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path


def write_jsonl(path: Path, rows: list[dict], *, tail: str = "") -> Path:
    """One JSON object a line, then ``tail`` as it is (a torn last line, for instance)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail, encoding="utf-8")
    return path


def write_json(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return path


def write_xlsx(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    """A one-sheet workbook, as VLMEvalKit (pandas) writes its prediction files."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return path


def write_tsv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t")
        writer.writerow(header)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
    return path


def write_eval_zip(path: Path, header: dict | None, samples: list[dict], *, start: dict | None = None) -> Path:
    """An Inspect ``.eval`` archive: header.json, samples/<id>_epoch_<n>.json, optionally _journal/start.json."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        if start is not None:
            archive.writestr("_journal/start.json", json.dumps(start))
        for sample in samples:
            archive.writestr(f"samples/{sample['id']}_epoch_{sample.get('epoch', 1)}.json", json.dumps(sample))
        if header is not None:
            archive.writestr("header.json", json.dumps(header))
    return path
