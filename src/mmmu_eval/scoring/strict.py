"""A strict final-answer parser: only an explicit ``Answer: X`` or ``\\boxed{X}`` counts.

Not an official parser. It shows how much of a score rests on the official parsers' lenient
passes (bare letters, option text, random picks): where it disagrees with ``official``, the
model never stated an answer explicitly. The last explicit statement in the response wins.

- Multiple choice: ``Answer: X`` (``answer`` in any case, a colon, optional ``**``, ``$``, ``(``
  or ``[`` before the letter, and no letter or digit right after it), or a box holding exactly a
  letter (``\\boxed{X}``, ``\\boxed{(X)}``, ``\\boxed{\\text{X}}``). The letter must be one of the
  item's choices and is matched as written (upper case).
- Open: the rest of the line after the last ``Answer:``, or the last box's content, judged with
  the official open-answer matching.

>>> strict_choice("Reasoning.\\n**Answer: (C)**", ("A", "B", "C", "D"))
'C'
>>> strict_choice("The answer is C", ("A", "B", "C", "D")) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mmmu_eval.scoring.boxed import BOX, braced

_ANSWER_LETTER = re.compile(r"(?i:answer)\s*\**\s*:\s*[*$(\[\s]*([A-Z])(?![A-Za-z0-9])")
_ANSWER_LINE = re.compile(r"(?i:answer)\s*\**\s*:[ \t]*([^\n]*)")
_BOXED_LETTER = re.compile(r"^\s*(?:\\text\{\s*([A-Z])\s*\}|\(?([A-Z])\)?)\s*$")


def strict_choice(response: str, choices: Sequence[str]) -> str | None:
    """The letter of the last explicit ``Answer: X`` or boxed letter, if it is one of ``choices``."""
    found: list[tuple[int, str]] = [(m.start(), m.group(1)) for m in _ANSWER_LETTER.finditer(response)]
    for start, content in _boxes(response):
        letter = _BOXED_LETTER.match(content)
        if letter:
            found.append((start, letter.group(1) or letter.group(2)))
    if not found:
        return None
    letter = max(found)[1]
    return letter if letter in choices else None


def strict_open(response: str) -> str | None:
    """The text of the last explicit ``Answer: ...`` line or box, stripped; None when there is neither."""
    found: list[tuple[int, str]] = [(m.start(), m.group(1)) for m in _ANSWER_LINE.finditer(response)]
    found.extend(_boxes(response))
    found = [(start, text.strip()) for start, text in found if text.strip()]
    return max(found)[1] if found else None


def has_answer_line(response: str) -> bool:
    """Whether the text holds an explicit ``Answer: ...`` line (what ``strict`` reads besides a box)."""
    return any(m.group(1).strip() for m in _ANSWER_LINE.finditer(response))


def _boxes(response: str) -> list[tuple[int, str]]:
    out = []
    start = response.find(BOX)
    while start != -1:
        content = braced(response, start + len(BOX))
        if content is not None:
            out.append((start, content))
        start = response.find(BOX, start + 1)
    return out
