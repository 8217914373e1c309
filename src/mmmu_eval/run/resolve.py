"""One ``RunConfig`` from what a caller gave: a config, keyword overrides, or both.

``evaluate``, ``plan_run``, the suite and harden's trials all start here, so a notebook's
``evaluate(model="random", shard="2/8")`` and the shell's ``--shard 2/8`` name one run.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from mmmu_eval.backends.base import Backend
from mmmu_eval.backends.custom import ChatFunction, Generates, as_backend, model_spec
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, did_you_mean

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # Python 3.10: the same form, from the typing_extensions dependency
    from typing_extensions import Unpack

__all__ = ["RunConfigArgs", "RunTemplateArgs", "Unpack", "default_run_name", "parse_shard", "resolve_config", "slug"]


class RunTemplateArgs(TypedDict, total=False):
    """The RunConfig fields a suite's runs share, as keyword arguments (``SuiteConfigArgs`` adds
    its own); each means what the RunConfig field of that name means.

    A few take a friendlier form than the field: a list or a comma-separated string where the
    field is a tuple, ``"2/8"`` for a shard, a string for a path, and ``model`` a model object
    (a Backend, an object with ``generate``, or a chat function; ``backends/custom.py``).
    """

    model: str | Backend | Generates | ChatFunction
    data: str
    revision: str | None
    subjects: str | Sequence[str] | None
    limit: int | None
    ids: str | Sequence[str] | None
    sample: int | None
    sample_seed: int | None
    sample_audit: str | Path | None
    shard: str | tuple[int, int] | None
    allow_different_data: bool
    image_layout: str
    unreferenced_images: str
    max_tokens: int | None
    temperature: float | None
    top_p: float | None
    seed: int | None
    extra_body: dict[str, object] | None
    system_prompt: str | None
    base_urls: str | Sequence[str] | None
    api_key_env: str | None
    concurrency: int | None
    max_attempts: int | None
    request_timeout: float | None
    probe_timeout: float | None
    max_response_bytes: int | None
    max_image_pixels: int | None
    batch_size: int | None
    dtype: str | None
    device: str | None
    trust_remote_code: bool
    tensor_parallel_size: int | None
    pipeline_parallel_size: int | None
    data_parallel_size: int | None
    parsers: str | Sequence[str] | None
    fallback: str | None
    fallback_seed: int | None
    answers: str | Path | None
    html: bool
    price_input: float | None
    price_output: float | None


class RunConfigArgs(RunTemplateArgs, total=False):
    """Every RunConfig field as a keyword argument of ``evaluate``, ``evaluate_async`` and
    ``plan_run`` (``**overrides: Unpack[RunConfigArgs]``), so a type checker and an editor know
    each one; a name that is not a field is refused with a ConfigError naming it. The keys are
    RunConfig's fields exactly (``tests/test_public_api.py`` holds them together)."""

    benchmark: str
    split: str | None
    setting: str | None
    prompt: str
    out: str | Path | None
    resume: bool


def resolve_config(
    config: RunConfig | None, overrides: Mapping[str, Any], *, named: Sequence[str] = ()
) -> tuple[RunConfig, str | Backend]:
    """One RunConfig from a config and keyword overrides, read leniently, with ``out`` decided.

    ``named``: the caller's own keyword parameters (``display`` ...), offered beside the
    RunConfig fields when a misspelt name is refused.

    Returns the config and the model to build: its spec string, or the model object given (a
    Backend, an object with ``generate``, a chat function) as a Backend (``backends/custom.py``).
    """
    overrides = dict(overrides)
    known = {f.name for f in dataclasses.fields(RunConfig)}
    for key in overrides:
        if key not in known:
            raise ConfigError(f"unknown run setting {key!r}{did_you_mean(key, sorted(known | set(named)))}")
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
    for key in ("out", "answers", "sample_audit"):
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

