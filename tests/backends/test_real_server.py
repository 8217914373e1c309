"""The OpenAI backend against a real OpenAI-compatible server: ``transformers serve`` on CPU,
serving a tiny random LLaVA built offline (``fakes.tiny_models``).

This is the check that our request bodies are what real servers parse: data-URL images reach
the vision tower (the prompt grows by the image tokens), usage and finish reasons come back,
and ``mmmu-eval run --model openai:PATH --base-url URL`` evaluates the sample end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mmmu_eval.prompt.images import tiny_png
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.settings import OpenAISettings
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

pytestmark = pytest.mark.slow


@pytest.fixture
def served(served_tiny_llava):
    """(model path, base URL) of the session's ``transformers serve`` (tests/conftest.py)."""
    return served_tiny_llava


def image(n: int) -> ImagePart:
    return ImagePart(ImageRef.from_bytes(f"image_{n}", tiny_png(n, size=64)))


async def test_images_reach_the_model_and_usage_comes_back(served):
    model, url = served
    settings = GenerationSettings(max_tokens=4, temperature=0.0)
    requests = [
        Request("one_image", parts=(TextPart("Question: what is shown in "), image(1), TextPart("?")), generation=settings),
        Request("two_images", parts=(TextPart("Question: what is shown in "), image(1), image(2), TextPart("?")),
                generation=settings),
        Request("system", parts=(TextPart("Question: what is shown in "), image(1), TextPart("?")),
                system="Answer with a letter.", generation=settings),
    ]
    backend = OpenAIBackend(model, base_urls=[url], api_key="EMPTY", concurrency=4)
    try:
        await backend.preflight(requests)
        responses = {r.item_id: r async for r in backend.generate(requests)}
    finally:
        await backend.aclose()
    assert set(responses) == {"one_image", "two_images", "system"}
    for r in responses.values():
        assert r.status in ("ok", "truncated") and r.error is None, r
        assert r.finish_reason in ("stop", "length")
        assert (r.status == "truncated") == (r.finish_reason == "length")
        assert r.prompt_tokens and 1 <= r.completion_tokens <= 4 and r.latency_s > 0
    # A 64x64 image becomes 32x32 in 8x8 patches: 16 image tokens more for the second image.
    assert responses["two_images"].prompt_tokens - responses["one_image"].prompt_tokens >= 16
    assert responses["system"].prompt_tokens > responses["one_image"].prompt_tokens


async def test_preflight_names_the_models_the_server_has(served):
    model, url = served
    backend = OpenAIBackend("llava-hf/llava-1.5-7b-hf", base_urls=[url], api_key="EMPTY")
    try:
        with pytest.raises(ConfigError, match=f"it serves: {model}"):
            await backend.preflight([Request("a", parts=(TextPart("q"),))])
    finally:
        await backend.aclose()


def test_from_settings_needs_no_key_for_a_local_server(served, monkeypatch):
    model, url = served
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = OpenAIBackend.from_settings(model, OpenAISettings(base_urls=(url,)))
    assert backend.describe()["base_urls"] == [url]


def test_cli_run_evaluates_the_sample_end_to_end(served, tmp_path):
    model, url = served
    out = tmp_path / "run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "mmmu_eval", "run", "--benchmark", "mmmu", "--split", "validation",
         "--data", "sample", "--model", f"openai:{model}", "--base-url", url, "--max-tokens", "4",
         "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    ids = [line["item_id"] for line in lines]
    assert len(ids) == len(set(ids)) == 40, "every sample item answered exactly once"
    assert {line["status"] for line in lines} <= {"ok", "truncated"}
    assert all(line["prompt_tokens"] for line in lines)
    assert (out / "results.json").exists()
