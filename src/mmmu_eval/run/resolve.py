"""One ``RunConfig`` from what a caller gave: a config, keyword overrides, or both.

``evaluate``, ``plan_run``, the suite and harden's trials all start here, so a notebook's
``evaluate(model="random", shard="2/8")`` and the shell's ``--shard 2/8`` name one run.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.backends.custom import as_backend, model_spec
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.config import RunConfig
from mmmu_eval.errors import ConfigError, did_you_mean

if TYPE_CHECKING:
    from mmmu_eval.backends.base import Backend

__all__ = ["default_run_name", "parse_shard", "resolve_config", "slug"]


def resolve_config(config: RunConfig | None, overrides: Mapping[str, Any]) -> tuple[RunConfig, str | Backend]:
    """One RunConfig from a config and keyword overrides, read leniently, with ``out`` decided.

    Returns the config and the model to build: its spec string, or the model object given (a
    Backend, an object with ``generate``, a chat function) as a Backend (``backends/custom.py``).
    """
    overrides = dict(overrides)
    known = {f.name for f in dataclasses.fields(RunConfig)}
    for key in overrides:
        if key not in known:
            raise ConfigError(f"unknown run setting {key!r}{did_you_mean(key, sorted(known))}")
    model: object = overrides.get("model")
    if model is not None and not isinstance(model, str):
        overrides["model"] = model_spec(model)
    for key in ("subjects", "ids", "base_urls", "parsers"):
        if isinstance(overrides.get(key), str):
            overrides[key] = tuple(v for v in overrides[key].split(",") if v)
        elif isinstance(overrides.get(key), (list, tuple)):
            overrides[key] = tuple(overrides[key])
    if isinstance(overrides.get("shard"), str):
        overrides["shard"] = parse_shard(overrides["shard"])
    for key in ("out", "answers"):
        if isinstance(overrides.get(key), str):
            overrides[key] = Path(overrides[key])
    if config is None:
        if "model" not in overrides:
            raise ConfigError("no model given: pass model='random' (or a spec such as openai:gpt-4o)")
        config = RunConfig(**overrides)
    elif overrides:
        config = dataclasses.replace(config, **overrides)
    if config.out is None:
        config = dataclasses.replace(config, out=Path("runs") / default_run_name(config))
    if model is None or isinstance(model, str):
        return config, config.model
    return config, as_backend(model, backend_settings(config).custom)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/8"`` -> (2, 8).

    Raises:
        ConfigError: not of the form K/N with 1 <= K <= N.
    """
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise ConfigError(f"--shard {text!r}: write K/N, e.g. 1/4 for the first of four shards")
    k, n = int(match.group(1)), int(match.group(2))
    if not (n >= 1 and 1 <= k <= n):
        raise ConfigError(f"--shard {text}: need 1 <= K <= N")
    return k, n


def default_run_name(config: RunConfig) -> str:
    """``mmmu-validation-random-20261130-204501`` (plus ``-shard2of4`` for a shard)."""
    where = config.resolved_setting or config.resolved_split
    model = slug(config.model, limit=60, empty="model")
    name = f"{config.benchmark}-{where}-{model}-{time.strftime('%Y%m%d-%H%M%S')}"
    if config.shard:
        name += f"-shard{config.shard[0]}of{config.shard[1]}"
    return name


def slug(text: str, *, limit: int | None = None, empty: str) -> str:
    """``text`` as a piece of a directory name: each run of characters other than letters,
    digits, ``.``, ``_`` and ``-`` becomes one ``-``, none is left at either end, then at most
    ``limit`` characters are kept; ``empty`` when nothing is left. Run, suite and harden trial
    directories are named with it, so one model spec gives one name everywhere."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:limit] or empty

