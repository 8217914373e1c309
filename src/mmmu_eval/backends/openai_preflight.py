"""The OpenAI backend's preflight: before the first item, each endpoint answers, serves the model,
and takes as many images in one request as the run needs.

Two requests per endpoint, each with a short retry budget of its own: a server that accepts
connections but never answers must stop the run within seconds, not after the full request
timeout times every attempt. The model listing (``GET /models``) goes first, and may go out
before the data is read (``OpenAIBackend.contact``); it finds a wrong key, a wrong URL and a
model the server does not serve. The probe (a chat request as wide as the run's widest, from
``openai_body.preflight_probe``) finds a server that refuses several images; its bytes and
reported tokens are counted into the run's usage (``backends.base.PREFLIGHT_SENT``).
Every failure is a ``ConfigError`` naming the endpoint and the fix.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from typing import Any, Callable

from mmmu_eval.backends.base import PREFLIGHT_SENT
from mmmu_eval.backends.openai_errors import classify_preflight, classify_probe, redacting
from mmmu_eval.backends.openai_http import Endpoint
from mmmu_eval.backends.openai_servers import without_credentials
from mmmu_eval.backends.openai_wire import loads
from mmmu_eval.backends.retry import RetryPolicy, call_with_retries
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request, is_count

__all__ = ["DEFAULT_PROBE_TIMEOUT", "PREFLIGHT_LISTING_ATTEMPTS", "PREFLIGHT_LISTING_TIMEOUT", "PREFLIGHT_MAX_ATTEMPTS", "check_listing",
           "preflight_policy", "probe"]

log = logging.getLogger(__name__)

#: The start-up probe (a chat request) tries at most this often. Five: on a shared server failing
#: 30% of requests, three tries lost about one run start in 40 to passing faults (0.3**3); five
#: lose one in 400, and a server that always fails still stops the run within about 12 s.
PREFLIGHT_MAX_ATTEMPTS = 5
#: The model listing tries at most this often, each waiting at most this long: it is what finds a
#: server that takes connections but never answers, so it stays short.
PREFLIGHT_LISTING_ATTEMPTS = 3
PREFLIGHT_LISTING_TIMEOUT = 30.0
#: Seconds the probe may take by default (``--probe-timeout``): its own limit, not the request
#: timeout, because a chat endpoint that hangs behind a working ``/models`` held the run silent
#: for the request timeout times every attempt (50 minutes at 600 s; issue 29). A cold server
#: answering one request with the run's widest image set still fits in it.
DEFAULT_PROBE_TIMEOUT = 60.0


def preflight_policy(policy: RetryPolicy, probe_timeout: float | None = None) -> RetryPolicy:
    """The run's retry policy, cut short for the preflight's requests: fewer attempts, shorter
    waits, and ``probe_timeout`` (default ``DEFAULT_PROBE_TIMEOUT``) per attempt."""
    limit = DEFAULT_PROBE_TIMEOUT if probe_timeout is None else probe_timeout
    return RetryPolicy(
        max_attempts=min(PREFLIGHT_MAX_ATTEMPTS, policy.max_attempts),
        base_delay=policy.base_delay,
        max_delay=min(10.0, policy.max_delay),
        timeout=limit if policy.timeout is None else min(limit, policy.timeout),
        timeout_flag="--probe-timeout",
    )


async def check_listing(
    endpoint: Endpoint, model: str, policy: RetryPolicy, *, sleep: Callable[[float], Any], rng: random.Random,
    probe_timeout: float | None = None,
) -> None:
    """The endpoint lists its models and ``model`` among them (an endpoint with no listing passes, with a warning).

    Raises:
        ConfigError: the key was rejected, the server cannot be reached, or it serves other models.
    """
    shown = without_credentials(endpoint.base_url)
    policy = preflight_policy(policy, probe_timeout)
    listing_policy = dataclasses.replace(
        policy, max_attempts=min(PREFLIGHT_LISTING_ATTEMPTS, policy.max_attempts),
        timeout=min(PREFLIGHT_LISTING_TIMEOUT, policy.timeout or PREFLIGHT_LISTING_TIMEOUT))

    async def served_models() -> list[str]:
        return _model_ids(loads(await endpoint.get(endpoint.models_url)))

    listing = await call_with_retries(
        served_models, redacting(classify_preflight, endpoint.redact), policy=listing_policy,
        item_id=f"preflight {shown}", sleep=sleep, rng=rng,
    )
    if listing.value is None:
        assert listing.failure is not None
        failure = listing.failure
        if "HTTP 404" not in failure.message and failure.stops_run:  # a refused key, an exhausted quota
            raise ConfigError(f"{shown}: {failure.stops_run}")
        if "HTTP 404" in failure.message:
            log.warning("%s has no /models listing (%s); not checking the model name", shown, failure.message)
        else:
            raise ConfigError(
                f"cannot reach {shown} ({failure.message}); start the server or fix --base-url "
                "(OpenAI-compatible servers usually end in /v1)"
            )
    elif listing.value and model not in listing.value:
        served = listing.value
        listed = ", ".join(served[:10]) + (" ..." if len(served) > 10 else "")
        raise ConfigError(
            f"model {model!r} is not served by {shown}; it serves: {listed}. "
            "Pass --model openai:<one of those>"
        )


async def probe(
    endpoint: Endpoint, model: str, body: bytes, widest: Request | None, policy: RetryPolicy, *,
    sleep: Callable[[float], Any], rng: random.Random, probe_timeout: float | None = None,
) -> None:
    """The endpoint answers the probe ``body`` (as many images as ``widest``, the run's widest request).

    Raises:
        ConfigError: it refused the images (with the vLLM flag that fixes it) or never answered.
    """
    shown = without_credentials(endpoint.base_url)
    policy = preflight_policy(policy, probe_timeout)
    n_images = len(widest.images) if widest else 0
    answer = await call_with_retries(
        lambda: endpoint.post_chat(body),
        redacting(classify_probe, endpoint.redact), policy=policy, item_id=f"preflight {shown}", sleep=sleep, rng=rng,
    )
    sent = PREFLIGHT_SENT.get()
    if sent is not None:
        sent.append({"bytes": len(body), "attempts": answer.attempts, **_reported_tokens(answer.value)})
    if answer.value is None:
        assert answer.failure is not None
        if answer.failure.stops_run:  # the key, the quota, the model or the path: not the images
            raise ConfigError(f"{shown}: {answer.failure.stops_run}")
        if answer.failure.kind == "final" and n_images > 1:
            assert widest is not None
            raise ConfigError(
                f"{shown} refused a request with {n_images} images ({answer.failure.message}); "
                f"the run needs up to {n_images} images in one request (item {widest.item_id}). "
                f"For vLLM start the server with --limit-mm-per-prompt '{{\"image\": {n_images}}}'; "
                "otherwise choose a server and model that take several images"
            )
        raise ConfigError(
            f"{shown} did not answer a probe request for {model!r} "
            f"after {answer.attempts} attempt(s): {answer.failure.message}"
        )


def _reported_tokens(answer: bytes | None) -> dict[str, int | None]:
    """The prompt and completion tokens a probe's answer reports (None where it reports none)."""
    try:
        usage = loads(answer or b"null").get("usage") or {}
    except (ValueError, AttributeError):
        usage = {}
    # Counts out of range (negative, 10**400) are no counts: the manifest must read back.
    return {k: usage.get(k) if is_count(usage.get(k)) else None for k in ("prompt_tokens", "completion_tokens")}


def _model_ids(listing: Any) -> list[str]:
    """The model ids of a ``/models`` answer; empty when it lists none in the usual shape."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return []
    return [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]
