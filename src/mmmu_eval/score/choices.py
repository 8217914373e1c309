"""What both official multiple-choice parsers share: letters, the punctuation strip, the tie rule.

The MMMU parser (``mmmu_parser``) and the MMMU-Pro parser (``mmmu_pro_parser``) are different
functions (official-protocol.md 10.1); only these three steps are identical in both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mmmu_eval.records import letters

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


def content_candidates(padded: str, index2ans: Mapping[str, object]) -> list[str]:
    """The content pass: letters whose option text occurs (case-insensitively) in the response.

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
