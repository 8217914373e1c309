"""MMMU-Pro as a verifiers environment, prompted and rewarded as ``mmmu-eval run --prompt boxed``.

``vf-eval mmmu-pro`` (verifiers 0.4+) finds it through the top-level ``mmmu_pro`` module, which
re-exports this one; ``load_environment(mode="vision")`` builds it in Python. See
``verifiers_v1.py`` for the pieces and ``examples.py`` / ``rewards.py`` for what they use.

    env = load_environment(mode="vision", data="sample")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mmmu_eval.environments.loading import load, v1_export

__all__ = ["MMMUProTaskset", "SingleTurnEnv", "SingleTurnHarness", "load_environment"]

ENV_ID = "mmmu-pro"
#: What verifiers 0.4+ reads from ``__all__``: the taskset, the default harness, the env.
V1_EXPORTS = ("MMMUProTaskset", "SingleTurnEnv", "SingleTurnHarness")


def load_environment(
    mode: str = "standard",
    subset: str | Sequence[str] | None = None,
    split: str = "test",
    *,
    setting: str | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
    seed: int | None = None,
    limit: int | None = None,
    image_layout: str = "interleaved",
    max_image_pixels: int | None = None,
    api: str = "auto",
) -> Any:
    """The MMMU-Pro environment for the installed verifiers.

    Args:
        mode: ``standard`` (10 options, the raw images) or ``vision`` (the screenshot alone),
            as the hub's ``mmmu-pro`` environment names them.
        subset: one subject or several; None (or ``all``) keeps all 30.
        split: ``test``, MMMU-Pro's only split.
        setting: ``standard-10``, ``standard-4`` or ``vision``; overrides ``mode``.
        data: ``hub`` (the pinned revision, the same loader as ``run``), ``sample``, or a
            snapshot directory (offline).
        revision: hub revision; None means the pinned one.
        seed: shuffle the items with this seed before ``limit``; None keeps the dataset order.
        limit: keep the first N items.
        image_layout: as ``run --image-layout`` (default ``interleaved``).
        max_image_pixels: as ``run --max-image-pixels``; None sends images as stored.
        api: ``auto``, ``v1`` (a ``verifiers.v1.Env``) or ``legacy`` (a ``SingleTurnEnv``).

    Returns:
        A ``verifiers.v1.Env`` (verifiers 0.4+), or a ``verifiers.SingleTurnEnv`` (up to 0.3).

    >>> env = load_environment(mode="vision", data="sample", limit=5)
    """
    return load(
        ENV_ID, api, mode=mode, setting=setting, subset=subset, split=split, data=str(data),
        revision=revision, seed=seed, limit=limit, image_layout=image_layout, max_image_pixels=max_image_pixels,
    )


def __getattr__(name: str) -> Any:
    return v1_export(__name__, name, V1_EXPORTS)
