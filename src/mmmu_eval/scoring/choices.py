"""What both official multiple-choice parsers share, step for step.

The MMMU parser (``mmmu_parser``) and the MMMU-Pro parser (``mmmu_pro_parser``) are different
functions (official-protocol.md 10.1): the MMMU-Pro one reads the last ``Answer:`` first, and
their spaced-letter passes differ. The steps here are the ones that are identical in both
official scripts: the letters, the punctuation strip, the ``(L)`` pass, the content pass, the
last-position tie rule and the random fallback. Each parser calls them in its own order, so that
what differs between the two stays written out in the parser itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from mmmu_eval.core.records import letters

#: The official strip order; each step removes only that character, from both ends.
PUNCTUATION: tuple[str, ...] = (",", ".", "!", "?", ";", ":", "'")


def choice_info(options: Sequence[object]) -> tuple[tuple[str, ...], dict[str, object]]:
    """``get_multi_choice_info``: letters A, B, ... for the options in order, and letter -> option.

    There is no stop at J: 12 options give A..L. Options are kept as given (a malformed row can
    hold a nested list; the parsers decide what that means).
    """
    choices = letters(len(options))
    return choices, dict(zip(choices, options))


def strip_and_pad(response: str) -> str:
    """Strip each official punctuation mark in turn (never whitespace), then pad with one space.

    Sequential, as the official code does: in ``"B.'"`` the ``.`` survives because it was not at
    the end yet when its turn came.
    """
    for mark in PUNCTUATION:
        response = response.strip(mark)
    return " " + response + " "


def last_mentioned(candidates: Sequence[str], position: Callable[[str], int]) -> str:
    """The candidate whose ``position`` is largest; ties go to the earliest candidate (``np.argmax``)."""
    best = candidates[0]
    best_pos = position(best)
    for candidate in candidates[1:]:
        pos = position(candidate)
        if pos > best_pos:
            best, best_pos = candidate, pos
    return best


def bracket_pass(padded: str, choices: Sequence[str]) -> str | None:
    """The ``(L)`` pass: of the letters written as ``(L)``, the one whose last mention is latest."""
    candidates = [c for c in choices if f"({c})" in padded]
    if not candidates:
        return None
    return last_mentioned(candidates, lambda c: padded.rfind(f"({c})"))


def content_pass(padded: str, index2ans: Mapping[str, object]) -> str | None:
    """The content pass, tried only on a response of more than 5 tokens.

    Of the letters whose option text occurs in the response (case-insensitively), the one whose
    text occurs last. None when the response is short or names no option.

    Raises:
        OfficialCrash: an option is not text (see ``content_candidates``).
    """
    if len(padded.split()) <= 5:
        return None
    candidates = content_candidates(padded, index2ans)
    if not candidates:
        return None
    lowered = padded.lower()
    return last_mentioned(candidates, lambda c: lowered.rfind(str(index2ans[c]).lower()))


def or_random_choice(
    letter: str | None, choices: Sequence[str], rng: random.Random | None
) -> tuple[str | None, bool]:
    """``(letter, fell_back)``: the parsed letter, else one ``rng.choice(choices)`` draw.

    Both official scorers call ``random.choice(all_choices)`` once per unparseable answer. With
    ``rng`` None (the ``none`` fallback policy) an unparseable answer gives ``(None, True)``.
    """
    if letter is not None:
        return letter, False
    if rng is None or not choices:
        return None, True
    return rng.choice(list(choices)), True


def content_candidates(padded: str, index2ans: Mapping[str, object]) -> list[str]:
    """The content pass's candidates: letters whose option text occurs (case-insensitively) in the response.

    Raises OfficialCrash when an option is not a string: the official code calls ``.lower()`` on
    it and stops there (MMMU-Pro ``validation_Accounting_29`` has a nested list).
    """
    lowered = padded.lower()
    found = []
    for letter, option in index2ans.items():
        if not isinstance(option, str):
            raise OfficialCrash(
                f"option {letter} is {type(option).__name__} {option!r}, not text; the official "
                "content pass would crash on it"
            )
        if option.lower() in lowered:
            found.append(letter)
    return found


class OfficialCrash(ValueError):
    """The official code would raise on this input; the caller scores the item wrong and reports it."""
