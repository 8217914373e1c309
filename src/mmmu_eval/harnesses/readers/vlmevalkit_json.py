"""VLMEvalKit's tables written as JSON (``PRED_FORMAT=json``), for ``readers/vlmevalkit.py``.

With ``PRED_FORMAT=json`` VLMEvalKit writes each table it would write as ``.xlsx``
(``<model>_<dataset>.json``, ``..._result.json``, ``..._detailed_results.json``) as a JSON list
of row objects (``DataFrame.to_dict("records")``), empty cells as the bare ``NaN`` that Python's
``json`` writes. This turns one into the header and rows the other tables give.

>>> _ = Path("m_MMMU_DEV_VAL.json").write_text('[{"index": 0, "A": NaN, "prediction": "B"}]')
>>> json_rows(Path("m_MMMU_DEV_VAL.json"))
[['index', 'A', 'prediction'], [0, None, 'B']]
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from mmmu_eval.core.errors import DataError
from mmmu_eval.harnesses.readers.foreign import read_json

#: What a VLMEvalKit JSON table is.
EXPECTED = "VLMEvalKit's JSON rows (a list of objects with index and prediction)"


def looks_like_rows(path: Path) -> bool:
    """Whether the start of ``path`` is a JSON list of objects with ``index`` and ``prediction``."""
    try:
        with path.open("rb") as fh:
            head = fh.read(1 << 16).decode("utf-8", errors="replace")
    except OSError:
        return False
    return head.lstrip().startswith("[") and '"index"' in head and ('"prediction"' in head or '"question"' in head)


def json_rows(path: Path, limit: int | None = None) -> list[list[object]]:
    """``[header, row, ...]`` of a JSON table, cells as written (a ``NaN`` cell as None).

    Raises:
        DataError: not UTF-8 JSON, or JSON that is not a list of row objects (what it is instead named).
        ConfigError: the file cannot be read.
    """
    value = read_json(path, EXPECTED)
    if not isinstance(value, list):
        keys = f" with keys {', '.join(list(value)[:6])}" if isinstance(value, dict) else ""
        raise DataError(f"{path}: a JSON {type(value).__name__}{keys}, not a list of rows; expected {EXPECTED}")
    header: list[str] = []
    for row in value:
        if isinstance(row, dict):
            header.extend(k for k in row if k not in header)
    rows: list[list[object]] = [list(header)]
    for number, row in enumerate(value):
        if not isinstance(row, dict):
            raise DataError(f"{path}[{number}]: a JSON {type(row).__name__}, not a row object; expected {EXPECTED}")
        rows.append([_plain(row.get(column)) for column in header])
        if limit is not None and len(rows) > limit:
            break
    return rows


def _plain(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value
