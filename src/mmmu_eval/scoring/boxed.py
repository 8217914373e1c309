"""The ``\\boxed{LETTER}`` protocol that reinforcement-learning environments for MMMU-Pro use.

The prompt asks for the final letter inside ``\\boxed{}``; the parser takes the LAST boxed
answer, and the item earns a reward of 1.0 when it equals the gold answer case-insensitively
(after trimming surrounding whitespace) and 0.0 otherwise. Nothing else in the response counts,
and there is no random fallback: no box means reward 0.0. For an open MMMU question the box
holds the answer text, and ``judge`` matches it with the official open-answer matching.

>>> last_boxed(r"First \\boxed{A}, no: \\boxed{ c }")
'c'
>>> boxed_reward(r"\\boxed{c}", "C")
1.0
"""

from __future__ import annotations

from collections.abc import Sequence

BOX = "\\boxed"


def last_boxed(response: str) -> str | None:
    """The stripped content of the last ``\\boxed{...}`` (braces may nest), or None when there is none.

    A box that is never closed does not count; the search then goes on to earlier boxes.
    """
    start = response.rfind(BOX)
    while start != -1:
        content = braced(response, start + len(BOX))
        if content is not None:
            return content.strip()
        start = response.rfind(BOX, 0, start)
    return None


def boxed_reward(response: str, gold: str | Sequence[str] | None) -> float:
    """1.0 when the last boxed answer equals the gold (or one of several) ignoring case; else 0.0."""
    answer = last_boxed(response)
    if answer is None or gold is None:
        return 0.0
    golds = [gold] if isinstance(gold, str) else list(gold)
    return 1.0 if any(answer.casefold() == g.strip().casefold() for g in golds) else 0.0


def braced(text: str, at: int) -> str | None:
    """The text inside the brace group that opens at ``text[at]`` (spaces before it allowed)."""
    while at < len(text) and text[at] == " ":
        at += 1
    if at >= len(text) or text[at] != "{":
        return None
    depth = 0
    for end in range(at, len(text)):
        if text[end] == "{":
            depth += 1
        elif text[end] == "}":
            depth -= 1
            if depth == 0:
                return text[at + 1:end]
    return None
