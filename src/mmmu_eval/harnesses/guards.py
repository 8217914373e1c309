"""Plausibility guards: evidence that a rescore misread its file, said loudly with the cause.

A misread does not crash; it prints a figure. These checks look at what was read and scored for
the signs a misread leaves, and return a warning naming the cause and the evidence:

- golds that are not among their item's options (a gold ``E`` over four options can never be
  matched: the options came from another column than the gold);
- random fallbacks far above what the answers' own shape suggests: most of the responses the
  parser found no letter in hold one plainly (an ``Answer: X`` line, a ``\\boxed{X}``, a lone
  letter), so the parser, or the options it matched them against, is not the one they were
  written for.

The setting's option count is guarded where the setting is decided (``identify.py``).

On a file whose answers the parser cannot read (a sketch)::

    plausibility(items, responses, scoring)
    # ('10 of the 12 random fallbacks hold an answer in a shape the official parser ...',)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from mmmu_eval.core.records import Item, Response, letters
from mmmu_eval.core.numbers import pct
from mmmu_eval.scoring.boxed import last_boxed
from mmmu_eval.scoring.scorer import Scoring

#: Items whose gold lies outside their options, at least this many and this share, make a warning.
GOLDS_OUTSIDE = 2
GOLDS_OUTSIDE_SHARE = 0.01
#: Fallbacks below this count, or below this share of the scored answers, are not judged.
MIN_FALLBACKS = 5
MIN_FALLBACK_SHARE = 0.10
#: Share of the fallbacks whose text plainly holds a letter above which the parser misread them.
SHAPED_SHARE = 0.5

_ANSWER_LINE = re.compile(r"answer\s*(?:is)?\s*[:：]?\s*\(?([A-Z])\)?(?![A-Za-z])", re.I)
_LONE_LETTER = re.compile(r"^\s*\(?([A-Z])\)?\s*[.)]?\s*$")


def plausibility(items: Sequence[Item], responses: Mapping[str, Response], scoring: Scoring) -> tuple[str, ...]:
    """Every warning the scored file deserves; empty when nothing looks misread."""
    return tuple(w for w in (_golds_outside(items), _fallbacks_against_shape(items, responses, scoring)) if w)


def answer_shape(text: object) -> str | None:
    """The shape in which ``text`` plainly holds a letter (``Answer: X``, ``\\boxed{X}``, ``X``), or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    boxed = last_boxed(text)
    if boxed is not None and re.fullmatch(r"\(?[A-Za-z]\)?", boxed.strip()):
        return "\\boxed{X}"
    if _LONE_LETTER.match(text):
        return "a lone letter"
    if _ANSWER_LINE.search(text):
        return "an 'Answer: X' line"
    return None


def _golds_outside(items: Sequence[Item]) -> str | None:
    outside = [it for it in items if it.question_type == "multiple-choice" and it.options
               and isinstance(it.answer, str) and len(it.answer) == 1 and it.answer not in letters(len(it.options))]
    if len(outside) < max(GOLDS_OUTSIDE, GOLDS_OUTSIDE_SHARE * len(items)):
        return None  # one malformed row (named among the problems) is not a misread file
    first = outside[0]
    return (f"{len(outside)} of the {len(items)} items have a gold letter that is not among their options "
            f"(e.g. {first.id}: gold {first.answer}, {len(first.options)} options): no answer can be right on them; "
            "the options and the gold may come from different columns of the file")


def _fallbacks_against_shape(items: Sequence[Item], responses: Mapping[str, Response], scoring: Scoring) -> str | None:
    headline = scoring.parsers[0]
    verdicts = scoring.verdicts.get(headline, {})
    fell = [it.id for it in items if it.id in verdicts and verdicts[it.id].fallback]
    scored = len(verdicts)
    if len(fell) < MIN_FALLBACKS or not scored or len(fell) / scored < MIN_FALLBACK_SHARE:
        return None
    shapes = Counter(s for s in (answer_shape(responses[i].text) for i in fell if i in responses) if s)
    shaped = sum(shapes.values())
    if shaped / len(fell) <= SHAPED_SHARE:
        return None
    said = ", ".join(f"{n} with {shape}" for shape, n in shapes.most_common())
    hint = ("; the answers are boxed: rescore with --parser boxed" if shapes.most_common(1)[0][0] == "\\boxed{X}"
            else "; their letters may lie outside the options read (the wrong option column), or the parser is not "
                 "the one the prompt asked for")
    return (f"{shaped} of the {len(fell)} random fallbacks of the {headline} parser ({pct(len(fell) / scored, 0)}% of the "
            f"answers) plainly hold a letter ({said}) that it did not read: the figure is likely a misread{hint}")
