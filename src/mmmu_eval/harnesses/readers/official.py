"""Readers of the official repository's own output formats (official-protocol.md 5.9 and 6.4).

These files carry everything the official scorer needs, so the items are built from their rows
(with no images) instead of being joined to our dataset:

- ``official-mmmu``: a folder of ``<Subject>/output.json``, each a list of
  ``{id, question_type, answer, [all_choices, index2ans], response}``: the official
  parse-and-eval input. Subjects are read in alphabetical order, so the seeded fallback draws
  follow the official sequence.
- ``official-mmmu-eval-only``: ``{id: prediction}`` plus ``--answers`` in the official answer-dict
  format; multiple-choice predictions are compared as they are, open ones parsed
  (``main_eval_only.py``).
- ``official-mmmu-pro``: JSONL rows with at least ``id``, ``options``, ``answer``, ``response``
  (extra fields ignored; the 2024-09 outputs also carry ``type`` and ``shuffled_options``, read
  as that era's scorer read them, see ``pro_columns``; a ``response`` that is an object counts as ``""``, as in the official
  ``evaluate.py``). Rows that ``evaluate.py`` already scored (``pred_indexs``, ``if_right``) also
  give that scorer's verdicts, to set beside ours.

A malformed row is reported in ``problems`` and scored as the official code scores it, or wrong
where the official code would crash; it never stops the rescore. Where a row's value is not text
(a nested option, a null response) the item carries it as it is, so that the parser meets exactly
what the official one met.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

from mmmu_eval.dataset.subjects import DISCIPLINES, SUBJECTS
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.records import Item, Response, letters
from mmmu_eval.scoring.harness_verdicts import HARNESS_ERROR, HarnessVerdict
from mmmu_eval.harnesses.readers.foreign import missing_column_error
from mmmu_eval.harnesses.readers.official_shape import NO_KEY, UNRECORDED_SPLIT, keyed_id, refuse_more_than_one_run

FORMATS: tuple[str, ...] = ("official-mmmu", "official-mmmu-eval-only", "official-mmmu-pro")
#: Rows per file the official MMMU-Pro scorer insists on (it skips other files).
PRO_ROWS = 1730
#: The ``type`` column of the 2024-09 outputs (commit e3be682) -> our setting.
PRO_TYPES: dict[str, str] = {"Standard(4opts)": "standard-4", "Standard(10opts)": "standard-10", "Vision": "vision"}

_DISCIPLINE_OF = {s: d for d, subs in DISCIPLINES.items() for s in subs}
_PRO_ID = re.compile(r"^(?P<split>[^_]+)_(?P<subject>.+?)_\d+$")

#: ``(items, responses, problems, harness verdicts by id)``: what an official reader returns.
Official = tuple[list[Item], dict[str, Response], list[str], dict[str, HarnessVerdict]]


def read_official(path: Path, format: str, answers: Path | None, *, setting: str | None = None) -> Official:
    """Read ``path`` in one of the official formats.

    ``setting`` chooses the rows of one MMMU-Pro setting in a file whose ``type`` column holds
    several (the 2024-09 ``evaluate.py`` read such files); other files ignore it.

    Raises:
        ConfigError: an unknown format, missing ``--answers``, a path that cannot be read at all,
            a file of several MMMU-Pro settings without ``setting``.
        DataError: a file that is not UTF-8 text, a column the format needs that no row has.
    """
    if format == "official-mmmu":
        return (*_read_mmmu_folder(path), {})
    if format == "official-mmmu-eval-only":
        if answers is None:
            raise ConfigError("--format official-mmmu-eval-only needs --answers FILE (the official answer_dict_*.json)")
        return (*_read_eval_only(path, answers), {})
    if format == "official-mmmu-pro":
        return _read_pro_file(path, setting)
    raise ConfigError(f"--format {format!r} is not one of {', '.join(FORMATS)}")


# --- official-mmmu -------------------------------------------------------------------------------


def _read_mmmu_folder(folder: Path) -> tuple[list[Item], dict[str, Response], list[str]]:
    if not folder.is_dir():
        raise ConfigError(f"{folder}: not a folder; --format official-mmmu reads <Subject>/output.json files")
    found = {p.parent.name: p for p in folder.glob("*/output.json")}
    if not found:
        raise ConfigError(f"{folder}: no <Subject>/output.json files in it")
    # Alphabetical, like CAT_SHORT2LONG: this order fixes the sequence of random draws.
    order = [s for s in SUBJECTS if s in found] + sorted(s for s in found if s not in SUBJECTS)
    items: list[Item] = []
    responses: dict[str, Response] = {}
    problems: list[str] = []
    for subject in order:
        file = found[subject]
        rows = _load_json(file, problems)
        if not isinstance(rows, list):
            if rows is not None:
                problems.append(f"{file}: expected a list of rows, got {type(rows).__name__}; skipped")
            continue
        for index, row in enumerate(rows):
            where = f"{file}[{index}]"
            item_id = keyed_id(row, subject) if isinstance(row, dict) else None
            if item_id is None:
                keys = f"its keys: {', '.join(sorted(map(str, row))[:8])}" if isinstance(row, dict) else type(row).__name__
                problems.append(f"{where}: not a row with an id (nor a {NO_KEY}; {keys}); skipped")
                continue
            if item_id in responses:
                problems.append(f"{where} ({item_id}): a repeated id; only its first row is scored")
                continue
            mc = row.get("question_type") == "multiple-choice"
            options: tuple = ()
            if mc:
                options = _mmmu_options(row, where, problems, item_id)
            items.append(_item(item_id, "mmmu", subject, options, _gold(row, where, problems), mc,
                               (), None, split=None if "id" in row else UNRECORDED_SPLIT))
            responses[item_id] = _response(item_id, row, where, problems, dict_as_empty=False)
    return items, responses, problems


def _mmmu_options(row: dict, where: str, problems: list[str], item_id: str) -> tuple:
    """Options in letter order from the row's own ``all_choices``/``index2ans`` (as the official parse uses)."""
    index2ans = row.get("index2ans")
    choices = row.get("all_choices")
    if not isinstance(index2ans, dict) or not isinstance(choices, list):
        problems.append(f"{where} ({item_id}): a multiple-choice row without all_choices/index2ans; scored wrong")
        return ()
    if list(choices) != list(letters(len(choices))) or set(index2ans) != set(choices):
        problems.append(f"{where} ({item_id}): all_choices {choices} are not A, B, ... matching index2ans")
    return tuple(index2ans.get(c) for c in choices)


