"""``vlmevalkit``: VLMEvalKit's prediction files for MMMU and MMMU-Pro, with its verdicts when present.

``run.py`` writes ``<model>_<dataset>.xlsx`` (or ``.tsv``): the dataset's rows (``index``,
``question``, options ``A``, ``B``, ..., ``answer``, ``category``, ``split``, and for MMMU the
official ``id``) plus the model's ``prediction``. Datasets: ``MMMU_DEV_VAL`` (dev and validation
in one file; the validation rows are scored unless ``--split dev``), ``MMMU_TEST``,
``MMMU_Pro_10c``, ``MMMU_Pro_V`` and their ``_COT`` variants. Its evaluation writes next to it
``<model>_<dataset>_<judge>_result.xlsx`` (for the CoT variants after its own answer-line
post-processing, ``..._cotpost_<judge>_result.xlsx``), whose ``hit`` column is its verdict and
``log`` column says how it was reached:

- ``Match Log: <the prediction>.``: its rules found a letter in the prediction;
- ``Match Log: <other text>.``: an LLM judge read the prediction and answered that text;
- ``... Failed to predict, thus randomly generate one.``: the judge failed; a random letter;
- ``... Failed in Prefetch, no GPT-based answer matching ...``: no letter, no judge; wrong.

It turns MMMU's open questions into two-option questions (``A`` = the gold answer, ``B`` =
"Other Answers") before scoring them, so its verdict on an open question is a multiple-choice
one. ``<model>_<dataset>_acc.csv`` holds the accuracy it recorded, per split. A prediction
``Failed to obtain answer...`` is its record of a failed API call.

With ``--use-verifier`` it writes ``<model>_<dataset>_detailed_results`` instead: the rows with
``verifier_score`` (its verifier model's verdict) and ``verifier_match``, and an ``_acc.csv`` of
``Category, Total, Hit, Accuracy`` (in percent). With ``PRED_FORMAT=json`` every table is a JSON
list of rows (``readers/vlmevalkit_json.py``); its own evaluation of such a file fails (it sorts the
list as if it were a table), so a JSON prediction file comes without VLMEvalKit's verdicts.

Rows are keyed by their ``id`` column; a file without one (MMMU-Pro) is keyed by its question and
option texts (``content``), which identify the item whatever VLMEvalKit's ``index`` numbering is.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.readers.vlmevalkit_json import json_rows, looks_like_rows
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    missing_column_error,
    names_mmmu,
    no_rows_error,
    other_benchmark_error,
)

NAME = "vlmevalkit"
EXPECTED = "a VLMEvalKit prediction row (columns index and prediction)"
DATASETS: dict[str, tuple[str, str | None, str | None, str]] = {
    # dataset name -> (benchmark, split, setting, prompt mode)
    "MMMU_DEV_VAL": ("mmmu", "validation", None, "direct"),
    "MMMU_TEST": ("mmmu", "test", None, "direct"),
    "MMMU_Pro_10c": ("mmmu-pro", None, "standard-10", "direct"),
    "MMMU_Pro_10c_COT": ("mmmu-pro", None, "standard-10", "cot"),
    "MMMU_Pro_V": ("mmmu-pro", None, "vision", "direct"),
    "MMMU_Pro_V_COT": ("mmmu-pro", None, "vision", "cot"),
}
_NAME = re.compile(r"^(?P<model>.+?)_(?P<dataset>" + "|".join(sorted(DATASETS, key=len, reverse=True))
                   + r")(?P<rest>_.+)?\.(?P<ext>xlsx|tsv|json)$")
_FAILED = "Failed to obtain answer"
_LOG = re.compile(r"^Match Log:\s*(?P<text>.*?)\.\s*$", re.S)
_SUFFIXES = (".xlsx", ".tsv", ".json")
_DETAILED = "_detailed_results"
_MMMU_ID = re.compile(r"^(dev|validation|test)_[A-Za-z_]+_\d+$")


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is a VLMEvalKit file, or None."""
    if path.suffix not in _SUFFIXES or not path.is_file():
        return None
    if path.suffix == ".json" and not looks_like_rows(path):
        return None
    try:
        header = read_table(path, limit=0)[0]
    except (ConfigError, DataError):
        return None
    columns = set(header)
    if {"index", "prediction"} <= columns:
        return "a table with index and prediction columns"
    if "index" in columns and {"question", "answer"} <= columns:
        return "a table with VLMEvalKit's index, question and answer columns (and no prediction column)"
    return None


