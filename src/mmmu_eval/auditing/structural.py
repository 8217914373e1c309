"""Problems an item shows on its face, whatever the runs answered.

- ``position_dependent_option``: in a shuffled setting (ten options, vision), an option pointing at
  others ("None of the above", "Both A and B", "All of these") whose meaning the augmentation
  changed: the shuffle moved what it points at, or added options now fall under it, judged against
  the four-option form (``positions.py``; named as not known where no four-option form is read).
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mmmu_eval.auditing.positions import position_details
from mmmu_eval.auditing.sources import RunAnswers
from mmmu_eval.auditing.text import norm
from mmmu_eval.core.records import Item, letters

#: Settings whose options were shuffled after the question was written.
SHUFFLED = frozenset({"standard-10", "vision"})

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


def find_problems(runs: Sequence[RunAnswers], forms: Mapping[str, tuple[str, ...]] | None = None) -> list[Problem]:
    """Every structural problem, once per item, setting and kind; in item order. ``forms``: item id ->
    its four-option form's options (``forms.original_forms``), against which position is judged."""
    seen: set[tuple[str, str, str]] = set()
    out: list[Problem] = []
    for run in runs:
        for item in run.items.values():
            original = (forms or {}).get(item.id)
            for kind, detail in item_problems(item, run.setting, run.images.get(item.id), original):
                key = (item.id, run.setting, kind)
                if key not in seen:
                    seen.add(key)
                    out.append(Problem(item.id, kind, detail, run.setting))
    return out


def item_problems(item: Item, setting: str, images: int | None = None,
                  original: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(kind, detail) for each problem of one item as one setting shows it (``original``: its
    four-option form's options, in order; None when unknown)."""
    if item.question_type != "multiple-choice":
        return []
    found: list[tuple[str, str]] = []
    labels = letters(len(item.options))
    texts = [o if isinstance(o, str) else "" for o in item.options]
    if setting in SHUFFLED:
        found.extend(("position_dependent_option", d) for d in position_details(texts, item.question, original))
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
