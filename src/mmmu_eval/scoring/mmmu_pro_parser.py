"""The official MMMU-Pro multiple-choice parser, reproduced exactly.

Reproduces ``parse_multi_choice_response`` in ``mmmu-pro/evaluate.py`` of the official code
(github.com/MMMU-Benchmark/MMMU; Yue et al., "MMMU-Pro: A More Robust Multi-discipline Multimodal
Understanding Benchmark", 2024). It differs from the MMMU parser (official-protocol.md 6.4):

0. the text after the LAST ``Answer:`` wins when exactly one letter occurs anywhere in it;
1. then the MMMU strip and padding, the ``(L)`` pass, an ``"L "`` pass with no leading space, an
   ``"L."`` pass, and the content pass;
2. among several candidates the last-position rule uses ``" L "`` with spaces on both sides, which
   is -1 for letters found by the ``"L "``/``"L."`` passes (then the first candidate wins).

The official scorer never seeds its random fallback; the scorer here draws from a seeded
generator (``pick_pro_choice``), which is our documented choice.

>>> parse_pro_choice("Reasoning...\\nAnswer: C", ("A", "B", "C", "D"), {})
'C'
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from mmmu_eval.scoring.choices import (
    OfficialCrash,
    bracket_pass,
    content_pass,
    last_mentioned,
    or_random_choice,
    strip_and_pad,
)

ANSWER_MARK = "Answer:"


def parse_pro_choice(response: object, choices: Sequence[str], index2ans: Mapping[str, object]) -> str | None:
    """The letter the official MMMU-Pro parser reads in ``response``, or None where it would guess.

    Args:
        response: the model's answer. The official scorer turns a dict (an API error record) into
            ``""`` before calling the parser; do that before calling this.
        choices: the letters in order.
        index2ans: letter -> option text.

    Returns:
        A letter of ``choices``, or None when no pass found one.

    Raises:
        OfficialCrash: the official code would crash (a non-text response such as None, or a
            non-text option reached by the content pass).
    """
    if not isinstance(response, str):
        # The official step 0 calls response.rfind before any type check.
        raise OfficialCrash(f"the response is {type(response).__name__}, not text; the official parser would crash")
    mark = response.rfind(ANSWER_MARK)
    if mark != -1:
        tail = response[mark + len(ANSWER_MARK):].strip()
        matching = [c for c in choices if c in tail]
        if len(matching) == 1:
            return matching[0]
    padded = strip_and_pad(response)
    bracketed = bracket_pass(padded, choices)
    if bracketed is not None:
        return bracketed
    # Unlike MMMU: "L " with no leading space, then "L."; yet the tie rule still looks for " L ".
    candidates = [c for c in choices if f"{c} " in padded] or [c for c in choices if f"{c}." in padded]
    if candidates:
        return last_mentioned(candidates, lambda c: padded.rfind(f" {c} "))
    return content_pass(padded, index2ans)


def pick_pro_choice(
    response: object, choices: Sequence[str], index2ans: Mapping[str, object], rng: random.Random | None
) -> tuple[str | None, bool]:
    """``(letter, fell_back)``: the parsed letter, or ``rng.choice(choices)`` when none was found.

    With ``rng`` None (the ``none`` policy) an unparseable answer gives ``(None, True)``.
    """
    return or_random_choice(parse_pro_choice(response, choices, index2ans), choices, rng)
