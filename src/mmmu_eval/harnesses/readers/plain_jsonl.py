"""``jsonl``: a plain file of ``{"id", "response"}`` rows, for any tool we have no reader for.

One JSON object a line. ``id`` is the dataset's id (``validation_Art_3``); ``response`` the model's
text. Optional keys:

- ``error``: the request failed (the row then needs no ``response``); never scored;
- ``benchmark`` (``mmmu`` / ``mmmu-pro``), ``setting``, ``split``: what the row was asked from,
  so that a file mixing them is refused rather than scored as one run;
- ``correct`` (true/false) and ``pred``: the other tool's own verdict and parsed answer, to set
  beside ours.

>>> _ = Path("out.jsonl").write_text('{"id": "validation_Art_3", "response": "C", "correct": true}\\n')
>>> read(Path("out.jsonl")).rows[0].key
'validation_Art_3'
"""

from __future__ import annotations

from pathlib import Path

from mmmu_eval.scoring.harness_verdicts import HarnessVerdict
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    jsonl_rows,
    missing_column_error,
    no_rows_error,
)

NAME = "jsonl"
EXPECTED = 'a {"id", "response"} object'


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is a plain ``jsonl`` file, or None."""
    if path.suffix == ".jsonl" and first is not None and "id" in first and ("response" in first or "error" in first):
        return 'a JSONL row with "id" and "response"'
    if path.suffix == ".jsonl" and first is not None and isinstance(first.get("id"), str):
        return 'a JSONL row with an "id" (and no "response")'
    return None


def read(path: Path) -> ForeignFile:
    """Read the rows; a row without a usable id or response is a problem, not a row."""
    problems: list[str] = []
    rows: list[ForeignRow] = []
    records = list(jsonl_rows(path, problems))
    if records and not any("response" in row or "error" in row for _, row in records):
        raise missing_column_error(path, NAME, "response", f"its first row has {', '.join(sorted(records[0][1])[:10])}")
    for where, row in records:
        key = row.get("id")
        if not isinstance(key, str) or not key.strip():
            problems.append(f"{where}: no \"id\" string (expected {EXPECTED}); nothing scored from it")
            continue
        error = row.get("error")
        response = row.get("response")
        if error is not None and not isinstance(error, str):
            error = str(error)
        if error is None and not isinstance(response, str):
            problems.append(f"{where} ({key}): \"response\" is {type(response).__name__}, not text; nothing scored from it")
            continue
        harness = None
        if isinstance(row.get("correct"), bool):
            pred = row.get("pred")
            harness = HarnessVerdict(correct=row["correct"], pred=pred if isinstance(pred, str) else None,
                                     gold=row.get("gold"), fallback=None)
        rows.append(ForeignRow(
            where=where, key=key.strip(), response=None if error is not None else response, error=error,
            harness=harness, benchmark=_text(row.get("benchmark")), setting=_text(row.get("setting")),
            split=_text(row.get("split")),
        ))
    if not rows:
        raise no_rows_error(path, NAME, EXPECTED, problems)
    return ForeignFile(format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems), sources=(str(path),))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
