"""The reward in the form TRL's trainers call it: a batch in, one float per completion out.

TRL's ``GRPOTrainer`` (and its other online trainers) calls each reward function as
``func(prompts=..., completions=..., completion_ids=..., **columns)``: one list entry per
completion, and every other column of the training dataset as a keyword argument holding that
column's values for the batch. Rows made by ``examples()`` carry ``info``, which is all the
score stage needs, so the trainer's dataset is simply ``Dataset.from_list(list(examples(...)))``
and the reward is the same verdict ``reward()`` and ``mmmu-eval score --parser boxed`` give::

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from mmmu_eval.environments import examples, trl_reward

    train = Dataset.from_list(list(examples("mmmu-pro", setting="standard-10")))
    trainer = GRPOTrainer(model=..., reward_funcs=[trl_reward], train_dataset=train, args=GRPOConfig(...))

TRL's other keyword arguments (``trainer_state``, ``log_metric``, ``completion_ids`` ...) are
accepted and not read, so a TRL release that adds one does not break the reward.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mmmu_eval.environments.rewards import Completion, scores
from mmmu_eval.core.errors import DataError

__all__ = ["trl_metric", "trl_reward"]


def trl_reward(prompts: Sequence[Any], completions: Sequence[Completion], **columns: Any) -> list[float]:
    """The boxed verdict (1.0 or 0.0) of each completion, for TRL's ``reward_funcs``.

    Args:
        prompts: the batch's prompts (text or chat messages); only their count is read.
        completions: one per prompt: a string, or TRL's conversational form (a list of chat
            messages whose last assistant message is the answer).
        **columns: the dataset's other columns, as TRL passes them; ``info`` (from ``examples``)
            is required.

    Raises:
        DataError: ``info`` is missing or its length differs from the batch.
    """
    return _batch_scores("boxed_correct", prompts, completions, columns)


def trl_metric(name: str):
    """A TRL reward function for one of the other metrics, to log beside the reward (weight 0).

    ``name`` is ``official_correct`` (the official parser, an unparseable answer counts 0) or
    ``boxed_found`` (whether the completion has a closed ``\\boxed{}``). TRL logs each reward
    function under its ``__name__``, so the returned function is named after the metric::

        GRPOTrainer(..., reward_funcs=[trl_reward, trl_metric("official_correct")],
                    args=GRPOConfig(..., reward_weights=[1.0, 0.0]))

    Raises:
        ValueError: ``name`` is not one of those two.
    """
    if name not in ("official_correct", "boxed_found"):
        raise ValueError(f"metric {name!r} is not one of official_correct, boxed_found")

    def metric(prompts: Sequence[Any], completions: Sequence[Completion], **columns: Any) -> list[float]:
        return _batch_scores(name, prompts, completions, columns)

    metric.__name__ = metric.__qualname__ = name
    return metric


def _batch_scores(metric: str, prompts: Sequence[Any], completions: Sequence[Completion],
                  columns: Mapping[str, Any]) -> list[float]:
    infos = columns.get("info")
    if infos is None:
        raise DataError("TRL passed no `info` column: keep the `info` of mmmu_eval.environments.examples rows "
                        "in the training dataset (TRL hands every extra column to the reward function)")
    if not (len(infos) == len(completions) == len(prompts)):
        raise DataError(f"TRL passed {len(prompts)} prompts, {len(completions)} completions and {len(infos)} "
                        "info rows; they must be one per completion")
    return [scores(completion, {"info": info})[metric] for completion, info in zip(completions, infos)]
