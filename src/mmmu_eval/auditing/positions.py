"""Options whose meaning depends on the others' places, judged against the form they were written for.

An option may point at other options: by place ("None of the above", "Either of the above"), by
letter ("Both A and B", "a, c") or at the whole list ("All of these", "Both", "Neither"). The
ten-option augmentation shuffled the options and added new ones, so such an option can change
meaning. Whether it did is read from the four-option form (the original options in their order,
``forms.py``), never assumed:

- by place: the options above (or below) it are no longer the ones that were, either because the
  shuffle moved them ("moved") or because added options now stand among them ("grew");
- by letter: the letters it names now stand for other texts ("moved");
- the whole list: the list grew by added options ("grew"); a shuffle alone leaves "All of
  these" meaning what it meant;
- an option the augmentation itself added that points at others (no original to keep).

Where no four-option form is among the inputs, an option that points at others by place or by
letter is still named, and says that whether it changed is not known (a whole-list option is
not: the shuffle alone leaves its meaning). A letter list whose letters the question itself
labels ("Project B", "(a)"), or whose letters the options use as content (an option "C", or
"(d) and (f)" among four), names labelled things, not options, and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mmmu_eval.auditing.text import norm
from mmmu_eval.core.records import letters

_RELATIVE = re.compile(
    r"\b(all|none|non|both|either|neither|each|any|one)\s+(?:o[ft]\s+)?(?:the\s+)?"
    r"(above|below|preceding|previous|foregoing)\b",
    re.IGNORECASE,
)
_WHOLE = re.compile(
    r"^\s*(?:all|none|both|neither|either)(?:\s+of)?"
    r"(?:\s+(?:these|those|them|the\s+(?:options|choices|answers)|the\s+others))?\s*[.!]?\s*$",
    re.IGNORECASE,
)
_LETTER = r"\(?([a-jA-J])\)?"
_LETTER_LIST = re.compile(
    rf"^\s*(?:(?:both|only|either|neither|options?|choices?)\s+)?{_LETTER}"
    rf"((?:\s*(?:,|and|or|nor|&|\+)\s*(?:and\s+)?{_LETTER})+)"
    r"\s*(?:(?:are|is)\s+(?:correct|true|right))?\s*\.?\s*$",
    re.IGNORECASE,
)


def position_details(options: Sequence[str], question: str, original: Sequence[str] | None) -> list[str]:
    """One detail per option of a shuffled setting whose meaning the augmentation changed (or may
    have, with no ``original``): ``"C. 'Either of the above' ..."``."""
    labels = letters(len(options))
    out = []
    for j, text in enumerate(options):
        why = _changed(j, options, question, original)
        if why:
            out.append(f"{labels[j]}. {text!r} {why}")
    return out


def _changed(j: int, options: Sequence[str], question: str, original: Sequence[str] | None) -> str | None:
    text = options[j]
    relative = _RELATIVE.search(text)
    named = None if relative else _named_letters(text, question)
    if named is not None and _letters_name_things(original if original is not None else options, named):
        named = None
    whole = not relative and named is None and bool(_WHOLE.match(text))
    if not (relative or named or whole):
        return None
    if original is None:
        if whole:
            return None  # a shuffle alone keeps "All of these" meaning what it meant; growth is not known
        return "points at other options; whether the augmentation moved them is not known (no four-option form among the inputs)"
    before = [norm(o) for o in original]
    if norm(text) not in before:
        return "points at other options, and was itself added by the augmentation (no original place to keep)"
    i = before.index(norm(text))
    now = [norm(o) for o in options]
    if relative:
        above = relative.group(2).lower() != "below"
        was = set(before[:i] if above else before[i + 1:])
        is_ = set(now[:j] if above else now[j + 1:])
        where = "above" if above else "below"
        if was == is_:
            return None
        if was <= is_:
            grown = [o for o in (options[:j] if above else options[j + 1:]) if norm(o) not in set(before)]
            return f"now also spans {_few(grown)} the augmentation added {where} it"
        return f"the shuffle moved the options {where} it: {_few(_texts(original, was))} before, {_few(_texts(options, is_))} now"
    if whole:
        added = [o for o in options if norm(o) not in set(before)]
        return f"spans the whole list, which grew by {len(added)} added option(s) ({_few(added)})" if added else None
    assert named is not None
    moved = [c for c in named if _at(original, c) != _at(options, c)]
    if not moved:
        return None
    return ("names options by letter: " + "; ".join(f"{c} was {_at(original, c)!r}, now {_at(options, c)!r}" for c in moved))


def _named_letters(text: str, question: str) -> list[str] | None:
    """The option letters a letter list names, or None (not a list of option letters)."""
    if not _LETTER_LIST.match(text):
        return None
    listed = [c.upper() for c in re.findall(r"\b([a-jA-J])\b", text)]
    named = sorted(set(listed))
    if len(named) < len(listed) or (len(listed) >= 3 and not re.search(r"\b(and|or|nor|correct|true)\b", text, re.I)):
        return None  # "a, a" or "B, A, D, C": an order of labelled things, not a reference to options
    if not named or all(_labels_in(question, c) for c in (set(named) - {"A"} or named)):
        return None
    return named


def _letters_name_things(options: Sequence[str], named: Sequence[str]) -> bool:
    """Whether letters in these options name labelled things (drawings, areas of a map, projects)
    rather than options: a letter past the last option, an option that is a letter by itself
    ("C"), or an option listing a letter past the last option ("(d) and (f)" of four)."""
    count = len(options)
    if any(ord(c) - ord("A") >= count for c in named):
        return True
    for option in options:
        if re.fullmatch(r"\s*\(?[a-jA-J]\)?\s*\.?\s*", option):
            return True
        if _LETTER_LIST.match(option) and any(ord(c.upper()) - ord("A") >= count
                                               for c in re.findall(r"\b([a-jA-J])\b", option)):
            return True
    return False


def _labels_in(question: str, letter: str) -> bool:
    """Whether the question labels something with ``letter``: "(a)", "a)", "a.", "a:", or the
    capital standing alone ("Project B", "points C and D"; an "A" alone is taken for the article)."""
    if re.search(rf"\({letter}\)|\b{letter}[).:,]", question, re.IGNORECASE):
        return True
    return letter != "A" and bool(re.search(rf"\b{letter}\b", question))


def _at(options: Sequence[str], letter: str) -> str | None:
    index = ord(letter) - ord("A")
    return options[index] if 0 <= index < len(options) else None


def _texts(options: Sequence[str], keys: set[str]) -> list[str]:
    return [o for o in options if norm(o) in keys]


def _few(texts: Sequence[str], show: int = 3) -> str:
    if not texts:
        return "none"
    shown = ", ".join(repr(t if len(t) <= 40 else t[:39] + "…") for t in texts[:show])
    return shown + (f" and {len(texts) - show} more" if len(texts) > show else "")
