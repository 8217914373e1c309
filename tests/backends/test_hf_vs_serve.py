"""The same tiny model answers the same through `transformers serve` + the API backend as in-process."""

import pytest
from fakes.tiny_models import mmmu_like_requests

from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.backends.openai_api import OpenAIBackend

pytestmark = pytest.mark.slow


@pytest.fixture
def served(served_tiny_llava):
    """(model directory, base URL) of the session's ``transformers serve`` (tests/conftest.py)."""
    return served_tiny_llava


async def test_served_model_gives_the_same_text_and_prompt_tokens_as_the_hf_backend(served):
    model_dir, base_url = served
    requests = mmmu_like_requests(3, max_tokens=8, temperature=0.0)
    local = HFBackend(str(model_dir), batch_size=4, device="cpu")
    await local.preflight(requests)
    in_process = {r.item_id: r async for r in local.generate(requests)}
    await local.aclose()

    api = OpenAIBackend(str(model_dir), base_urls=(base_url,), api_key="EMPTY", concurrency=1)
    try:
        over_http = {r.item_id: r async for r in api.generate(requests)}
    finally:
        await api.aclose()

    assert {k: r.status for k, r in over_http.items()} == {k: r.status for k, r in in_process.items()}
    assert {k: r.text for k, r in over_http.items()} == {k: r.text for k, r in in_process.items()}
    assert {k: r.prompt_tokens for k, r in over_http.items()} == {k: r.prompt_tokens for k, r in in_process.items()}
