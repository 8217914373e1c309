"""``lighteval``: the details lighteval (0.13) saves for its MMMU-Pro tasks (``--save-details``).

``lighteval ... "mmmu_pro:<setting>|0" --save-details`` writes
``<output_dir>/details/<model>/<time>/details_mmmu_pro:<setting>|0_<time>.parquet`` (one row per
item) and ``<output_dir>/results/<model>/results_<time>.json`` (its accuracy). Its tasks are
``mmmu_pro:standard-4``, ``mmmu_pro:standard-10`` and ``mmmu_pro:vision`` (it has no MMMU task).
A row holds:

- ``doc.task_name``: the task, so the setting is in every row;
- ``doc.specific.id``: the official item id (standard settings); a vision row has none, only
  ``doc.id``, the row's 0-based position in the split lighteval loaded;
- ``doc.choices`` (``"A. text"``) and ``doc.gold_index``: the options and the gold it used;
- ``model_response.text[0]``: the model's text; ``doc.specific.extracted_predictions``: the
  letters its parser took; ``metric.extractive_match``: its verdict (1.0 or 0.0).

Its parser (``gpqa_instruct_metric``) takes an option letter standing alone anywhere in the text,
so with ten options the pronoun "I" is an answer. It never guesses.

A vision row is read by its position only where that is certain: the join checks each row's
options against the item at that position in ``--data`` and refuses the file on any difference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    missing_column_error,
    names_mmmu,
    no_rows_error,
    other_benchmark_error,
    prompt_text,
    read_json,
    the_one_file,
)
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore

NAME = "lighteval"
EXPECTED = "a lighteval details row (doc, model_response, metric)"
#: lighteval's MMMU-Pro tasks -> our settings.
TASKS = {"mmmu_pro:standard-4": "standard-4", "mmmu_pro:standard-10": "standard-10", "mmmu_pro:vision": "vision"}
_DETAILS = re.compile(r"^details_(?P<task>.+?)\|(?P<shots>\d+)_(?P<time>.+)\.parquet$")
_CHOICE = re.compile(r"^[A-Z]\.\s?", re.S)
#: The columns read (the rows' images are left on disk).
_COLUMNS = ("doc.id", "doc.task_name", "doc.choices", "doc.gold_index", "doc.specific", "metric",
            "model_response.text", "model_response.input")
PARQUET_MAGIC = b"PAR1"


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is a lighteval details file (or a folder with one), or None."""
    if path.is_dir():
        found = _details_files(path)
        return f"a folder with lighteval details ({found[0].name})" if found else None
    if not is_parquet(path):
        return None
    names = set(parquet_columns(path))
    if {"doc", "model_response", "metric"} <= names:
        return "a parquet file with lighteval's doc, model_response and metric columns"
    return None


def read(path: Path) -> ForeignFile:
    """Read one details file (or the only MMMU-Pro one in a folder)."""
    path = _details_file(path)
    table = _read_columns(path)
    task_names = {t.split("|", 1)[0] for t in table["task_name"] if isinstance(t, str)}
    match = _DETAILS.match(path.name)
    task = next(iter(task_names)) if len(task_names) == 1 else (match["task"] if match else None)
    if len(task_names) > 1:
        raise DataError(f"{path}: its rows are of {len(task_names)} tasks ({', '.join(sorted(task_names))}); "
                        "lighteval writes one details file per task")
    if task not in TASKS:
        if task and names_mmmu(task):
            raise ConfigError(f"{path}: lighteval task {task!r} is not one of its MMMU-Pro tasks ({', '.join(TASKS)})")
        raise other_benchmark_error(path, task or path.stem, "its rows' doc.task_name names the task")
    setting = TASKS[task]
    problems: list[str] = []
    rows = [row for index in range(len(table["text"]))
            if (row := _row(f"{path.name}[{index}]", {k: v[index] for k, v in table.items()}, problems))]
    if not rows:
        raise no_rows_error(path, NAME, EXPECTED, problems)
    positional = sum(isinstance(r.key, int) for r in rows)
    notes = [f"lighteval task {task}: MMMU-Pro {setting}, as every row's doc.task_name says"]
    if positional:
        notes.append(f"{positional} row(s) carry no item id (lighteval's vision rows), only doc.id, their position "
                     "in the split lighteval loaded")
    notes.append("the question texts come from --data: lighteval's rows keep the options and the gold index")
    recorded, results, model = _recorded(path, f"{task}|{match['shots'] if match else 0}", match["time"] if match else None)
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems), benchmark="mmmu-pro",
        setting=setting, prompt_mode="direct", index_scheme="position-0", task=task, model=model,
        recorded=recorded, sources=(str(path),) + ((str(results),) if results else ()), notes=tuple(notes),
    )


