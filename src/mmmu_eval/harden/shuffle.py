"""Place the original options and the new distractors: a seeded shuffle that respects positions.

A plain shuffle turns some options into nonsense: "Both A and B" no longer names the options it
meant once A and B move, and "All of the above" means something else with six new options
above it (the official MMMU-Pro data had to fix such an item). So, before shuffling:

- an option that names other options by letter ("Both A and B", "A, C and D", "Neither A nor
  B", "Option C") stays at its letter, and so do the options it names;
- "None of the above" / "All of the above" (and "... of these") go to the last places, in their
  original order: with wrong distractors above it, "None of the above" keeps its truth, and a
  wrong "All of the above" stays wrong;
- a *correct* "All of the above" cannot take distractors above it at all: the item is left as it
  was, flagged for review.

Everything else (the other original options and the distractors) is shuffled into the free
places by a generator seeded with ``"{seed}:shuffle:{id}"``, and the answer letter follows the
correct option. With ``policy="flag"`` an item with any such option is not augmented, only
flagged. The arrangement records where each option came from.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Sequence

from mmmu_eval.core.records import letters

__all__ = ["Arrangement", "arrange", "position_dependent", "shuffle_rng"]

POLICIES = ("keep", "flag")
_ABOVE = re.compile(r"^\W*(?P<kind>none|neither|all|both)\s+(?:of\s+)?(?:the\s+)?(?:above|these|those|preceding|previous)(?:\s+options|\s+answers|\s+choices)?\W*$", re.I)
_ALL_ABOVE_SHORT = re.compile(r"^\W*all\s+(?:the\s+)?above\W*$", re.I)
_LETTER = r"\(?([A-J])\)?"
_COMBO = re.compile(
    rf"^\W*(?:both|neither|only|options?|choices?|answers?)?\s*{_LETTER}(?:\s*(?:,|and|&|or|nor|\+)\s*{_LETTER})+"
    rf"(?:\s*(?:only|both|are\s+(?:correct|true|right)))?\W*$",
    re.I,
)
_NAMED = re.compile(r"\b(?:options?|choices?|answers?)\s+\(?([A-J])\)?(?![A-Za-z])", re.I)


@dataclass(frozen=True)
class Dependent:
    """One position-dependent option."""

    index: int
    """Its 0-based position among the original options."""
    kind: str
    """``none-above``, ``all-above`` or ``letters``."""
    names: tuple[int, ...] = ()
    """The positions it names (``letters`` only)."""


@dataclass(frozen=True)
class Arrangement:
    """The options of the augmented question, in order."""

    options: tuple[str, ...]
    answer: str
    """The letter of the correct option."""
    sources: tuple[str, ...]
    """Per position: the original letter (``"C"``) or ``"new 2"`` (the second distractor)."""
    held: tuple[str, ...] = ()
    """What was kept in place and why (``"D 'Both A and B' and A, B kept at their letters"``)."""
    flag: str | None = None
    """Why a reviewer should look; set when the item was not augmented for a position reason."""

    @property
    def augmented(self) -> bool:
        return any(s.startswith("new") for s in self.sources)


def shuffle_rng(seed: int, item_id: str) -> random.Random:
    return random.Random(f"{seed}:shuffle:{item_id}")


def position_dependent(options: Sequence[str]) -> list[Dependent]:
    """The options whose meaning depends on positions, with what they depend on."""
    n = len(options)
    found = []
    for i, text in enumerate(options):
        above = _ABOVE.match(text) or _ALL_ABOVE_SHORT.match(text)
        if above:
            kind = above.groupdict().get("kind") or "all"
            found.append(Dependent(i, "none-above" if kind.lower() in ("none", "neither") else "all-above"))
            continue
        combo = _COMBO.match(text)
        named = [m.group(1) for m in _NAMED.finditer(text)]
        refs = [g for g in combo.groups() if g] if combo else named
        positions = tuple(sorted({ord(r.upper()) - 65 for r in refs if ord(r.upper()) - 65 < n and ord(r.upper()) - 65 != i}))
        if positions and (combo or named):
            found.append(Dependent(i, "letters", positions))
    return found


def arrange(
    options: Sequence[str], answer: str, distractors: Sequence[str], rng: random.Random, *, policy: str = "keep"
) -> Arrangement:
    """The augmented options and answer letter; see the module doc.

    Args:
        options: the original options, in order.
        answer: the original answer letter.
        distractors: the new options, in the order accepted.
        rng: the item's generator (``shuffle_rng``).
        policy: ``keep`` (hold position-dependent options in place) or ``flag`` (do not augment them).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown position policy {policy!r} (one of {', '.join(POLICIES)})")
    original = [(text, letter) for text, letter in zip(options, letters(len(options)))]
    correct = ord(answer) - 65
    deps = position_dependent(options)
    unchanged = Arrangement(tuple(options), answer, tuple(letters(len(options))))
    for dep in deps:
        if dep.kind == "all-above" and dep.index == correct:
            return _flagged(unchanged, f"the answer {answer} ({options[dep.index]!r}) would be false with new options above it; not augmented")
    if deps and policy == "flag":
        names = ", ".join(f"{letters(len(options))[d.index]} {options[d.index]!r}" for d in deps)
        return _flagged(unchanged, f"position-dependent option(s) {names}; not augmented (--position-dependent flag)")

    pool = [(text, letter) for text, letter in original] + [(text, f"new {k}") for k, text in enumerate(distractors, 1)]
    total = len(pool)
    slots: list[tuple[str, str] | None] = [None] * total
    held: list[str] = []
    fixed: set[int] = set()
    for dep in deps:
        if dep.kind == "letters":
            for index in (dep.index, *dep.names):
                fixed.add(index)
            named = ", ".join(letters(len(options))[k] for k in dep.names)
            held.append(f"{letters(len(options))[dep.index]} {options[dep.index]!r} and {named} kept at their letters")
    for index in fixed:
        slots[index] = original[index]
    enders = [d.index for d in deps if d.kind != "letters" and d.index not in fixed]
    last_free = [k for k in range(total - 1, -1, -1) if k not in fixed]
    for slot, index in zip(last_free, reversed(enders)):
        slots[slot] = original[index]
        held.append(f"{options[index]!r} placed last")
    placed = fixed | set(enders)
    movers = [entry for k, entry in enumerate(pool) if k >= len(original) or k not in placed]
    rng.shuffle(movers)
    free = iter(movers)
    for k in range(total):
        if slots[k] is None:
            slots[k] = next(free)
    final = [s for s in slots if s is not None]
    answer_letter = letters(total)[[src for _, src in final].index(original[correct][1])]
    return Arrangement(tuple(t for t, _ in final), answer_letter, tuple(src for _, src in final), tuple(held))


def _flagged(base: Arrangement, why: str) -> Arrangement:
    return Arrangement(base.options, base.answer, base.sources, base.held, why)
