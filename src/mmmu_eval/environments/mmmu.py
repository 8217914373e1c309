"""MMMU as a verifiers environment, prompted and rewarded as ``mmmu-eval run --prompt boxed``.

Every question is kept: multiple choice with any number of options, and open questions with
their own instruction, rewarded by the official open-answer matching of what the box holds.
``vf-eval mmmu`` (verifiers 0.4+) finds it through the top-level ``mmmu`` module, which
re-exports this one.

    env = load_environment(split="dev", data="sample")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mmmu_eval.environments.loading import load, v1_export

__all__ = ["MMMUTaskset", "SingleTurnEnv", "SingleTurnHarness", "load_environment"]

ENV_ID = "mmmu"
#: What verifiers 0.4+ reads from ``__all__``: the taskset, the default harness, the env.
V1_EXPORTS = ("MMMUTaskset", "SingleTurnEnv", "SingleTurnHarness")


def load_environment(
    subset: str | Sequence[str] | None = None,
    split: str = "validation",
    *,
    data: str | Path = "hub",
    revision: str | None = None,
    seed: int | None = None,
    limit: int | None = None,
    image_layout: str = "interleaved",
    max_image_pixels: int | None = None,
    api: str = "auto",
) -> Any:
    """The MMMU environment for the installed verifiers.

    Args:
        subset: one subject or several; None (or ``all``) keeps all 30.
        split: ``dev`` or ``validation`` (the test split's answers are withheld).
        data, revision, seed, limit, image_layout, max_image_pixels, api: as for
            ``mmmu_eval.environments.mmmu_pro.load_environment``.

    Returns:
        A ``verifiers.v1.Env`` (verifiers 0.4+), or a ``verifiers.SingleTurnEnv`` (up to 0.3).

    >>> env = load_environment(split="dev", data="sample")
    """
    return load(
        ENV_ID, api, subset=subset, split=split, data=str(data), revision=revision, seed=seed,
        limit=limit, image_layout=image_layout, max_image_pixels=max_image_pixels,
    )


def __getattr__(name: str) -> Any:
    return v1_export(__name__, name, V1_EXPORTS)