# --- official-mmmu-eval-only ---------------------------------------------------------------------


def _read_eval_only(file: Path, answers_file: Path) -> tuple[list[Item], dict[str, Response], list[str]]:
    problems: list[str] = []
    preds = _load_json(file, problems, required=True)
    truth = _load_json(answers_file, problems, required=True)
    if not isinstance(preds, dict):
        raise ConfigError(f"{file}: expected a JSON object {{id: prediction}}")
    if not isinstance(truth, dict):
        raise ConfigError(f"--answers {answers_file}: expected a JSON object {{id: {{question_type, ground_truth}}}}")
    items: list[Item] = []
    responses: dict[str, Response] = {}
    for item_id, pred in preds.items():
        # main_eval_only groups by the category in the id: drop the first and last tokens.
        subject = "_".join(item_id.split("_")[1:-1])
        entry = truth.get(item_id)
        if not isinstance(entry, dict) or "ground_truth" not in entry:
            problems.append(f"{item_id}: not in the answer file (the official script raises KeyError); scored wrong")
            gold: object = ()
            mc = False
        else:
            mc = entry.get("question_type") == "multiple-choice"
            gold = _gold({"answer": entry["ground_truth"], "id": item_id}, f"--answers {item_id}", problems)
        items.append(_item(item_id, "mmmu", subject, (), gold, mc, (), None))
        responses[item_id] = Response(item_id=item_id, status="ok", text=pred)  # type: ignore[arg-type]
    # Official categories are evaluated in alphabetical order; keep that order for the items.
    rank = {s: i for i, s in enumerate(SUBJECTS)}
    items.sort(key=lambda it: rank.get(it.subject, len(rank)))
    return items, responses, problems


# --- official-mmmu-pro ---------------------------------------------------------------------------


def pro_columns(row: dict) -> tuple[str, str, str | None]:
    """``(options column, answer column, setting)`` the official scorer of the row's era read it by.

    The 2024-09 outputs (commit e3be682) carry a ``type`` column and both option sets: that
    era's ``evaluate.py`` scored ``Standard(4opts)`` rows against ``options`` / ``answer`` and
    every other row against ``shuffled_options`` / ``shuffled_options_answer``. Today's outputs
    have no ``type`` and hold their setting's options in ``options``; their setting is None here
    (``harnesses/identify.py`` decides it from the flags, the option counts and the name).

    Raises:
        ConfigError: a ``type`` this era never wrote (the reader cannot know which options it means).
    """
    kind = row.get("type")
    if kind is None:
        return "options", "answer", None
    setting = PRO_TYPES.get(kind) if isinstance(kind, str) else None
    if setting is None:
        raise ConfigError(
            f"row {row.get('id')!r}: type {kind!r} is not one the official MMMU-Pro outputs wrote "
            f"({', '.join(PRO_TYPES)}); which options it was scored against is unknown"
        )
    if setting == "standard-4":
        return "options", "answer", setting
    return "shuffled_options", "shuffled_options_answer", setting


