"""What every reader of another harness's output hands on: its rows as the harness wrote them.

A reader only reads. It turns one file (or folder) into a ``ForeignFile``: one ``ForeignRow``
per evaluated item, each with the item's key as the harness wrote it, the response text, the
failure the harness recorded instead of a response, and the harness's own verdict where it
recorded one (or where its rule can be read off what it recorded). Which dataset item a key
means is not the reader's business: ``harnesses/join.py`` maps keys to our items, and
``scoring/explain.py`` sets the harness's verdicts beside ours.

A row that cannot be read at all is not a row: it is a problem (``"file:line: what"``) and
nothing is scored from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore


@dataclass(frozen=True, slots=True)
class ForeignRow:
    """One evaluated item as another harness wrote it."""

    where: str
    """``file:line`` (or ``file[index]``): what a problem with this row names."""
    key: str | int | None
    """The item's key as written: an official id, or a number under the file's ``index_scheme``."""
    response: str | None
    """The response text that was scored; None when the row holds a failure instead."""
    error: str | None = None
    """The failure the harness recorded (an API error, an exception); never scored by us."""
    harness: HarnessVerdict | None = None
    """The harness's verdict, or None when it recorded none."""
    benchmark: str | None = None
    """``mmmu`` / ``mmmu-pro`` when the row itself says (a file that mixes them is refused)."""
    setting: str | None = None
    """MMMU-Pro setting when the row says."""
    split: str | None = None
    """MMMU split when the row says (``dev``, ``validation``, ``test``)."""
    prompt: str = ""
    """The prompt text the harness sent, when it recorded it (shown in the report)."""
    content: tuple[str, ...] = ()
    """Question and option texts, for rows keyed by a number under the ``content`` scheme; under a
    ``position`` scheme, the option texts the item at that position must have (checked by the join)."""


@dataclass(frozen=True)
class ForeignFile:
    """A harness's output file, read: its rows and what it says about itself."""

    format: str
    """The reader's name (``lmms-eval``, ``vlmevalkit``, ...)."""
    path: str
    """What was read (the file, or the folder)."""
    rows: tuple[ForeignRow, ...]
    """One per evaluated item, in file order."""
    problems: tuple[str, ...] = ()
    """Lines or rows that could not be read, each named; nothing was scored from them."""
    benchmark: str | None = None
    """What the file evaluated, when its name or content says; rows may say too."""
    split: str | None = None
    """The MMMU split the file evaluated, when its name or content says."""
    setting: str | None = None
    """The MMMU-Pro setting the file evaluated, when its name or content says."""
    prompt_mode: str | None = None
    """``direct`` or ``cot`` when the harness's task name says."""
    index_scheme: str = "none"
    """How numeric keys map to items: ``position-0`` (0-based dataset position, lmms-eval doc_id),
    ``position-1`` (1-based position among the selected question type, Inspect's automatic ids),
    ``content`` (question and option texts, VLMEvalKit rows without an id)."""
    question_type: str | None = None
    """The only question type the harness's task contains (Inspect's MMMU tasks split by type)."""
    task: str | None = None
    """The harness's own name for what it ran (``mmmu_val``, ``MMMU_Pro_10c_COT``, ...)."""
    model: str | None = None
    """The model the harness names."""
    recorded: RecordedScore | None = None
    """The accuracy the harness wrote itself, when a results file was found."""
    sources: tuple[str, ...] = ()
    """Every file read (the prediction file, the verdict file next to it, the results file)."""
    notes: tuple[str, ...] = field(default=())
    """What the reader decided that a user should know (rows set aside, the layout recognised)."""
    expected_ids: tuple[str, ...] | None = None
    """The item ids the harness says it evaluated (Inspect's ``dataset.sample_ids``), when it says:
    what the file should cover. None: every item of its split (and question type, and subjects)."""
    subjects: tuple[str, ...] | None = None
    """The subjects the harness was asked for (Inspect's ``task_args.subjects``); None for all."""
    setting_evidence: str = ""
    """Why the reader could not tell the MMMU-Pro setting (what it found), said when ``--setting`` is needed."""


# -- small helpers every reader uses ----------------------------------------------------------

def read_json(path: Path, what: str) -> Any:
    """A whole JSON file, or one clear error naming the file and where it broke."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); expected {what}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return loads(text)
    except ValueError as exc:
        cut = " (the file looks cut short)" if getattr(exc, "pos", 0) >= len(text.rstrip()) else ""
        raise DataError(f"{path}: not valid JSON{cut}: {exc}; expected {what}") from None


def jsonl_rows(path: Path, problems: list[str]) -> Iterator[tuple[str, dict]]:
    """``(where, row)`` for each line of a JSONL file that is a JSON object; the rest are problems.

    A last line without its newline that does not parse is reported as cut short: the harness
    stopped while writing it.
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with fh:
        for number, raw in enumerate(fh, 1):
            where = f"{path.name}:{number}"
            if not raw.strip():
                continue
            try:
                value = loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                torn = "" if raw.endswith(b"\n") else " (the last line is cut short)"
                problems.append(f"{where}: not a JSON line{torn} ({exc}); nothing scored from it")
                continue
            if not isinstance(value, dict):
                problems.append(f"{where}: a JSON {type(value).__name__}, not an object; nothing scored from it")
                continue
            yield where, value


