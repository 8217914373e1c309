"""Read a generic multiple-choice JSONL file: the official MMMU-Pro screenshot tool's ``data.jsonl``.

One JSON object a line (github.com/MMMU-Benchmark/MMMU, ``mmmu-pro/tool/README.md``)::

    {"id": "...", "question": "... <image 1> ...", "options": ["...", "..."], "answer": "B",
     "subject": "Biology", "image_1": "images/x.png"}

- ``question``, ``options`` (a JSON list) and ``answer`` (a letter) are required.
- ``image_N`` (N = 1..7) are paths relative to the file's folder (absolute paths also work);
  ``<image N>`` tokens in the question and options place them, as in MMMU.
- ``id`` is optional (the official tool's file has none): a row without one is called
  ``<file stem>_<Subject>_<line>``, so it still ends in a number, as MMMU ids do.
- ``subject`` is optional: without it the subject comes from an MMMU-style id
  (``validation_Art_12``) or from ``default_subject``. It must be one of MMMU's 30 subjects
  (long or short name, any case), because the MMMU-Pro layout ``mmmu-eval run`` reads groups
  items by them.
- ``img_type`` (a list), ``topic_difficulty`` and ``explanation`` are carried when present.

Every problem with a row (bad JSON, options that are not a list, a missing image file, an
unknown subject, a duplicate id) is a ``Problem`` naming the line; the other rows are read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mmmu_eval.dataset.parquet import check_image
from mmmu_eval.dataset.schema import NUMBERED_IMAGES
from mmmu_eval.dataset.subjects import discipline_of, resolve_subject, subject_from_id
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harden.problems import Problem
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.records import ImageRef, Item

__all__ = ["JsonlSet", "read_jsonl"]

_IMAGE_KEY = re.compile(r"^image_(\d+)$")


@dataclass(frozen=True)
class JsonlSet:
    """The rows of one JSONL file that became items, and the ones that did not."""

    items: tuple[Item, ...]
    problems: tuple[Problem, ...]


def read_jsonl(path: str | Path, *, default_subject: str | None = None) -> JsonlSet:
    """Read ``path``; see the module doc for the row format.

    Raises:
        ConfigError: the file cannot be opened, or ``default_subject`` is not a subject.
    """
    path = Path(path)
    default = resolve_subject(default_subject) if default_subject else None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--data {path}: cannot read the JSONL file ({exc})") from None
    items: list[Item] = []
    problems: list[Problem] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            item = _item(line, path, number, default)
        except _RowProblem as exc:
            problems.append(Problem(exc.where or where, "input", exc.message, exc.kind))
            continue
        if item.id in first_line:
            problems.append(Problem(f"{where} ({item.id})", "input", f"duplicate id (first on line {first_line[item.id]}); the first kept", "duplicate id"))
            continue
        first_line[item.id] = number
        items.append(item)
    return JsonlSet(tuple(items), tuple(problems))


class _RowProblem(Exception):
    def __init__(self, message: str, kind: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message, self.kind, self.where = message, kind, where


def _item(line: str, path: Path, number: int, default_subject: str | None) -> Item:
    where = f"{path.name} line {number}"
    try:
        row = loads(line)
    except json.JSONDecodeError as exc:
        raise _RowProblem(f"not valid JSON ({exc.msg} at character {exc.pos})", "json") from None
    except ValueError as exc:  # nested too deep, a number too long (jsonfile.MalformedJSON)
        raise _RowProblem(f"not valid JSON ({exc})", "json") from None
    if not isinstance(row, dict):
        raise _RowProblem(f"a JSON {type(row).__name__}, not an object", "json")
    raw_id = row.get("id")
    if raw_id is not None and (not isinstance(raw_id, str) or not raw_id.strip()):
        raise _RowProblem(f"id {raw_id!r} is not a non-empty string", "id")
    label = f"{where} ({raw_id})" if raw_id else where
    subject = _subject(row, raw_id, default_subject, label)
    item_id = raw_id or f"{_stem(path)}_{subject}_{number}"

    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise _RowProblem("no question text", "question", label)
    options = row.get("options")
    if not isinstance(options, list):
        kind = "missing" if options is None else f"a {type(options).__name__}"
        raise _RowProblem(f"options are {kind}, not a list", "options", label)
    if any(isinstance(o, (list, dict)) or o is None for o in options):
        raise _RowProblem("options hold a list, object or null, not text", "options", label)
    answer = row.get("answer")
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        raise _RowProblem("the row has no answer", "no answer", label)
    if not isinstance(answer, str):
        raise _RowProblem(f"the answer {answer!r} is not a letter", "answer letter", label)

    images = []
    for key, value in row.items():
        match = _IMAGE_KEY.match(key)
        if not match or value is None:
            continue
        if key not in NUMBERED_IMAGES:
            raise _RowProblem(f"{key}: the MMMU-Pro layout holds at most 7 images (image_1..image_7)", "image", label)
        if not isinstance(value, str) or not value:
            raise _RowProblem(f"{key} is {value!r}, not a path", "image", label)
        file = Path(value) if Path(value).is_absolute() else path.parent / value
        if not file.is_file():
            raise _RowProblem(f"{key}: no file at {value} (paths are relative to {path.parent})", "image", label)
        images.append(ImageRef(key, partial(_read_image, file, key, item_id)))
    img_type = row.get("img_type") or ()
    return Item(
        id=item_id,
        benchmark="mmmu-pro",
        split="test",
        setting="standard-4",
        subject=subject,
        discipline=discipline_of(subject),
        question=question,
        options=tuple(str(o) for o in options),
        answer=answer.strip(),
        question_type="multiple-choice",
        images=tuple(sorted(images, key=lambda r: r.number)),
        img_type=tuple(str(t) for t in img_type) if isinstance(img_type, list) else (str(img_type),),
        topic_difficulty=str(row["topic_difficulty"]) if row.get("topic_difficulty") else None,
        explanation=str(row.get("explanation") or ""),
    )


def _subject(row: dict, raw_id: str | None, default_subject: str | None, label: str) -> str:
    given = row.get("subject")
    if given is not None:
        try:
            return resolve_subject(str(given))
        except ConfigError as exc:
            raise _RowProblem(f"{exc}; the MMMU-Pro layout groups items by MMMU's 30 subjects", "subject", label) from None
    if raw_id:
        try:
            return resolve_subject(subject_from_id(raw_id))
        except ConfigError:
            pass
    if default_subject:
        return default_subject
    raise _RowProblem(
        "no subject: give the row a 'subject' (one of MMMU's 30), an MMMU-style id such as "
        "validation_Biology_3, or pass --subject for rows without one",
        "subject", label,
    )


def _read_image(file: Path, field: str, item_id: str) -> bytes:
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise DataError(f"{field}: cannot read {file} ({exc.strerror or exc})", item_id) from None
    check_image(data, field, item_id)
    return data


def _stem(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", path.stem).strip("-") or "row"
