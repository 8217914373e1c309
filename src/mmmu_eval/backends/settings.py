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
    """Base URLs of OpenAI-compatible servers (``--base-url``; several spread the load); None:
    ``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``."""
    api_key_env: str | None = None
    """The environment variable holding the key (``--api-key-env``); None: ``OPENAI_API_KEY``.
    The key itself never travels in a record."""
    concurrency: int | None = None
    """Requests in flight per endpoint (``--concurrency``); None: 64."""
    max_attempts: int | None = None
    """Tries per request, the first included, before it is stored as an error (``--max-attempts``); None: 6."""
    request_timeout: float | None = None
    """Seconds per attempt (``--request-timeout``); None: 600."""
    probe_timeout: float | None = None
    """Seconds each start-up request (the model listing, the probe) may take (``--probe-timeout``); None: 60."""
    max_response_bytes: int | None = None
    """Most bytes of one answer, decoded (``--max-response-bytes``); None: ``openai_wire.DEFAULT_MAX_RESPONSE_BYTES``, 64 MiB."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels, width times height (``--max-image-pixels``);
    None never scales."""


@dataclass(frozen=True)
class HFSettings:
    """``hf:PATH_OR_ID``: a transformers model in this process."""

    batch_size: int | None = None
    """Requests per ``generate`` call (``--batch-size``); None: 8."""
    dtype: str | None = None
    """Weight dtype (``--dtype``): ``auto`` (the checkpoint's), ``bfloat16``, ``float16``,
    ``float32``; None: ``auto``."""
    device: str | None = None
    """``auto`` (every visible GPU, else the CPU), ``cuda`` or ``cpu`` (``--device``); None: ``auto``."""
    trust_remote_code: bool = False
    """Let transformers run the model repository's own code (``--trust-remote-code``)."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels, width times height (``--max-image-pixels``);
    None never scales."""


@dataclass(frozen=True)
class VLLMSettings:
    """``vllm:PATH_OR_ID``: an offline vLLM engine."""

    batch_size: int | None = None
    """Requests per ``LLM.chat`` call (``--batch-size``); None: 256."""
    dtype: str | None = None
    """Weight dtype (``--dtype``): ``auto``, ``bfloat16``, ``float16``, ``float32``; None: ``auto``."""
    trust_remote_code: bool = False
    """Let vLLM run the model repository's own code (``--trust-remote-code``)."""
    tensor_parallel_size: int | None = None
    """GPUs each layer is split over (``--tensor-parallel-size``); None: 1."""
    pipeline_parallel_size: int | None = None
    """GPUs or nodes the layers are spread over (``--pipeline-parallel-size``); None: vLLM's own (1)."""
    data_parallel_size: int | None = None
    """Model replicas inside the engine (``--data-parallel-size``); None: vLLM's own (1)."""
    seed: int | None = None
    """The engine's seed (``--seed``); None: unseeded."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels, width times height (``--max-image-pixels``);
    None never scales."""


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
    """Calls in flight (``--concurrency``); a function model's thread pool, 8 when None."""
    max_attempts: int | None = None
    """Tries per request, the first included (``--max-attempts``); retrying is the backend's own."""
    request_timeout: float | None = None
    """Seconds per request attempt (``--request-timeout``)."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels, width times height (``--max-image-pixels``);
    None never scales. A function model is sent images already scaled."""
    batch_size: int | None = None
    """Requests per call to the model (``--batch-size``)."""
    dtype: str | None = None
    """Weight dtype the user asked for (``--dtype``), as written."""
    device: str | None = None
    """Device the user asked for (``--device``), as written."""
    trust_remote_code: bool = False
    """Whether the user allows the model repository's own code (``--trust-remote-code``)."""
    seed: int | None = None
    """Generation seed (``--seed``); each request's ``generation.seed`` holds it too."""
    base_urls: tuple[str, ...] | None = None
    """Server URLs (``--base-url``), for a plug-in that calls a service."""
    api_key_env: str | None = None
    """The name of the variable holding a key (``--api-key-env``), never the key."""


@dataclass(frozen=True)
class BackendSettings:
    """One record per backend kind; the registry hands a backend only its own.

    ``text-only:SPEC`` is the one backend given all of them: it builds the backend it wraps.
    """

    openai: OpenAISettings = field(default_factory=OpenAISettings)
    """What ``openai:NAME`` is given."""
    hf: HFSettings = field(default_factory=HFSettings)
    """What ``hf:PATH`` is given."""
    vllm: VLLMSettings = field(default_factory=VLLMSettings)
    """What ``vllm:PATH`` is given."""
    baseline: BaselineSettings = field(default_factory=BaselineSettings)
    """What ``random`` and ``frequent`` are given."""
    custom: CustomSettings = field(default_factory=CustomSettings)
    """What a model of your own is given: a plug-in's class, a function, a ``generate`` object."""
