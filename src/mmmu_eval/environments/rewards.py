"""Rewards for trainers: the score stage's verdicts on one completion of one example.

The reward is the ``boxed`` parser's verdict (``scoring/judge.py``), the same one ``mmmu-eval
score --parser boxed`` gives a stored response: 1.0 when the last ``\\boxed{}`` holds the gold
letter (case-insensitive), and for an open MMMU question when the official open-answer matcher
accepts what the box holds; 0.0 otherwise, and always 0.0 without a box. Beside it, two
metrics that tell format from correctness:

- ``official_correct``: the benchmark's official parser on the whole completion, deterministic
  (an answer it cannot parse counts 0, never a random letter);
- ``boxed_found``: whether the completion has a closed ``\\boxed{}`` at all.

A completion is read as ``run`` reads a server's answer: ``<think>...</think>`` is removed
first (``prompt/reasoning.py``), so the reward equals ``mmmu-eval``'s verdict on the same text.
Every form a trainer hands over is read (``completions.py``: a string, chat dicts, the OpenAI
SDK's and verifiers' message objects, a list of them); any other value is a ``TypeError``.

    reward("so \\\\boxed{B}", example)           # 1.0 when example["answer"] == "B"
    scores([{"role": "assistant", "content": "..."}], example)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mmmu_eval.environments.completions import completion_text
from mmmu_eval.environments.examples import item_from_info
from mmmu_eval.scoring.boxed import last_boxed
from mmmu_eval.scoring.choices import OfficialCrash
from mmmu_eval.scoring.judge import judge

__all__ = ["METRICS", "completion_text", "reward", "scores"]

log = logging.getLogger(__name__)

#: The names ``scores`` returns: the reward first, then the two metrics.
METRICS = ("boxed_correct", "official_correct", "boxed_found")

#: A string, a chat message (dict or object with ``role`` and ``content``), or a list of messages.
Completion = Any


def reward(completion: Completion, example: Mapping[str, Any]) -> float:
    """1.0 when the boxed parser judges ``completion`` correct for ``example``, else 0.0.

    Args:
        completion: the model's answer: a string, one chat message (a dict, the OpenAI SDK's
            ``ChatCompletionMessage``, a verifiers message), or a conversation (a list of them;
            the last assistant message is read).
        example: a dict from ``examples`` (only its ``info`` is read).

    >>> from mmmu_eval.environments import examples
    >>> example = next(examples("mmmu", split="dev", data="sample"))   # an open question, gold 140
    >>> reward("The answer is \\\\boxed{140}.", example), reward("The answer is \\\\boxed{B}.", example)
    (1.0, 0.0)
    """
    return scores(completion, example)["boxed_correct"]


def scores(completion: Completion, example: Mapping[str, Any]) -> dict[str, float]:
    """The reward and the two metrics (``METRICS``) for one completion, each 1.0 or 0.0.

    Raises:
        TypeError: ``completion`` is not one of the forms ``reward`` takes (it is named).
    """
    item = item_from_info(example["info"])
    text = completion_text(completion)
    boxed = judge(item, text, "boxed", None)
    try:
        official = judge(item, text, "official", None).correct
    except OfficialCrash as exc:  # the official code would stop on this item: it scores nothing
        log.warning("%s: %s; official_correct is 0", item.id, exc)
        official = False
    return {
        "boxed_correct": float(boxed.correct),
        "official_correct": float(official),
        "boxed_found": float(last_boxed(text) is not None),
    }