def _read_pro_file(file: Path, setting: str | None) -> Official:
    if not file.is_file():
        raise ConfigError(f"{file}: no such file; --format official-mmmu-pro reads one JSONL file")
    problems: list[str] = []
    items: list[Item] = []
    responses: dict[str, Response] = {}
    verdicts: dict[str, HarnessVerdict] = {}
    rows = _pro_rows(file, problems)
    rows = _one_type(file, rows, setting)
    _require_columns(file, rows)
    if rows:
        refuse_more_than_one_run(file, rows, pro_columns(rows[0][1])[0], PRO_ROWS)
    for where, row in rows:
        item_id = row["id"]
        if item_id in responses:
            problems.append(f"{where} ({item_id}): a repeated id; the later row replaces the earlier")
            items = [it for it in items if it.id != item_id]
            verdicts.pop(item_id, None)
        options_key, answer_key, typed = pro_columns(row)
        match = _PRO_ID.match(item_id)
        subject = row.get("subject") if isinstance(row.get("subject"), str) else (match["subject"] if match else "")
        options = _pro_options(row, options_key, where, problems)
        gold = row.get(answer_key)
        if not isinstance(gold, str):
            problems.append(f"{where} ({item_id}): {answer_key} {gold!r} is not a letter; it can never equal a prediction")
            gold = ()
        # the question text as the file holds it (its <image N> tokens tell how many images the item
        # was asked with); not for the vision setting, whose model saw the question only in a screenshot
        question = row.get("question") if isinstance(row.get("question"), str) and typed != "vision" else ""
        items.append(_item(item_id, "mmmu-pro", subject, options, gold, True,
                           _img_types(row.get("img_type")), row.get("topic_difficulty"), typed, question))
        responses[item_id] = _response(item_id, row, where, problems, dict_as_empty=True)
        if "if_right" in row:
            # evaluate.py rewrites its input with its own verdict; its fallbacks were unseeded.
            pred = row.get("pred_indexs")
            verdicts[item_id] = HarnessVerdict(
                correct=bool(row["if_right"]), pred=pred if isinstance(pred, str) else None,
                gold=row.get(answer_key), fallback=None,
            )
    if len(items) != PRO_ROWS:
        problems.append(f"{file.name}: {len(items)} rows, not {PRO_ROWS}; the official evaluate.py would skip this file")
    return items, responses, problems, verdicts


def _pro_rows(file: Path, problems: list[str]) -> list[tuple[str, dict]]:
    """``(where, row)`` for every line that is an object with an id; the others are problems.

    A file that is not UTF-8 text at all (a binary, another encoding) is one error, not a
    problem per line.
    """
    rows: list[tuple[str, dict]] = []
    undecodable: UnicodeDecodeError | None = None
    lines = 0
    try:
        fh = file.open("rb")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read ({exc.strerror or exc})") from None
    with fh:
        for number, raw in enumerate(fh, 1):
            where = f"{file.name}:{number}"
            if not raw.strip():
                continue
            lines += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                undecodable = undecodable or exc
                problems.append(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start} of the line); skipped")
                continue
            try:
                row = loads(line)
            except ValueError as exc:
                torn = "" if raw.endswith(b"\n") else " (the last line is cut short)"
                problems.append(f"{where}: not JSON{torn} ({exc}); skipped")
                continue
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                problems.append(f"{where}: not a row with an id; skipped")
                continue
            rows.append((where, row))
    if undecodable is not None and not rows:
        raise DataError(f"{file}: not UTF-8 text ({undecodable.reason} at byte {undecodable.start} of its first such "
                        "line); --format official-mmmu-pro reads JSONL rows")
    return rows


def _one_type(file: Path, rows: list[tuple[str, dict]], setting: str | None) -> list[tuple[str, dict]]:
    """The rows of one setting: the 2024-09 ``evaluate.py`` also read files of all three ``type`` s."""
    kinds = Counter(row["type"] for _, row in rows if isinstance(row.get("type"), str))
    if len(kinds) <= 1:
        return rows
    said = ", ".join(f"{n} {PRO_TYPES.get(k, k)}" for k, n in kinds.most_common())
    if setting is None:
        raise ConfigError(f"{file}: its rows' type column mixes MMMU-Pro settings ({said}); "
                          "a rescore scores one: pass --setting to choose it")
    kept = [(where, row) for where, row in rows if PRO_TYPES.get(row.get("type")) == setting]
    if not kept:
        raise ConfigError(f"{file}: --setting {setting} was asked, but its rows' type column says {said}")
    return kept


