"""What each kind of backend is told: a small frozen record per kind, never the whole run.

A run's configuration (``RunConfig``) mixes the data, the protocol, scoring, cost and every
backend's knobs. A backend needs only its own: the API client its servers, key variable,
concurrency and timeouts; a local engine its batch size, dtype and device; ``random`` its
seed; ``frequent`` the answers it will give. ``run/backend_settings.py`` builds these records
from the run's configuration (the one adapter), and ``registry.make_backend`` hands each
backend its own record (``BackendEntry.settings`` names which).

A backend never sees the items, and so never a gold answer: ``frequent``'s answers are decided
by ``run/prepare.py`` (the most frequent gold letter among the evaluated items, per item the
top-ranked letter it offers) and reach it as ``FixedAnswers``.

Every field left None means "not given": the backend applies its own default, as the CLI help
says, so a record built by hand in a notebook behaves as the flags would.

>>> settings = BackendSettings(openai=OpenAISettings(concurrency=8))
>>> settings.openai.concurrency, settings.hf.batch_size
(8, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "BackendSettings", "BaselineSettings", "CustomSettings", "FixedAnswers", "HFSettings", "OpenAISettings",
    "VLLMSettings",
]


@dataclass(frozen=True)
class OpenAISettings:
    """``openai:NAME``: which servers, with whose key, how hard to push them."""

    base_urls: tuple[str, ...] | None = None
    """``--base-url`` (several spread the load); None: ``OPENAI_BASE_URL``, else OpenAI's API."""
    api_key_env: str | None = None
    """The environment variable holding the key (the key itself never travels in a record)."""
    concurrency: int | None = None
    """Requests in flight per endpoint (default 64)."""
    max_attempts: int | None = None
    """Tries per request before it is stored as an error (default 6)."""
    request_timeout: float | None = None
    """Seconds per attempt (default 600)."""
    probe_timeout: float | None = None
    """Seconds each start-up request may take (default 60)."""
    max_response_bytes: int | None = None
    """Most bytes of one answer, decoded (default ``openai_wire.DEFAULT_MAX_RESPONSE_BYTES``, 64 MiB)."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels; None never scales."""


@dataclass(frozen=True)
class HFSettings:
    """``hf:PATH_OR_ID``: a transformers model in this process."""

    batch_size: int | None = None
    """Requests per ``generate`` call (default 8)."""
    dtype: str | None = None
    """``auto`` (the checkpoint's), ``bfloat16``, ``float16``, ``float32``."""
    device: str | None = None
    """``auto``, ``cuda`` or ``cpu``."""
    trust_remote_code: bool = False
    max_image_pixels: int | None = None


@dataclass(frozen=True)
class VLLMSettings:
    """``vllm:PATH_OR_ID``: an offline vLLM engine."""

    batch_size: int | None = None
    """Requests per ``LLM.chat`` call (default 256)."""
    dtype: str | None = None
    trust_remote_code: bool = False
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    data_parallel_size: int | None = None
    seed: int | None = None
    """The engine's seed (``--seed``)."""
    max_image_pixels: int | None = None


@dataclass(frozen=True)
class FixedAnswers:
    """The answer a baseline gives each item, decided before the run from the evaluated items'
    gold answers (``run/prepare.frequent_answers``), and how they were decided (for the manifest)."""

    by_item: Mapping[str, str] = field(default_factory=dict)
    """Item id -> the answer text the backend returns for it."""
    letter_ranking: tuple[str, ...] = ()
    """The gold letters, most frequent first (ties: the earlier letter)."""
    open_answer: str | None = None
    """The most frequent gold open answer (every open question gets it)."""
    computed_from_items: int = 0
    """How many evaluated items had a gold answer."""


@dataclass(frozen=True)
class BaselineSettings:
    """``random`` and ``frequent``: no model, only what decides their answers."""

    seed: int | None = None
    """``random``'s seed (``--seed``; default 0)."""
    fixed_answers: FixedAnswers | None = None
    """``frequent``'s answers; None when the evaluated items have no gold answers (the test split)."""


@dataclass(frozen=True)
class CustomSettings:
    """What a model of your own receives: a function or object given as ``model=``, and a
    third-party backend registered under the ``mmmu_eval.backends`` entry point
    (``from_settings(name, settings)``). Only the knobs any backend might honour; None: not given."""

    concurrency: int | None = None
    """Calls in flight (a function model: its thread pool; default 8)."""
    max_attempts: int | None = None
    request_timeout: float | None = None
    """Seconds per request attempt."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels; None never scales."""
    batch_size: int | None = None
    dtype: str | None = None
    device: str | None = None
    trust_remote_code: bool = False
    seed: int | None = None
    base_urls: tuple[str, ...] | None = None
    api_key_env: str | None = None
    """The name of the variable holding a key, never the key."""


@dataclass(frozen=True)
class BackendSettings:
    """One record per backend kind; the registry hands a backend only its own.

    ``text-only:SPEC`` is the one backend given all of them: it builds the backend it wraps.
    """

    openai: OpenAISettings = field(default_factory=OpenAISettings)
    hf: HFSettings = field(default_factory=HFSettings)
    vllm: VLLMSettings = field(default_factory=VLLMSettings)
    baseline: BaselineSettings = field(default_factory=BaselineSettings)
    custom: CustomSettings = field(default_factory=CustomSettings)