def first_json_line(path: Path) -> dict | None:
    """The first non-empty line of a JSONL file as an object, or None (for ``--format auto``)."""
    try:
        with path.open("rb") as fh:
            for raw in fh:
                if raw.strip():
                    value = loads(raw.decode("utf-8"))
                    return value if isinstance(value, dict) else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None


def message_text(content: object) -> str | None:
    """The text of a chat message's content: a string, or the text parts of a list joined.

    Reasoning parts are left out (the answer is what is scored); None when there is no text.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content
                 if isinstance(part, Mapping) and part.get("type") in ("text", None) and isinstance(part.get("text"), str)]
        return "".join(texts) if texts else None
    return None


def last_assistant_text(messages: object) -> str | None:
    """The text of the last assistant message in a list of chat messages; None when there is none."""
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return message_text(message.get("content"))
    return None


def prompt_text(messages: object) -> str:
    """The user turns of a chat prompt as one text, images shown as ``<image>``; "" when unknown."""
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, list):
        return ""
    out = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "system"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(
                part.get("text", "") if part.get("type") == "text" else "<image>"
                for part in content if isinstance(part, Mapping)
            ))
    return "\n\n".join(out)


class NoRows(DataError):
    """No row of a file is of the format asked for. The reader that finds it cannot know which
    format the file is instead (that takes every reader: the registry, which imports this
    module), so ``read_foreign`` names it (``with_guess``)."""

    def __init__(self, path: Path, fmt: str, expected: str, problems: list[str],
                 guess: tuple[str, str] | None = None) -> None:
        self.path, self.fmt, self.expected, self.problems = path, fmt, expected, problems
        shown = "; ".join(problems[:2])
        hint = f"; it looks like --format {guess[0]} ({guess[1]})" if guess and guess[0] != fmt else ""
        super().__init__(f"{path}: no row is {expected}{hint}" + (f" ({shown})" if shown else ""))

    def with_guess(self, guess: tuple[str, str] | None) -> NoRows:
        """The same error, naming the format the file looks like (``guess_format``'s answer)."""
        return NoRows(self.path, self.fmt, self.expected, self.problems, guess)


def no_rows_error(path: Path, fmt: str, expected: str, problems: list[str]) -> NoRows:
    """The one error for a file in which no row is of the format asked for."""
    return NoRows(path, fmt, expected, problems)


def the_one_file(path: Path, found: Sequence[Path], missing: str, several: str) -> Path:
    """``path`` when it is a file, else the only one of ``found`` in it; one clear error otherwise.

    ``missing`` says what was looked for (``"no lmms-eval samples file ... in it"``), ``several``
    what the files are (``"samples files"``).
    """
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    if not path.is_dir():
        return path
    if len(found) == 1:
        return found[0]
    if not found:
        raise DataError(f"{path}: {missing}")
    listed = ", ".join(str(p.relative_to(path)) for p in found[:6])
    raise DataError(f"{path}: {len(found)} {several} ({listed}); name the one to rescore")


def is_empty(path: Path) -> bool:
    """True for a file with no bytes, or only whitespace (a harness that wrote nothing)."""
    try:
        with path.open("rb") as fh:
            while block := fh.read(1 << 16):
                if block.strip():
                    return False
    except OSError:
        return False
    return True


def empty_file_error(path: Path) -> DataError:
    """The one error for an empty file: it is empty, whatever its extension suggests."""
    size = path.stat().st_size if path.exists() else 0
    what = "0 bytes" if size == 0 else f"{size} bytes of whitespace"
    return DataError(f"{path}: the file is empty ({what}); the harness wrote no rows into it")


#: What every refusal of another benchmark's file ends with.
_ONLY = "rescore scores MMMU and MMMU-Pro outputs only, whatever --benchmark says"


def other_benchmark_error(path: Path | str, declared: str, how: str) -> ConfigError:
    """The error for a file that declares another task: ``declared`` (its name), ``how`` it says so."""
    return ConfigError(f"{path}: {how} {declared!r}, which is not MMMU or MMMU-Pro; {_ONLY}")


def missing_column_error(path: Path | str, fmt: str, column: str, seen: object) -> DataError:
    """The error for a file a reader recognised that lacks a column it needs."""
    article = "an" if fmt[:1] in "aeiou" else "a"
    return DataError(f"{path}: {article} {fmt} file without its {column!r} column ({seen}); nothing can be scored from it")


def names_mmmu(text: object) -> bool:
    """Whether a task or dataset name is one of MMMU's (``mmmu_val``, ``MMMU/MMMU``, ``MMMU_Pro_10c``)."""
    return isinstance(text, str) and "mmmu" in text.lower()
