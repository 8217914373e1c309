"""The one adapter from a run's configuration to what each backend is told.

``RunConfig`` holds every knob of a run; a backend gets only its own record
(``backends/settings.py``). This is the only place that reads backend knobs off a RunConfig:
``evaluate``, the suite, harden's augment step and the dry run all build their backends'
settings here, so a new flag reaches its backend through one line.

>>> from mmmu_eval.core.config import RunConfig
>>> settings = backend_settings(RunConfig(model="hf:/m", batch_size=4, seed=3, concurrency=2))
>>> settings.hf.batch_size, settings.vllm.seed, settings.baseline.seed, settings.openai.concurrency
(4, 3, 3, 2)
"""

from __future__ import annotations

from mmmu_eval.backends.settings import (
    BackendSettings,
    BaselineSettings,
    CustomSettings,
    FixedAnswers,
    HFSettings,
    OpenAISettings,
    VLLMSettings,
)
from mmmu_eval.core.config import RunConfig

__all__ = ["backend_settings"]


def backend_settings(config: RunConfig, *, fixed_answers: FixedAnswers | None = None) -> BackendSettings:
    """Each backend kind's settings, from the run's configuration.

    Args:
        config: the run's configuration.
        fixed_answers: ``frequent``'s answers (``run/prepare.frequent_answers`` over the run's
            items); None where there are none to give (no items yet, or no gold answers).
    """
    c = config
    return BackendSettings(
        openai=OpenAISettings(
            base_urls=c.base_urls, api_key_env=c.api_key_env, concurrency=c.concurrency, max_attempts=c.max_attempts,
            request_timeout=c.request_timeout, probe_timeout=c.probe_timeout, max_image_pixels=c.max_image_pixels,
            max_response_bytes=c.max_response_bytes,
        ),
        hf=HFSettings(batch_size=c.batch_size, dtype=c.dtype, device=c.device, trust_remote_code=c.trust_remote_code,
                      max_image_pixels=c.max_image_pixels),
        vllm=VLLMSettings(
            batch_size=c.batch_size, dtype=c.dtype, trust_remote_code=c.trust_remote_code,
            tensor_parallel_size=c.tensor_parallel_size, pipeline_parallel_size=c.pipeline_parallel_size,
            data_parallel_size=c.data_parallel_size, seed=c.seed, max_image_pixels=c.max_image_pixels,
        ),
        baseline=BaselineSettings(seed=c.seed, fixed_answers=fixed_answers),
        custom=CustomSettings(
            concurrency=c.concurrency, max_attempts=c.max_attempts, request_timeout=c.request_timeout,
            max_image_pixels=c.max_image_pixels, batch_size=c.batch_size, dtype=c.dtype, device=c.device,
            trust_remote_code=c.trust_remote_code, seed=c.seed, base_urls=c.base_urls, api_key_env=c.api_key_env,
        ),
    )
