"""Readers of other harnesses' output files, one module per format, and ``--format auto``.

Each foreign-format module has the same small surface:

- ``NAME``: the ``--format`` name;
- ``sniff(path, first_line) -> str | None``: why ``path`` is in this format (for ``auto``);
- ``read(path) -> ForeignFile``: its rows as the harness wrote them (``readers/base.py``);
- optionally ``refine(verdict, item, response)``: what the harness's verdict needs the joined
  item for (lmms-eval's unlogged random fallback).

========== ==================================================================================
format     reads
========== ==================================================================================
lmms-eval  ``--log_samples`` logs of the MMMU and MMMU-Pro tasks (``readers/lmms_eval.py``)
vlmevalkit prediction files ``<model>_<dataset>.xlsx|tsv|json``, their result and detailed-results files
inspect    Inspect ``.eval`` / ``.json`` logs of inspect_evals' MMMU tasks
verifiers  ``vf-eval`` outputs: ``traces.jsonl`` (0.4) or ``results.jsonl`` + ``metadata.json``
evalscope  EvalScope run folders (``reviews/<model>/mmmu_<Subject>.jsonl``) or one review file
lighteval  lighteval details (``details_mmmu_pro:<setting>|0_<time>.parquet``) of its MMMU-Pro tasks
jsonl      ``{"id", "response"}`` rows
========== ==================================================================================

The official repository's formats (``official-mmmu``, ``official-mmmu-eval-only``,
``official-mmmu-pro``) carry their items in the rows and are read by ``readers/official.py``.

>>> import json
>>> _ = Path("samples_mmmu_val.jsonl").write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"]}) + "\\n")
>>> guess_format(Path("samples_mmmu_val.jsonl"))
('lmms-eval', 'a JSONL row with doc_id and filtered_resps')
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.harnesses.readers import (
    evalscope,
    inspect_log,
    lighteval,
    lmms_eval,
    plain_jsonl,
    verifiers_output,
    vlmevalkit,
)
from mmmu_eval.harnesses.readers.foreign import ForeignFile, NoRows, empty_file_error, first_json_line, is_empty
from mmmu_eval.harnesses.readers.official import FORMATS as OFFICIAL_FORMATS

#: The foreign formats, in the order ``auto`` tries them (the plainest last).
READERS: dict[str, ModuleType] = {
    m.NAME: m for m in (lmms_eval, vlmevalkit, inspect_log, verifiers_output, evalscope, lighteval, plain_jsonl)
}
#: The official MMMU-Pro output's own columns (besides ``id``), by which ``auto`` knows it.
_PRO_COLUMNS = frozenset(("options", "answer", "response", "question", "shuffled_options", "shuffled_options_answer"))
#: Every ``--format`` value.
FORMATS: tuple[str, ...] = ("auto", *OFFICIAL_FORMATS, *READERS)


def guess_format(path: Path) -> tuple[str, str] | None:
    """``(format, reason)`` for the first format that recognises ``path``, or None."""
    path = Path(path)
    if path.is_dir():
        if any(path.glob("*/output.json")):
            return "official-mmmu", "a folder of <Subject>/output.json"
        first = None
    elif path.suffix == ".jsonl":
        first = first_json_line(path)
    else:
        first = None
    if first is not None and {"id", "options", "answer", "response"} <= set(first):
        return "official-mmmu-pro", "a JSONL row with id, options, answer and response (the official MMMU-Pro output)"
    if first is not None and "id" in first and len(_PRO_COLUMNS & set(first)) >= 3:
        # Most of the official output's columns: its reader names the one that is missing.
        return "official-mmmu-pro", f"a JSONL row with id and {', '.join(sorted(_PRO_COLUMNS & set(first)))} (the official MMMU-Pro output's columns)"
    for name, module in READERS.items():
        reason = module.sniff(path, first)
        if reason:
            return name, reason
    if path.suffix == ".json" and path.is_file():
        return _guess_json(path)
    return None


def detect(path: Path) -> tuple[str, str]:
    """The format of ``path`` and why; one clear error when no reader recognises it.

    Raises:
        ConfigError: nothing recognises ``path`` (the error lists the formats).
        DataError: ``path`` is an empty file, or not UTF-8 text and recognised by nothing.
    """
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    if path.is_file() and is_empty(path):
        raise empty_file_error(path)
    guessed = guess_format(path)
    if guessed is None:
        binary = binary_kind(path)
        if binary:
            raise DataError(f"{path}: {binary}; --format auto recognises no format in it")
        undecodable = _not_text(path)
        if undecodable:
            raise DataError(f"{path}: not UTF-8 text ({undecodable}); --format auto recognises no format in it")
        what = "folder" if path.is_dir() else f"{path.suffix or 'extensionless'} file"
        raise ConfigError(
            f"{path}: --format auto does not recognise this {what}; name its format with --format "
            f"(one of {', '.join(f for f in FORMATS if f != 'auto')})"
        )
    return guessed


def read_foreign(path: Path, format: str) -> ForeignFile:
    """Read ``path`` with the reader of ``format`` (not an official one).

    Raises:
        ConfigError: an unknown format; a file that declares another benchmark's task.
        DataError: an empty file, a file without a column its format needs, no readable row.
    """
    module = READERS.get(format)
    if module is None:
        raise ConfigError(f"--format {format!r} is not one of {', '.join(FORMATS)}")
    path = Path(path)
    if path.is_file() and is_empty(path):
        raise empty_file_error(path)
    kind = _magic(path)
    if kind and format not in _BINARY_READERS[kind]:
        guess = guess_format(path)
        hint = f"; it looks like --format {guess[0]} ({guess[1]})" if guess else ""
        raise DataError(f"{path}: {binary_kind(path)}, which --format {format} does not read{hint}")
    try:
        return module.read(path)
    except NoRows as exc:  # which format the file looks like: only the registry knows every reader
        raise exc.with_guess(guess_format(exc.path)) from None


def reader(format: str) -> ModuleType | None:
    """The module of a foreign format (None for the official ones)."""
    return READERS.get(format)


#: Binary file types (by their first bytes) -> the formats whose files they can be.
_BINARY_READERS = {"parquet": {"lighteval"}, "xlsx": {"vlmevalkit"}, "zip": {"inspect"}, "gzip": set()}


def _magic(path: Path) -> str | None:
    """``parquet``, ``xlsx``, ``zip`` or ``gzip`` by a file's first bytes; None for anything else."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return None
    if head == b"PAR1":
        return "parquet"
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head == b"PK\x03\x04":
        import zipfile

        try:
            with zipfile.ZipFile(path) as archive:
                return "xlsx" if "xl/workbook.xml" in archive.namelist() else "zip"
        except (zipfile.BadZipFile, OSError):
            return None  # a damaged archive: its reader says what is wrong with it
    return None


