"""Problems an item shows on its face, whatever the runs answered.

- ``position_dependent_option``: in a shuffled setting (ten options, vision), an option whose
  meaning depends on where the others stand: "None of the above", "Either of the above", or
  options made of other options' letters ("Both A and B", "a, c"), unless the question itself
  labels things with those letters (then the letters name the question's parts, not positions).
- ``letter_option``: an option that is itself one of the option letters ("B", "(c)"): a reply
  naming it reads as the choice of the position of that letter.
- ``duplicate_options``: two options with the same text (the same words, case and spacing aside).
- ``gold_not_among_options``: a gold that names no option.
- ``image_token_without_image``: ``<image N>`` in the question or options, with fewer than N images.
- ``image_without_token``: an image that no ``<image N>`` names (the official prompts send only
  named images; the setting decides whether the model sees it).

Each kind is reported once per item and setting, from the first run holding the item that way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mmmu_eval.auditing.sources import RunAnswers
from mmmu_eval.auditing.text import norm
from mmmu_eval.core.records import Item, letters

#: Settings whose options were shuffled after the question was written.
SHUFFLED = frozenset({"standard-10", "vision"})

_RELATIVE = re.compile(
    r"\b(all|none|non|both|either|neither|each|any|one)\s+(?:o[ft]\s+)?(?:the\s+)?"
    r"(above|below|preceding|previous|foregoing)\b",
    re.IGNORECASE,
)
_LETTER = r"\(?([a-jA-J])\)?"
_LETTER_LIST = re.compile(
    rf"^\s*(?:(?:both|only|either|neither|options?|choices?)\s+)?{_LETTER}"
    rf"((?:\s*(?:,|and|or|nor|&|\+)\s*(?:and\s+)?{_LETTER})+)"
    r"\s*(?:(?:are|is)\s+(?:correct|true|right))?\s*\.?\s*$",
    re.IGNORECASE,
)
_ONE_LETTER = re.compile(r"^\s*\(?([A-Za-z])\)?[.:]?\s*$")
_IMAGE_TOKEN = re.compile(r"<image\s+(\d+)>")


@dataclass(frozen=True)
class Problem:
    """One problem an item shows on its face."""

    id: str
    """The item's id."""
    kind: str
    """One of the kinds in the module's list (``duplicate_options``, ``letter_option`` ...)."""
    detail: str
    """What was found, in words (the option, the token)."""
    setting: str
    """The setting of the run the item was read from."""

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "detail": self.detail, "setting": self.setting}


def find_problems(runs: Sequence[RunAnswers]) -> list[Problem]:
    """Every structural problem, once per item, setting and kind; in item order."""
    seen: set[tuple[str, str, str]] = set()
    out: list[Problem] = []
    for run in runs:
        for item in run.items.values():
            for kind, detail in item_problems(item, run.setting, run.images.get(item.id)):
                key = (item.id, run.setting, kind)
                if key not in seen:
                    seen.add(key)
                    out.append(Problem(item.id, kind, detail, run.setting))
    return out


def item_problems(item: Item, setting: str, images: int | None = None) -> list[tuple[str, str]]:
    """(kind, detail) for each problem of one item as one setting shows it."""
    if item.question_type != "multiple-choice":
        return []
    found: list[tuple[str, str]] = []
    labels = letters(len(item.options))
    texts = [o if isinstance(o, str) else "" for o in item.options]
    if setting in SHUFFLED:
        for label, text in zip(labels, texts):
            why = _position_dependent(text, item.question)
            if why:
                found.append(("position_dependent_option", f"{label}. {text!r} {why}"))
    for label, text in zip(labels, texts):
        one = _ONE_LETTER.match(text)
        if one and one.group(1).upper() in labels:
            found.append(("letter_option", f"{label}. {text!r} is itself a letter"))
    firsts: dict[str, str] = {}
    for label, text in zip(labels, texts):
        key = norm(text)
        if key in firsts:
            found.append(("duplicate_options", f"{firsts[key]} and {label} both read {text!r}"))
        else:
            firsts[key] = label
    if not isinstance(item.answer, str) or item.answer not in labels:
        found.append(("gold_not_among_options", f"gold {item.answer!r} names none of the {len(labels)} options"))
    found.extend(_image_problems(item, images))
    return _once_per_kind(found)


def _once_per_kind(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    merged: dict[str, list[str]] = {}
    for kind, detail in found:
        merged.setdefault(kind, []).append(detail)
    return [(kind, "; ".join(details)) for kind, details in merged.items()]


def _position_dependent(text: str, question: str) -> str | None:
    if _RELATIVE.search(text):
        return "refers to the options around it, which the shuffle moved"
    match = _LETTER_LIST.match(text)
    if match:
        listed = [c.upper() for c in re.findall(r"\b([a-jA-J])\b", text)]
        named = set(listed)
        if len(named) < len(listed) or (len(listed) >= 3 and not re.search(r"\b(and|or|nor|correct|true)\b", text, re.I)):
            return None  # "a, a" or "B, A, D, C": an order of labelled things, not a reference to options
        if named and not all(_labels_in(question, c) for c in named - {"A"} or named):
            return f"names options by letter ({', '.join(sorted(named))}), which the shuffle moved"
    return None


def _labels_in(question: str, letter: str) -> bool:
    """Whether the question labels something with ``letter``: "(a)", "a)", "a.", "a:", or the
    capital standing alone ("Project B", "points C and D"; an "A" alone is taken for the article)."""
    if re.search(rf"\({letter}\)|\b{letter}[).:,]", question, re.IGNORECASE):
        return True
    return letter != "A" and bool(re.search(rf"\b{letter}\b", question))


def _image_problems(item: Item, images: int | None) -> list[tuple[str, str]]:
    count = images if images is not None else len(item.images)
    if images is None and not item.images:
        return []  # the run kept no image records: nothing to compare the tokens with
    texts = [item.question, *(o for o in item.options if isinstance(o, str))]
    named = {int(n) for t in texts for n in _IMAGE_TOKEN.findall(t)}
    out = []
    missing = sorted(n for n in named if n > count or n < 1)
    if missing:
        out.append(("image_token_without_image",
                    f"{', '.join(f'<image {n}>' for n in missing)} named, {count} image(s) held"))
    unnamed = [n for n in range(1, count + 1) if n not in named]
    if unnamed and item.setting != "vision":
        out.append(("image_without_token", f"image(s) {', '.join(map(str, unnamed))} of {count} named by no <image N>"))
    return out