def _require_columns(file: Path, rows: list[tuple[str, dict]]) -> None:
    """One error naming a column the format needs that no row has (a row lacking it is a problem)."""
    if not rows:
        return
    options_key, answer_key, _ = pro_columns(rows[0][1])
    for column in (options_key, answer_key, "response"):
        if not any(column in row for _, row in rows):
            seen = f"its rows have {', '.join(sorted(rows[0][1]))}"
            raise missing_column_error(file, "official-mmmu-pro", column, seen)


def _pro_options(row: dict, key: str, where: str, problems: list[str]) -> tuple:
    """``ast.literal_eval(str(row[key]))``, as the official scorer decodes them."""
    try:
        options = ast.literal_eval(str(row.get(key)))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        problems.append(f"{where} ({row['id']}): {key} {row.get(key)!r} do not decode (the official scorer would crash); scored wrong")
        return ()
    if not isinstance(options, (list, tuple)):
        problems.append(f"{where} ({row['id']}): {key} decode to {type(options).__name__}, not a list; scored wrong")
        return ()
    if any(not isinstance(o, str) for o in options):
        problems.append(f"{where} ({row['id']}): malformed {key} {options!r} (not a flat list of texts); scored as the official parser would")
    return tuple(options)


def _img_types(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    if isinstance(value, str) and value.strip():
        try:
            decoded = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return (value,)
        if isinstance(decoded, (list, tuple)):
            return tuple(str(v) for v in decoded)
        return (str(decoded),)
    return ()


# --- shared ---------------------------------------------------------------------------------------


def _item(item_id: str, benchmark: str, subject: str, options: tuple, gold: object, mc: bool,
          img_type: tuple[str, ...], difficulty: object, setting: str | None = None, question: str = "",
          *, split: str | None = None) -> Item:
    return Item(
        id=item_id,
        benchmark=benchmark,  # type: ignore[arg-type]
        # MMMU-Pro's one hub split; an MMMU id names its own
        split=split or ("test" if benchmark == "mmmu-pro" else item_id.split("_", 1)[0]),
        setting=setting,  # type: ignore[arg-type]
        subject=subject,
        discipline=_DISCIPLINE_OF.get(subject, "Unknown"),
        question=question,
        options=options,
        answer=gold,  # type: ignore[arg-type]
        question_type="multiple-choice" if mc else "open",
        images=(),
        img_type=img_type,
        topic_difficulty=difficulty if isinstance(difficulty, str) else None,
    )


def _gold(row: dict, where: str, problems: list[str]) -> object:
    gold = row.get("answer")
    if isinstance(gold, str):
        return gold
    if isinstance(gold, list) and all(isinstance(g, str) for g in gold):
        return tuple(gold)
    if isinstance(gold, (int, float)) and not isinstance(gold, bool):
        return str(gold)
    problems.append(f"{where} ({row.get('id')}): answer {gold!r} is not a string or a list of strings; scored wrong")
    return ()


def _response(item_id: str, row: dict, where: str, problems: list[str], *, dict_as_empty: bool) -> Response:
    if "response" not in row:
        problems.append(f"{where} ({item_id}): no response field (the official code would crash); scored wrong")
        value: object = None
    else:
        value = row["response"]
    if isinstance(value, str):
        return Response(item_id=item_id, status="ok", text=value)
    message = _harness_message(value)
    if isinstance(value, dict) and dict_as_empty:
        # evaluate.py scores an API error record as an empty answer: the official figure counts
        # it (a random letter); the record still names it as the harness's failure.
        return Response(item_id=item_id, status="ok", text="", error=message, notes=(HARNESS_ERROR,))
    if "response" in row:
        problems.append(f"{where} ({item_id}): response is {type(value).__name__}, not text")
    return Response(item_id=item_id, status="ok", text=value, error=message, notes=(HARNESS_ERROR,))  # type: ignore[arg-type]


def _harness_message(value: object) -> str:
    """What the harness wrote instead of a response, shortened: its error message when it has one."""
    if value is None:
        return "no response (null)"
    if isinstance(value, dict):
        inner = value.get("error", value)
        if isinstance(inner, dict):
            inner = inner.get("message") or inner
        text = inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False, default=str)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:199] + "…"


def _load_json(file: Path, problems: list[str], *, required: bool = False) -> object:
    try:
        return loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        if required:
            raise ConfigError(f"{file}: cannot read JSON ({exc})") from None
        problems.append(f"{file}: cannot read JSON ({exc}); skipped")
        return None