def _row(where: str, cells: Mapping, problems: list[str]) -> ForeignRow | None:
    specific = cells.get("specific") if isinstance(cells.get("specific"), Mapping) else {}
    key: str | int | None = specific.get("id") if isinstance(specific.get("id"), str) else None
    if key is None and isinstance(cells.get("id"), str) and cells["id"].isdigit():
        key = int(cells["id"])
    if key is None:
        problems.append(f"{where}: neither doc.specific.id nor a numeric doc.id; nothing scored from it")
        return None
    texts = cells.get("text")
    response = texts[0] if isinstance(texts, list) and texts and isinstance(texts[0], str) else None
    if response is None:
        problems.append(f"{where} ({key}): no response in model_response.text; nothing scored from it")
        return None
    choices = [c for c in cells.get("choices") or [] if isinstance(c, str)]
    options = tuple(_CHOICE.sub("", c, count=1) for c in choices)
    return ForeignRow(where=where, key=key, response=response, harness=_verdict(cells, specific),
                      prompt=prompt_text(cells.get("input")), content=options if isinstance(key, int) else ())


def _verdict(cells: Mapping, specific: Mapping) -> HarnessVerdict | None:
    metric = cells.get("metric") if isinstance(cells.get("metric"), Mapping) else {}
    value = metric.get("extractive_match")
    gold_index = cells.get("gold_index")
    gold = chr(ord("A") + gold_index) if isinstance(gold_index, int) and 0 <= gold_index < 26 else None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    taken = specific.get("extracted_predictions")
    pred = next((p for p in taken if isinstance(p, str) and p), None) if isinstance(taken, list) else None
    note = "" if pred is not None else "lighteval found no option letter and never guesses"
    return HarnessVerdict(correct=value >= 1, pred=pred, gold=gold, fallback=False, note=note)


# -- files --------------------------------------------------------------------------------------

def is_parquet(path: Path) -> bool:
    """Whether ``path`` starts with the Parquet magic bytes."""
    try:
        with path.open("rb") as fh:
            return fh.read(4) == PARQUET_MAGIC
    except OSError:
        return False


def parquet_columns(path: Path) -> list[str]:
    """The top-level columns of a parquet file; [] when its footer cannot be read."""
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except Exception:  # pyarrow raises its own errors for a damaged footer
        return []


def _read_columns(path: Path) -> dict[str, list]:
    """The columns of ``_COLUMNS`` the file has, by their last name (``text``, ``specific`` ...)."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises its own errors for a damaged footer
        raise DataError(f"{path}: not a readable parquet file ({type(exc).__name__}: {exc}); expected {EXPECTED}") from None
    for column in ("doc", "model_response", "metric"):
        if column not in schema.names:
            raise missing_column_error(path, NAME, column, f"its columns are {', '.join(schema.names[:12])}")
    present = [c for c in _COLUMNS if _has(schema, c)]
    try:
        table = pq.read_table(path, columns=present)
    except Exception as exc:
        raise DataError(f"{path}: its columns cannot be read ({type(exc).__name__}: {exc})") from None
    out = {c.rsplit(".", 1)[-1]: table.column(i).to_pylist() for i, c in enumerate(present)}
    if "text" not in out:
        raise missing_column_error(path, NAME, "model_response.text", "its model_response has no text")
    return out


def _has(schema, dotted: str) -> bool:
    top, _, child = dotted.partition(".")
    if top not in schema.names:
        return False
    if not child:
        return True
    kind = schema.field(top).type
    return hasattr(kind, "get_field_index") and kind.get_field_index(child) >= 0


def _details_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("details_*.parquet") if "mmmu" in p.name.lower())


def _details_file(path: Path) -> Path:
    return the_one_file(path, _details_files(path) if path.is_dir() else [],
                        "no lighteval details file of an MMMU-Pro task in it (details_mmmu_pro:<setting>|0_<time>.parquet)",
                        "lighteval details files")


def _recorded(details: Path, task: str, time: str | None) -> tuple[RecordedScore | None, Path | None, str | None]:
    """(accuracy, results file, model) from ``<output_dir>/results/<model>/results_<time>.json``."""
    parts = details.parts
    if "details" not in parts or time is None:
        return None, None, None
    at = len(parts) - 1 - parts[::-1].index("details")
    model_parts = parts[at + 1:-2]
    results = Path(*parts[:at], "results", *model_parts, f"results_{time}.json")
    if not results.is_file():
        return None, None, "/".join(model_parts) or None
    try:
        doc = read_json(results, "a lighteval results file")
    except (DataError, ConfigError):
        return None, None, None
    entry = (doc.get("results") or {}).get(task) if isinstance(doc, dict) else None
    value = entry.get("extractive_match") if isinstance(entry, dict) else None
    general = doc.get("config_general") if isinstance(doc.get("config_general"), dict) else {}
    model = general.get("model_name") if isinstance(general.get("model_name"), str) else "/".join(model_parts) or None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None, results, model
    return RecordedScore(float(value), f"{results.name}: results[{task}].extractive_match"), results, model