def read(path: Path) -> ForeignFile:
    """Read the prediction file and, next to it, the verdicts and recorded accuracy."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file; --format vlmevalkit reads <model>_<dataset>.xlsx, .tsv or .json")
    match = _NAME.match(path.name)
    dataset = match["dataset"] if match else None
    benchmark, split, setting, mode = DATASETS.get(dataset or "", (None, None, None, None))
    predictions, results = _pair(path, match)
    header, table = read_table(predictions)
    for column in ("prediction", "index"):
        if column not in header:
            raise missing_column_error(predictions, NAME, column, f"its columns are {', '.join(h for h in header[:14] if h)}")
    if dataset is None:
        _refuse_other_dataset(predictions, table)
    verdicts = _verdicts(results) if results else {}
    problems: list[str] = []
    rows = [row for number, cells in table if (row := _row(f"{predictions.name}:{number}", cells, verdicts, problems))]
    if not rows:
        raise no_rows_error(path, NAME, EXPECTED, problems)
    notes = []
    if results is None:
        notes.append(f"no {predictions.stem}_*_result file (nor {_DETAILED}) next to it: VLMEvalKit's own "
                     "verdicts are unknown")
        if predictions.suffix == ".json":
            notes.append("VLMEvalKit's own evaluation of PRED_FORMAT=json predictions fails (it sorts the JSON list as a "
                         "table), so it writes no verdicts for them")
    elif results.stem.endswith(_DETAILED):
        notes.append(f"VLMEvalKit's verdicts are its verifier model's ({results.name}: verifier_score)")
    if dataset == "MMMU_DEV_VAL":
        notes.append("MMMU_DEV_VAL holds the dev and validation splits; VLMEvalKit reports each apart")
    recorded = _recorded(predictions, split)
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems),
        benchmark=benchmark, split=split, setting=setting, prompt_mode=mode,
        index_scheme="content", task=dataset, model=match["model"] if match else None, recorded=recorded[0],
        sources=tuple(str(p) for p in (predictions, results, recorded[1]) if p), notes=tuple(notes),
    )


def _refuse_other_dataset(path: Path, table: list[tuple[int, dict[str, str]]]) -> None:
    """Refuse a prediction file whose name declares another dataset (``<model>_<dataset>.xlsx``).

    A name without MMMU in it is refused unless its rows carry MMMU ids (a renamed MMMU file).
    """
    if names_mmmu(path.name) or any(_MMMU_ID.match(cells.get("id", "")) for _, cells in table):
        return
    raise other_benchmark_error(
        path, path.stem, f"VLMEvalKit names prediction files <model>_<dataset> (MMMU's are {', '.join(DATASETS)}), "
        "its rows carry no MMMU id, and this one is",
    )


# -- rows ---------------------------------------------------------------------------------------

def _row(where: str, cells: dict[str, str], verdicts: dict[str, dict[str, str]], problems: list[str]) -> ForeignRow | None:
    index = cells.get("index", "")
    item_id = cells.get("id", "")
    key: str | int | None = item_id or (int(index) if index.lstrip("-").isdigit() else None)
    if key is None:
        problems.append(f"{where}: no id and no numeric index; nothing scored from it")
        return None
    options = tuple(cells[letter] for letter in _letters(cells) if cells.get(letter))
    question = cells.get("question", "")
    content = ((question,) if question and question != "placeholder" else ()) + options
    prediction = cells.get("prediction", "")
    error = prediction if prediction.startswith(_FAILED) else None
    verdict = _verdict(cells, verdicts.get(index)) if index in verdicts else None
    split = cells.get("split") or None
    return ForeignRow(where=where, key=key, response=None if error else prediction, error=error,
                      harness=verdict, split=split if split in ("dev", "validation", "test") else None,
                      content=content)


def _verdict(cells: dict[str, str], result: dict[str, str]) -> HarnessVerdict:
    hit = result.get("hit", "")
    correct = hit.strip() in ("1", "1.0", "True", "true")
    log = result.get("log", "")
    match = _LOG.match(log)
    said = match["text"].strip() if match else log.strip()
    open_question = not cells.get("A")
    gold = cells.get("answer") or None
    judge = fallback = False
    pred: str | None = None
    if "verifier_score" in result and "hit" not in result:
        verdict = result["verifier_score"].strip()
        return HarnessVerdict(correct=verdict in ("True", "true", "1") if verdict else None, gold=cells.get("answer") or None,
                              judge=True, as_choice=False, note=f"VLMEvalKit's verifier model ruled {verdict or 'nothing'}")
    if "thus randomly generate one" in log:
        fallback = True  # its judge failed too: a random letter decided
    elif "Failed in Prefetch" in log:
        pred = "Z"  # its "no answer" letter
    else:
        judge = said != result.get("prediction", "").strip()
        pred = said if re.fullmatch(r"[A-Z]", said) else None
    if pred is None and correct:
        pred = "A" if open_question else gold
    return HarnessVerdict(correct=correct if hit.strip() else None, pred=pred, gold=gold, judge=judge,
                          fallback=fallback, as_choice=open_question, note=log.strip()[:300])


def _letters(cells: dict[str, str]) -> list[str]:
    return sorted(k for k in cells if len(k) == 1 and "A" <= k <= "Z")


# -- files --------------------------------------------------------------------------------------

def _pair(path: Path, match: re.Match | None) -> tuple[Path, Path | None]:
    """(prediction file, verdict file): PATH may be either; the other is looked for beside it."""
    if match is None:
        return path, None
    stem = f"{match['model']}_{match['dataset']}"
    rest = match["rest"] or ""
    if rest.endswith("_result") or rest == _DETAILED:
        raw = [path.with_name(stem + ext) for ext in _SUFFIXES if path.with_name(stem + ext).is_file()]
        return (raw[0] if raw else path), path
    found = sorted((p for ext in _SUFFIXES for pattern in (f"{stem}_*result{ext}", f"{stem}{_DETAILED}{ext}")
                    for p in path.parent.glob(pattern)),
                   key=lambda p: (p.stem.endswith(_DETAILED), "_cotpost_" not in p.name, -p.stat().st_mtime, p.name))
    return path, found[0] if found else None


def _verdicts(results: Path) -> dict[str, dict[str, str]]:
    header, table = read_table(results)
    if "hit" not in header and "verifier_score" not in header:
        return {}
    return {cells["index"]: cells for _, cells in table if cells.get("index")}


def _recorded(predictions: Path, split: str | None) -> tuple[RecordedScore | None, Path | None]:
    """The ``Overall`` accuracy of the split in ``<stem>_acc.csv`` (the CoT one first)."""
    for name in (f"{predictions.stem}_cotpost_acc.csv", f"{predictions.stem}_acc.csv"):
        file = predictions.with_name(name)
        if not file.is_file():
            continue
        try:
            with file.open(encoding="utf-8", newline="") as fh:
                table = list(csv.DictReader(fh))
        except (OSError, UnicodeDecodeError, csv.Error):
            continue
        for row in table:
            if "Category" in row and row.get("Category") in (split or "Overall",):  # the verifier's layout, in percent
                try:
                    return RecordedScore(float(row["Accuracy"]) / 100, f"{file.name}: Accuracy, {row['Category']}",
                                         int(row["Total"]) if row.get("Total", "").isdigit() else None), file
                except (KeyError, TypeError, ValueError):
                    continue
            if split is None or row.get("split") in (split, None, "none"):
                try:
                    return RecordedScore(float(row["Overall"]), f"{file.name}: Overall, split {row.get('split')}"), file
                except (KeyError, TypeError, ValueError):
                    continue
    return None, None


def read_table(path: Path, *, limit: int | None = None) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """``(header, [(line, {column: text})])`` of an ``.xlsx`` (first sheet), ``.tsv`` or ``.json`` table.

    Column names are VLMEvalKit's: lower-cased except the one-letter option columns. Numbers in a
    spreadsheet cell are written back as text (``3.0`` as ``3``); empty cells are ``""``.
    """
    try:
        if path.suffix == ".json":
            raw = [[_cell(v) for v in row] for row in json_rows(path, limit)]
        else:
            raw = _xlsx(path, limit) if path.suffix == ".xlsx" else _tsv(path, limit)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not raw:
        raise DataError(f"{path}: an empty table; expected {EXPECTED}")
    header = [_column(h) for h in raw[0]]
    rows = []
    for number, values in enumerate(raw[1:], 2):
        if not any(v.strip() for v in values):
            continue
        rows.append((number, {h: (values[i] if i < len(values) else "") for i, h in enumerate(header) if h}))
    return header, rows


def _column(name: str) -> str:
    name = name.strip()
    return name if len(name) == 1 and name.isupper() else name.lower()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _xlsx(path: Path, limit: int | None) -> list[list[str]]:
    import zipfile

    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise DataError(f"{path}: not a readable .xlsx workbook ({type(exc).__name__}: {exc}); expected {EXPECTED}") from None
    try:
        out = []
        for row in book.worksheets[0].iter_rows(values_only=True):
            out.append([_cell(v) for v in row])
            if limit is not None and len(out) > limit:
                break
        return out
    finally:
        book.close()


def _tsv(path: Path, limit: int | None) -> list[list[str]]:
    csv.field_size_limit(1 << 30)  # chain-of-thought predictions are long
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            out = []
            for row in csv.reader(fh, delimiter="\t"):
                out.append(row)
                if limit is not None and len(out) > limit:
                    break
            return out
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"{path}: not a readable tab-separated table ({exc}); expected {EXPECTED}") from None
