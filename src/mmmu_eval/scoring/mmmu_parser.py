"""The official MMMU multiple-choice parser, reproduced exactly.

Reproduces ``parse_multi_choice_response`` in ``mmmu/utils/eval_utils.py`` of the official MMMU
code (github.com/MMMU-Benchmark/MMMU; Yue et al., "MMMU: A Massive Multi-discipline Multimodal
Understanding and Reasoning Benchmark for Expert AGI", CVPR 2024). Every pass and quirk is in
official-protocol.md 5.2: the sequential punctuation strip, the ``(L)`` pass, the ``" L "`` pass,
the content pass over more than 5 tokens, and the last-position rule among several candidates.

The official random pick for an unparseable answer is not done here: ``parse_mmmu_choice`` returns
None and the scorer draws from its own seeded generator (``pick_mmmu_choice`` does both).

>>> parse_mmmu_choice("The answer is (B).", ("A", "B", "C", "D"), {"A": "x", "B": "y", "C": "z", "D": "w"})
'B'
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


def parse_mmmu_choice(response: str, choices: Sequence[str], index2ans: Mapping[str, object]) -> str | None:
    """The letter the official MMMU parser reads in ``response``, or None where it would guess.

    Args:
        response: the model's answer text.
        choices: the letters in order (``all_choices``).
        index2ans: letter -> option text (the content pass looks for these).

    Returns:
        A letter of ``choices``, or None when no pass found one (the official code then picks at
        random).

    Raises:
        OfficialCrash: the response is not text, or the content pass met an option that is not
            text (the official code crashes on both).
    """
    if not isinstance(response, str):
        raise OfficialCrash(f"the response is {type(response).__name__}, not text; the official parser would crash")
    padded = strip_and_pad(response)
    bracketed = bracket_pass(padded, choices)
    if bracketed is not None:
        return bracketed
    # The spaced pass: a letter with a space on both sides.
    candidates = [c for c in choices if f" {c} " in padded]
    if candidates:
        return last_mentioned(candidates, lambda c: padded.rfind(f" {c} "))
    return content_pass(padded, index2ans)


def pick_mmmu_choice(
    response: str, choices: Sequence[str], index2ans: Mapping[str, object], rng: random.Random | None
) -> tuple[str | None, bool]:
    """``(letter, fell_back)``: the parsed letter, or ``rng.choice(choices)`` when none was found.

    With ``rng`` None (the ``none`` fallback policy) an unparseable answer gives ``(None, True)``.
    One call draws at most once, exactly as the official ``random.choice(all_choices)`` does.
    """
    return or_random_choice(parse_mmmu_choice(response, choices, index2ans), choices, rng)
