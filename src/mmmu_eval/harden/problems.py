"""What a harden step left out, and why: one record per item (or row) and step.

A bad row never stops a step: it becomes a ``Problem`` naming the row, the step goes on with
the rest, and the summary counts what was left out. ``usable`` is the one check every source
passes its items through, so a directory, the sample, the hub and a JSONL file are held to the
same rules.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from mmmu_eval.core.errors import DataError
from mmmu_eval.prompt.layout import check_references
from mmmu_eval.core.records import Item, letters

__all__ = ["NOT_APPLICABLE", "REFUSED", "Problem", "count_by_kind", "usable"]

#: Kinds that are not bad input, only out of scope (MMMU's open questions): counted and listed
#: like the others, but they do not make a step's exit status 1.
NOT_APPLICABLE = frozenset({"open question"})
#: The kind of a review decision that could not be applied: the question is not left out, it
#: stays as it was (undecided); the decisions file is what needs fixing.
REFUSED = "refused decision"


@dataclass(frozen=True)
class Problem:
    """One item or row a step could not use."""

    where: str
    """The item id, or ``data.jsonl line 7`` when the row has none."""
    step: str
    """``input``, ``filter``, ``augment`` or ``render``."""
    problem: str
    """What is wrong, in words that say what to fix."""
    kind: str = "other"
    """A short class for the summary counts: ``no answer``, ``options``, ``answer letter``, ``image`` ..."""

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"

    @property
    def bad(self) -> bool:
        """True for bad input or a failure; False for an item merely out of scope (an open question)."""
        return self.kind not in NOT_APPLICABLE

    @property
    def left_out(self) -> bool:
        """False for a refused review decision, whose question stays in the set as it was."""
        return self.kind != REFUSED

    @property
    def label(self) -> str:
        """What happened, for the console: ``left out`` or ``refused decision``."""
        return "left out" if self.left_out else REFUSED

    def to_json(self) -> dict[str, str]:
        return {"where": self.where, "step": self.step, "kind": self.kind, "problem": self.problem}

    @classmethod
    def from_json(cls, data: dict) -> "Problem":
        return cls(str(data["where"]), str(data["step"]), str(data["problem"]), str(data.get("kind", "other")))

    @classmethod
    def from_error(cls, exc: DataError, step: str, kind: str = "other", where: str | None = None) -> "Problem":
        """A DataError as a problem; its message loses the leading ``id: `` it already names."""
        message = str(exc)
        name = where or exc.item_id or (message.split(": ", 1)[0] if ": " in message else "?")
        return cls(name, step, message.removeprefix(f"{name}: "), kind)


def usable(item: Item) -> Problem | None:
    """Why ``item`` cannot be hardened, or None when it can.

    The rules: multiple choice, at least two options, an answer that is one letter naming one of
    them, and every ``<image N>`` token naming an image the item has.
    """
    if item.question_type != "multiple-choice":
        return Problem(item.id, "input", "an open question (harden needs multiple choice)", "open question")
    if len(item.options) < 2:
        return Problem(item.id, "input", f"{len(item.options)} option(s); a multiple-choice question needs at least 2", "options")
    if item.answer is None:
        return Problem(item.id, "input", "the row has no answer (withheld, empty or missing)", "no answer")
    choices = letters(len(item.options))
    if not isinstance(item.answer, str) or item.answer.strip() not in choices:
        answer = item.answer if isinstance(item.answer, str) else list(item.answer)
        if isinstance(answer, str) and len(answer.strip()) == 1 and answer.strip().isalpha():
            return Problem(
                item.id, "input",
                f"the answer letter {answer.strip()!r} is beyond the {len(choices)} options (A-{choices[-1]})",
                "answer letter",
            )
        return Problem(item.id, "input", f"the answer {answer!r} is not one of the letters A-{choices[-1]}", "answer letter")
    try:
        check_references(item)
    except DataError as exc:
        return Problem.from_error(exc, "input", "image")
    return None


def count_by_kind(problems: Iterable[Problem]) -> dict[str, int]:
    """``{kind: count}``, most frequent first: the summary line of what was left out."""
    return dict(Counter(p.kind for p in problems).most_common())
