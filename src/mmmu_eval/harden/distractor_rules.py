"""Check a model's proposed distractors: the rules an option must pass to join a question.

Pure functions: a reply text, the item and the number needed in; a ``Proposal`` out. A reply is
*usable* when it holds a list with at least ``count`` options that pass every rule; the first
``count`` of them are taken. Anything less is an error for that attempt (never padded):

- the reply has no list (JSON, or a Python literal; code fences are ignored);
- an option is not text (numbers are written as text), empty, or names an ``<image N>``;
- it duplicates an existing option or another proposal after normalising case, spacing and
  punctuation (``normalise``);
- it is a number (with or without units) equal in value to the correct answer (``0.5 m`` for
  ``1/2 m``, ``50%`` for ``0.5``), or to another option (``numbers_equal``).

>>> from mmmu_eval.core.records import Item
>>> item = Item("x_1", "mmmu", "validation", None, "Math", "Science", "What is 2/4?", ("1/2", "3", "4"), "A",
...             "multiple-choice", ())
>>> check_reply('["7", "12", "0.50"]', item, 3)
Proposal(accepted=('7', '12'), rejected=(('0.50', 'the correct answer (A) written another way'),), error="2 usable option(s) of 3 needed (rejected '0.50': the correct answer (A) written another way)")
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from mmmu_eval.prompt.layout import TOKEN
from mmmu_eval.core.records import Item, letters

__all__ = ["Proposal", "check_options", "check_reply", "normalise", "numbers_equal", "parse_list"]

_FENCE = re.compile(r"```[a-zA-Z]*")
_NUMBER = re.compile(
    r"(?<![\w.])([-+\u2212]?)"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?|\.\d+)"
    r"(?:[eE]([-+]?\d+))?\s*(%?)"
)


@dataclass(frozen=True)
class Proposal:
    """The outcome of checking one reply."""

    accepted: tuple[str, ...]
    """The options taken, at most the number needed, in the model's order."""
    rejected: tuple[tuple[str, str], ...]
    """(option, why) for each proposed option that failed a rule."""
    error: str | None
    """Why the reply is unusable; None when ``accepted`` holds exactly the number needed."""


def normalise(text: str) -> str:
    """Case, spacing and punctuation folded: ``"Well-known  ."`` -> ``"well known"``.

    Punctuation inside or before a number stays (``-5``, ``3.5``, ``1/2``), so ``-5`` and ``5``
    are not taken for the same option; any other punctuation counts as a space.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    out = []
    for i, ch in enumerate(text):
        if unicodedata.category(ch).startswith("P"):
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if nxt.isdigit():
                out.append(ch)
                continue
            out.append(" ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())


def _numbers(text: str) -> tuple[tuple[float, ...], str]:
    """The numeric values in ``text`` (fractions and percentages as values) and the rest, normalised."""
    values: list[float] = []

    def take(match: re.Match) -> str:
        sign, body, exponent, percent = match.groups()
        body = body.replace(",", "").replace(" ", "")
        if "/" in body:
            top, bottom = body.split("/")
            value = float(top) / float(bottom) if float(bottom) else math.inf
        else:
            value = float(body)
        if exponent:
            value *= 10 ** int(exponent)
        if sign in ("-", "\u2212"):
            value = -value
        values.append(value / 100 if percent else value)
        return " "

    rest = _NUMBER.sub(take, unicodedata.normalize("NFKC", text))
    return tuple(values), normalise(rest)


def numbers_equal(a: str, b: str) -> bool:
    """True when both hold numbers, the same values in the same order, and the same other words."""
    va, ra = _numbers(a)
    vb, rb = _numbers(b)
    if not va or len(va) != len(vb) or ra != rb:
        return False
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(va, vb))


def parse_list(text: str) -> list | None:
    """The first list in a reply (JSON, or a Python literal), code fences ignored; None when there is none."""
    body = _FENCE.sub("", text)
    start, end = body.find("["), body.rfind("]")
    if start < 0 or end <= start:
        return None
    chunk = body[start:end + 1]
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(chunk)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list):
            return value
    return None


def check_options(proposed: Sequence[object], item: Item, count: int) -> Proposal:
    """Apply the rules to a list of proposed options (a reply's, or a reviewer's edit)."""
    existing = list(zip(letters(len(item.options)), item.options))
    correct = str(item.answer)
    accepted: list[str] = []
    rejected: list[tuple[str, str]] = []
    for raw in proposed:
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            rejected.append((repr(raw)[:80], f"a {type(raw).__name__}, not text"))
            continue
        option = str(raw).strip()
        why = _why_not(option, existing, correct, accepted)
        if why:
            rejected.append((option, why))
        elif len(accepted) < count:
            accepted.append(option)
    error = None
    if len(accepted) < count:
        reasons = "; ".join(f"{o!r}: {w}" for o, w in rejected[:4])
        error = f"{len(accepted)} usable option(s) of {count} needed" + (f" (rejected {reasons})" if reasons else f" ({len(proposed)} proposed)")
    return Proposal(tuple(accepted), tuple(rejected), error)


def check_reply(text: str, item: Item, count: int) -> Proposal:
    """Check a model's reply to the distractor prompt."""
    proposed = parse_list(text)
    if proposed is None:
        shown = " ".join(text.split())[:80]
        return Proposal((), (), f"the reply holds no list of options ({shown!r})")
    return check_options(proposed, item, count)


def _why_not(option: str, existing: list[tuple[str, str]], correct: str, accepted: list[str]) -> str | None:
    if not option:
        return "empty"
    if TOKEN.search(option):
        return "names an <image N>; new options must be text"
    key = normalise(option)
    for letter, text in existing:
        if normalise(text) == key:
            return f"duplicates option {letter} after normalising case, space and punctuation"
        if numbers_equal(option, text):
            if letter == correct:
                return f"the correct answer ({letter}) written another way"
            return f"the same value as option {letter}"
    for earlier in accepted:
        if normalise(earlier) == key or numbers_equal(option, earlier):
            return f"duplicates the proposal {earlier!r}"
    return None
