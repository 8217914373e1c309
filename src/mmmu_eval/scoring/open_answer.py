"""The official MMMU open-question parser and matcher, quirks included.

Reproduces ``parse_open_response``, ``extract_numbers``, ``check_is_number``, ``normalize_str``,
``eval_open`` and ``eval_multi_choice`` of ``mmmu/utils/eval_utils.py`` (official MMMU code,
github.com/MMMU-Benchmark/MMMU), as official-protocol.md 5.4-5.7 describes them. The quirks are
deliberate, because the official numbers depend on them:

- the text is lowercased BEFORE the sentence split, so only newlines split it;
- ``"is "`` also matches inside ``"this "`` (plain substring indicators);
- numbers are rounded to 2 decimals with Python's ``round``;
- a string gold matches when it is a substring of a string candidate (gold inside the prediction);
- one-character strings are padded (``"c"`` -> ``" c"``, ``"c "``);
- ``10,000.5`` yields ``10,000`` and ``000.5``, never 10000.5.

The official code returns ``list(set(...))``; ``parse_open`` keeps first-seen order instead, so
that the reported prediction is stable (the order never changes correctness).

>>> parse_open("The answer is 36 watts")
['36 watts', 36.0]
>>> eval_open("36", parse_open("The answer is 36 watts"))
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Candidate = str | float

_SUBRESPONSE_SPLIT = re.compile(r"\.\s(?=[A-Z])|\n")
_INDICATORS: tuple[str, ...] = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_BARE_PUNCTUATION = frozenset((":", ",", ".", "!", "?", ";", ":", "'"))

_NUMBER_WITH_COMMAS = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_NUMBER_SCIENTIFIC = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
_NUMBER_SIMPLE = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")


def key_subresponses(response: str) -> list[str]:
    """``get_key_subresponses``: per line, the shortest text after an answer indicator.

    Returns the whole lowercased, stripped response (as a one-element list) when no line has a
    usable indicator.
    """
    text = response.strip().strip(".").lower()
    # Kept as the official regex although, after lower(), its sentence alternative cannot match.
    lines = _SUBRESPONSE_SPLIT.split(text)
    keys: list[str] = []
    for index, line in enumerate(lines):
        indicators = _INDICATORS + ("=",) if index == len(lines) - 1 else _INDICATORS
        shortest: str | None = None
        for indicator in indicators:
            if indicator in line:
                tail = line.split(indicator)[-1].strip()
                # An empty kept tail counts as unset (the official ``if not shortest``).
                if not shortest or len(tail) < len(shortest):
                    shortest = tail
        if shortest and shortest.strip() not in _BARE_PUNCTUATION:
            keys.append(shortest)
    return keys or [text]


def extract_numbers(text: str) -> list[str]:
    """Every number the official three regexes find: with commas, scientific, then simple, concatenated.

    >>> extract_numbers("1,234,567 and 89")
    ['1,234,567', '567', '89']
    """
    return _NUMBER_WITH_COMMAS.findall(text) + _NUMBER_SCIENTIFIC.findall(text) + _NUMBER_SIMPLE.findall(text)


def check_is_number(text: str) -> bool:
    """True when Python's float() accepts the text with commas removed (so ``nan``, ``1e3``, ``1_000`` too)."""
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def normalize_str(text: str) -> list[Candidate]:
    """``normalize_str``: a number becomes ``[round(float, 2)]``; text is lowercased, one character padded.

    >>> normalize_str("1,000"), normalize_str("C"), normalize_str("24/7")
    ([1000.0], [' c', 'c '], ['24/7'])
    """
    text = text.strip()
    if check_is_number(text):
        return [round(float(text.replace(",", "")), 2)]
    text = text.lower()
    if len(text) == 1:
        return [" " + text, text + " "]
    return [text]


def parse_open(response: str) -> list[Candidate]:
    """``parse_open_response``: the candidate answers (strings and floats) in a response.

    Returns the key sub-responses, then the numbers extracted from each, all normalised and
    de-duplicated in first-seen order.
    """
    keys = key_subresponses(response)
    raw: list[str] = list(keys)
    for key in keys:
        raw.extend(extract_numbers(key))
    out: list[Candidate] = []
    for piece in raw:
        out.extend(normalize_str(piece))
    return _unique(out)


def eval_open(gold: str | Sequence[str], candidates: Sequence[Candidate]) -> bool:
    """``eval_open``: any candidate matches a normalised gold answer.

    A string candidate matches when a string gold is a substring of it; a float candidate when it
    equals a float gold (both rounded to 2 decimals). Strings never match floats; ``nan`` never
    matches.
    """
    golds: list[Candidate] = []
    for answer in [gold] if isinstance(gold, str) else gold:
        golds.extend(normalize_str(answer))
    gold_strings = [g for g in golds if isinstance(g, str)]
    gold_numbers = [g for g in golds if not isinstance(g, str)]
    for candidate in candidates:
        if isinstance(candidate, str):
            if any(g in candidate for g in gold_strings):
                return True
        elif candidate in gold_numbers:
            return True
    return False


def eval_multi_choice(gold: str | Sequence[str], pred: str | None) -> bool:
    """``eval_multi_choice``: exact string equality, or equality with any element of a list gold."""
    if isinstance(gold, str):
        return gold == pred
    return any(g == pred for g in gold)


def candidate_text(candidate: Candidate) -> str:
    """A candidate as the string a prediction file holds (``36.0`` -> ``"36.0"``)."""
    return candidate if isinstance(candidate, str) else str(candidate)


def _unique(values: list[Candidate]) -> list[Candidate]:
    """First-seen de-duplication with set semantics (so 1.0 and a later 1.0 are one; nan kept apart)."""
    seen: list[Candidate] = []
    hashed: set[Candidate] = set()
    for value in values:
        if value in hashed:
            continue
        hashed.add(value)
        seen.append(value)
    return seen
