"""One parser's verdict on one item: the parsers behind the names ``score --parser`` accepts.

Each name maps to a pair of functions, one for multiple choice and one for open questions:

======== ================================================ =====================================
name     multiple choice                                  open questions
======== ================================================ =====================================
official the benchmark's own parser (MMMU or MMMU-Pro)    official open parse and match
mmmu     the MMMU parser, whatever the benchmark          official open parse and match
mmmu-pro the MMMU-Pro parser, whatever the benchmark      official open parse and match
boxed    last ``\\boxed{}``, exact, case-insensitive      last box, official matching
strict   explicit ``Answer: X`` or boxed letter only      last ``Answer:`` line or box, matched
eval-only the text as it is, compared exactly (no parsing)  official open parse and match
======== ================================================ =====================================

``eval-only`` is the official ``main_eval_only.py`` semantics, for prediction files that already
hold a letter: ``"(A)"`` is wrong there.

Only ``official``, ``mmmu`` and ``mmmu-pro`` ever fall back to a random letter.
"""

from __future__ import annotations

import random

from mmmu_eval.core.config import PARSERS  # noqa: F401  (re-exported: every parser name, the headline one first)
from mmmu_eval.core.records import Item, Verdict
from mmmu_eval.scoring.boxed import boxed_reward, last_boxed
from mmmu_eval.scoring.choices import OfficialCrash, choice_info
from mmmu_eval.scoring.mmmu_parser import pick_mmmu_choice
from mmmu_eval.scoring.mmmu_pro_parser import pick_pro_choice
from mmmu_eval.scoring.open_answer import candidate_text, eval_multi_choice, eval_open, parse_open
from mmmu_eval.scoring.strict import strict_choice, strict_open

#: The parsers that fall back to a random letter (under the ``official`` policy).
RANDOM_FALLBACK: frozenset[str] = frozenset(("official", "mmmu", "mmmu-pro"))
#: Parsers a run is scored with when none are named, by prompt mode; the first is the headline.
#: A run whose prompt asked for ``\boxed{}`` is judged the way it was asked, and the official
#: parser stands beside it so that the gap between the two protocols is always visible.
_PARSERS_BY_MODE: dict[str, tuple[str, ...]] = {"boxed": ("boxed", "official")}


def default_parsers(prompt_mode: str | None) -> tuple[str, ...]:
    """The parsers for a run asked with ``prompt_mode``: ``("official",)`` unless the mode says otherwise.

    >>> default_parsers("boxed"), default_parsers("cot")
    (('boxed', 'official'), ('official',))
    """
    return _PARSERS_BY_MODE.get(prompt_mode or "", ("official",))


def judge(item: Item, text: str, parser: str, rng: random.Random | None) -> Verdict:
    """The verdict of ``parser`` on ``text`` as the answer to ``item``.

    Args:
        item: the question; ``item.answer`` None (a withheld test answer) gives ``correct=False``
            with the prediction still filled in.
        text: the response text that is parsed.
        parser: one of PARSERS.
        rng: the run's fallback generator for this parser; None under the ``none`` policy.

    Returns:
        A Verdict; ``fallback`` is True when the parser found no answer in a multiple-choice
        response (the letter then came from ``rng``, or is None when ``rng`` is None).

    Raises:
        OfficialCrash: the official parser would crash on this item (malformed options, or a
            response that is not text, which only ``rescore`` of foreign files can produce).
    """
    if not isinstance(text, str) and parser in ("boxed", "strict"):
        return Verdict(item.id, parser, None, False, False, len(item.options))
    if item.question_type == "multiple-choice":
        return _judge_choice(item, text, parser, rng)
    return _judge_open(item, text, parser)


def _judge_choice(item: Item, text: str, parser: str, rng: random.Random | None) -> Verdict:
    choices, index2ans = choice_info(item.options)
    fallback = False
    if parser == "boxed":
        pred = last_boxed(text)
        correct = item.answer is not None and boxed_reward(text, item.answer) == 1.0
        return Verdict(item.id, parser, pred, correct, False, len(choices))
    if parser == "eval-only":
        correct = item.answer is not None and eval_multi_choice(item.answer, text)
        return Verdict(item.id, parser, text if isinstance(text, str) else None, correct, False, len(choices))
    if parser == "strict":
        pred = strict_choice(text, choices)
    else:
        use_pro = parser == "mmmu-pro" or (parser == "official" and item.benchmark == "mmmu-pro")
        pick = pick_pro_choice if use_pro else pick_mmmu_choice
        pred, fallback = pick(text, choices, index2ans, rng)
    correct = item.answer is not None and pred is not None and eval_multi_choice(item.answer, pred)
    return Verdict(item.id, parser, pred, correct, fallback, len(choices))


def _judge_open(item: Item, text: str, parser: str) -> Verdict:
    if parser == "boxed":
        # The box holds the answer; whether it is right is the official open matching's call
        # (gold "36" accepts "36 watts" and "36.0"), as for strict. The box is the prediction.
        pred = last_boxed(text)
        correct = item.answer is not None and pred is not None and eval_open(item.answer, parse_open(pred))
        return Verdict(item.id, parser, pred, correct)
    if parser == "strict":
        stated = strict_open(text)
        if stated is None:
            return Verdict(item.id, parser, None, False)
        text = stated
    if not isinstance(text, str):
        raise OfficialCrash(f"the response is {type(text).__name__}, not text; the official open parser would crash")
    candidates = parse_open(text)
    pred = candidate_text(candidates[0]) if candidates else None
    correct = item.answer is not None and eval_open(item.answer, candidates)
    return Verdict(item.id, parser, pred, correct)
