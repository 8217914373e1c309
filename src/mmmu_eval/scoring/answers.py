"""Gold answers from a released answer file: how the MMMU test split is scored locally.

Since 2026-02 the test answers are public in the official answer-dict format
(``{id: {"question_type", "ground_truth"}}``). ``load_answer_dict`` reads that file and
``apply_answers`` puts the answers into the items, so the ordinary scorer scores the test split
(``ScoringSpec.answers`` names the file a run is scored with; ``results/submission.py`` writes
the EvalAI file the other way round, predictions without answers).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.records import Item, QuestionType

__all__ = ["Answer", "apply_answers", "load_answer_dict"]

log = logging.getLogger(__name__)

#: An answer-dict entry: the question type ("multiple-choice" or "open") and the accepted answer(s).
Answer = tuple[QuestionType, "str | tuple[str, ...]"]


def load_answer_dict(path: str | Path) -> dict[str, Answer]:
    """Read an official answer file (``answer_dict_val.json`` / ``answer_dict_test.json``).

    Returns:
        id -> (question_type, ground_truth); ``short-answer`` (the file's word for open) and any
        other non-``multiple-choice`` type become ``open`` (the official evaluate does the same);
        a list of accepted answers becomes a tuple.

    Raises:
        ConfigError: the file is missing, not JSON, or an entry is malformed (named by id).
    """
    path = Path(path)
    try:
        raw = loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--answers {path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--answers {path}: not a JSON answer dict ({exc})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"--answers {path}: expected a JSON object {{id: {{question_type, ground_truth}}}}")
    answers: dict[str, Answer] = {}
    for item_id, entry in raw.items():
        if not isinstance(entry, dict) or "ground_truth" not in entry:
            raise ConfigError(f"--answers {path}: {item_id}: expected {{\"question_type\", \"ground_truth\"}}, got {entry!r}")
        truth = entry["ground_truth"]
        if isinstance(truth, list):
            if not truth or not all(isinstance(t, (str, int, float)) for t in truth):
                raise ConfigError(f"--answers {path}: {item_id}: ground_truth list must hold strings, got {truth!r}")
            truth = tuple(str(t) for t in truth)
        elif isinstance(truth, (int, float)) and not isinstance(truth, bool):
            truth = str(truth)
        elif not isinstance(truth, str):
            raise ConfigError(f"--answers {path}: {item_id}: ground_truth must be a string or a list, got {truth!r}")
        qtype: QuestionType = "multiple-choice" if entry.get("question_type") == "multiple-choice" else "open"
        answers[item_id] = (qtype, truth)
    return answers


def apply_answers(items: Sequence[Item], answers: Mapping[str, Answer]) -> tuple[Item, ...]:
    """The items with their gold answers (and question types) taken from an answer dict.

    Items absent from the answer dict keep what they had (None on the test split) and are
    logged; ids of the dict that are not among the items are ignored (a subset run).
    A multiple-choice answer that is not one of the item's letters is kept and logged: the
    item cannot be answered right, as with the official eval-only script.
    """
    out: list[Item] = []
    absent: list[str] = []
    replaced: list[str] = []
    for item in items:
        entry = answers.get(item.id)
        if entry is None:
            absent.append(item.id)
            out.append(item)
            continue
        qtype, truth = entry
        if item.answer is not None and _as_tuple(item.answer) != _as_tuple(truth):
            replaced.append(f"{item.id}: dataset {item.answer!r}, answer file {truth!r}")
        if qtype != item.question_type:
            log.warning("%s: the answer file says %s, the dataset %s; using the answer file's", item.id, qtype, item.question_type)
        fixed = dataclasses.replace(item, answer=truth, question_type=qtype)
        if qtype == "multiple-choice" and (not isinstance(truth, str) or truth not in fixed.choices):
            # Kept, as the official eval-only script would: the item simply cannot be answered right.
            log.warning(
                "%s: the answer file gives %r, not one of the letters %s; check that it matches this "
                "dataset revision", item.id, truth, ", ".join(fixed.choices) or "(none)",
            )
        out.append(fixed)
    if absent:
        log.warning("%d items have no entry in the answer file (e.g. %s); they keep no gold answer", len(absent), absent[0])
    if replaced:
        # Silent replacement hid mismatches such as the hub's 2024-2026 answer fixes, which the
        # official answer_dict_val.json predates, or an answer file of another dataset.
        log.warning(
            "%d items already had a different gold answer; the answer file's is used (e.g. %s)",
            len(replaced), "; ".join(replaced[:3]),
        )
    return tuple(out)


def _as_tuple(answer: object) -> tuple[str, ...]:
    """An answer as a tuple of strings, so a one-element list equals its string."""
    if isinstance(answer, (list, tuple)):
        return tuple(str(a) for a in answer)
    return (str(answer),)