def binary_kind(path: Path) -> str | None:
    """What a binary file is, in words, with the columns it holds where cheap; None for text."""
    kind = _magic(path)
    if kind == "parquet":
        columns = lighteval.parquet_columns(path)
        return ("an Apache Parquet file" + (f" with columns {', '.join(columns[:8])}" if columns else "")
                + " (lighteval's details have doc, model_response and metric)")
    if kind == "xlsx":
        try:
            header = [h for h in vlmevalkit.read_table(path, limit=0)[0] if h]
        except (ConfigError, DataError):
            header = []
        return ("an Excel workbook (.xlsx)" + (f" whose first sheet has columns {', '.join(header[:8])}" if header else "")
                + " (VLMEvalKit's prediction files have index and prediction)")
    if kind == "zip":
        return "a zip archive (Inspect's .eval logs are zip archives)"
    if kind == "gzip":
        return "a gzip-compressed file (decompress it first)"
    return None


def _not_text(path: Path) -> str | None:
    """Why the start of a file is not UTF-8 text (the reason and the byte), or None."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(1 << 16)
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) == 1 << 16 and exc.start >= len(head) - 4:  # a character cut by the window
            return None
        return f"{exc.reason} at byte {exc.start}"
    except OSError:
        return None
    return None


def _guess_json(path: Path) -> tuple[str, str] | None:
    try:
        value = loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return "official-mmmu-eval-only", "a JSON object {id: prediction}"
    return None
