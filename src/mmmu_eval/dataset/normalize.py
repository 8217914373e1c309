"""Turn one raw hub row into an Item, repairing every known dataset quirk here and only here.

The quirks (official-protocol.md, sections 3 and 6.1):

- ``options`` is the string repr of a Python list; it is decoded with ``ast.literal_eval``,
  never ``eval``. A string that does not decode makes the row unusable (DataError naming it).
- ``validation_Accounting_29`` in MMMU-Pro standard-10 has nested options
  ``"[['A', 'B', 'Not enough information']]"``; the single inner list is taken as the options
  and the repair is recorded in ``Item.notes``.
- Some open answers are a list written inside a string (``"['24/7', '3.429']"``); they become a
  tuple of accepted answers.
- ``question_type`` ``short-answer`` and ``open`` both mean open; the official scorer treats
  anything but the exact ``multiple-choice`` as open, and so do we (with a note).
- Test answers are withheld as ``"?"``, ``""`` or null; they become None.
- ``img_type`` is a string-repr list too.
- MMMU-Pro rows have no ``question_type`` (all multiple choice) and no ``subfield``; their
  subject comes from the ``subject`` column, or from the id when that is empty.
- MMMU-Pro vision rows have one ``image`` and no question text; options come from the row when
  the column exists, else the item keeps no options and says so in its notes.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache, partial
from typing import Callable, Mapping

from mmmu_eval.dataset.parquet import RawRow
from mmmu_eval.dataset.subjects import discipline_of, resolve_subject, subject_from_id
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.records import ImageRef, Item

#: Most options a row may have: letters run A..Z.
MAX_OPTIONS = 26

_WITHHELD = {"", "?"}
_LETTER = re.compile(r"^[A-Z]$")


def to_item(row: RawRow, *, benchmark: str, split: str, setting: str | None, folder: str) -> Item:
    """Normalise one row; raise DataError (with the row's id) when it cannot be an Item.

    ``folder`` is the hub folder the file came from: the subject config for MMMU, the
    setting's config for MMMU-Pro.
    """
    v = row.values
    item_id = v.get("id")
    if not isinstance(item_id, str) or not item_id.strip():
        raise DataError(f"{row.label}: the row has no id")
    notes: list[str] = []
    vision = setting == "vision"

    # ``answer`` is required even on the test split (which holds "?" there): a file without the
    # column would otherwise load as if every answer were withheld and score nothing, silently.
    for column in ("image", "answer") if vision else ("question", "options", "answer"):
        if column not in row.columns:
            raise DataError(f"the file {row.file} has no {column!r} column", item_id)

    if vision and "options" not in row.columns:
        options: tuple[str, ...] = ()
        notes.append("the vision config has no options column; the options are only in the image")
    else:
        options = parse_options(v.get("options"), item_id, notes)

    question_type = _question_type(v, row, options, benchmark, notes)
    if question_type == "multiple-choice" and not options and not vision:
        raise DataError("a multiple-choice question with no options", item_id)
    if len(options) > MAX_OPTIONS:
        raise DataError(f"{len(options)} options; at most {MAX_OPTIONS} can be lettered", item_id)

    answer = parse_answer(v.get("answer"), question_type, item_id, notes)
    if isinstance(answer, str) and question_type == "multiple-choice" and options:
        last = chr(ord("A") + len(options) - 1)
        if not (_LETTER.match(answer) and answer <= last):
            notes.append(f"the answer {answer!r} is not one of the choice letters A-{last}")

    subject = _subject(v, benchmark, folder, item_id)
    question = "" if vision else _text(v.get("question"))
    return Item(
        id=item_id,
        benchmark=benchmark,  # type: ignore[arg-type]
        split=split,
        setting=setting,  # type: ignore[arg-type]
        subject=subject,
        discipline=discipline_of(subject),
        question=question,
        options=options,
        answer=answer,
        question_type=question_type,
        images=_images(row.images, vision, item_id),
        img_type=parse_img_type(v.get("img_type"), notes),
        topic_difficulty=_text(v.get("topic_difficulty")) or None,
        subfield=_text(v.get("subfield")) or None,
        explanation=_text(v.get("explanation")),
        notes=tuple(notes),
    )


def parse_options(raw: object, item_id: str, notes: list[str]) -> tuple[str, ...]:
    """Decode the options cell into option texts.

    >>> parse_options("['$6', '$7']", "x", [])
    ('$6', '$7')
    """
    if raw is None:
        return ()
    if isinstance(raw, str):
        if not raw.strip():
            return ()
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            raise DataError(f"options {_clip(raw)} do not parse as a list ({type(exc).__name__})", item_id) from None
    else:
        value = raw
    if not isinstance(value, (list, tuple)):
        raise DataError(f"options {_clip(raw)} are a {type(value).__name__}, not a list", item_id)
    if len(value) == 1 and isinstance(value[0], (list, tuple)):
        notes.append(f"options were nested in an extra list ({_clip(raw)}); the inner list was used")
        value = value[0]
    out = []
    for option in value:
        if isinstance(option, (list, tuple, dict, set)):
            raise DataError(f"options {_clip(raw)} hold a {type(option).__name__}, not text", item_id)
        out.append(option if isinstance(option, str) else str(option))
    return tuple(out)


def parse_answer(
    raw: object, question_type: str, item_id: str, notes: list[str]
) -> str | tuple[str, ...] | None:
    """The gold answer: a letter, an open answer, a tuple of accepted answers, or None (withheld)."""
    if raw is None:
        return None
    if isinstance(raw, (list, tuple)):
        return tuple(str(a) for a in raw)
    text = str(raw)
    if text.strip() in _WITHHELD:
        return None
    if question_type == "open" and text.lstrip().startswith("["):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            notes.append(f"the answer {_clip(text)} looks like a list but does not parse; kept as text")
            return text
        if isinstance(value, (list, tuple)) and value and all(isinstance(a, (str, int, float)) for a in value):
            return tuple(a if isinstance(a, str) else str(a) for a in value)
        notes.append(f"the answer {_clip(text)} is not a list of texts; kept as text")
    return text


def parse_img_type(raw: object, notes: list[str]) -> tuple[str, ...]:
    """``"['Diagrams', 'Tables']"`` -> ``('Diagrams', 'Tables')``; empty when absent."""
    if raw is None:
        return ()
    if isinstance(raw, (list, tuple)):
        return tuple(str(t) for t in raw)
    text = str(raw).strip()
    if not text:
        return ()
    types, parsed = _img_types(text)
    if not parsed:
        notes.append(f"img_type {_clip(text)} is not a list; kept as one type")
    return types


@lru_cache(maxsize=512)
def _img_types(text: str) -> tuple[tuple[str, ...], bool]:
    """The types a cell names, and whether it parsed. A split has a few dozen distinct cells, so
    each is decoded once (``literal_eval`` compiles its text: about 20 us a call)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return (text,), False
    if isinstance(value, (list, tuple)):
        return tuple(str(t) for t in value), True
    return (str(value),), True


def _question_type(
    v: Mapping[str, object], row: RawRow, options: tuple[str, ...], benchmark: str, notes: list[str]
) -> str:
    raw = v.get("question_type")
    if "question_type" not in row.columns and benchmark == "mmmu-pro":
        return "multiple-choice"  # MMMU-Pro has no such column: every question is multiple choice
    if raw is None or not str(raw).strip():
        guess = "multiple-choice" if options else "open"
        notes.append(f"question_type is absent; read as {guess} from the options")
        return guess
    text = str(raw).strip()
    if text == "multiple-choice":
        return "multiple-choice"
    if text not in ("open", "short-answer"):
        notes.append(f"question_type {text!r} is not known; read as open, as the official scorer does")
    return "open"


def _subject(v: Mapping[str, object], benchmark: str, folder: str, item_id: str) -> str:
    candidates = [folder] if benchmark == "mmmu" else [_text(v.get("subject")), subject_from_id(item_id)]
    for name in candidates:
        if not name:
            continue
        try:
            return resolve_subject(name)
        except ConfigError:
            continue
    raise DataError(f"no known subject (tried {', '.join(repr(c) for c in candidates if c)})", item_id)


def _images(
    loaders: Mapping[str, Callable[[], bytes]], vision: bool, item_id: str
) -> tuple[ImageRef, ...]:
    if vision:
        loader = loaders.get("image") or partial(_missing_vision_image, item_id)
        return (ImageRef("image", loader),)
    refs = [ImageRef(c, f) for c, f in loaders.items() if c != "image"]
    return tuple(sorted(refs, key=lambda r: r.number))


def _missing_vision_image(item_id: str) -> bytes:
    # A vision item without its screenshot cannot be asked at all: keeping the item with a
    # loader that fails makes it that item's stored error, neither a crash nor a silent drop.
    raise DataError("image is missing (the vision screenshot cell is null)", item_id)


def _text(raw: object) -> str:
    return "" if raw is None else str(raw)


def _clip(raw: object, n: int = 80) -> str:
    text = repr(raw)
    return text if len(text) <= n else text[: n - 3] + "..."
