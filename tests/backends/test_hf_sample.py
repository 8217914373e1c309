"""The bundled sample's real prompts and images through the hf: backend on the tiny models."""

import pytest
from fakes.tiny_models import build_tiny_idefics3, build_tiny_llava

from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.prompt import EvalProtocol, build_request

# torch and transformers: a skip locally, a failure under CI (tests/conftest.py hf_extra).
pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]


def sample_requests(benchmark: str, **selection):
    config = RunConfig(model="hf:x", benchmark=benchmark, data="sample", max_tokens=4, **selection)
    protocol = EvalProtocol.from_config(config)
    dataset = load_benchmark(benchmark, data="sample", split=config.split, setting=config.setting)
    return [build_request(item, protocol) for item in dataset.items]


@pytest.mark.parametrize(
    "builder, benchmark, selection",
    [
        (build_tiny_llava, "mmmu", {"split": "dev"}),
        (build_tiny_idefics3, "mmmu", {"split": "dev"}),
        (build_tiny_llava, "mmmu-pro", {"setting": "standard-10"}),  # up to 7 images per prompt
    ],
    ids=["llava-mmmu-dev", "idefics3-mmmu-dev", "llava-pro-standard-10"],
)
async def test_every_sample_item_gets_an_answer(builder, benchmark, selection, tmp_path):
    requests = sample_requests(benchmark, **selection)
    backend = HFBackend(str(builder(tmp_path / "m")), batch_size=8, device="cpu")
    await backend.preflight(requests)
    responses = {r.item_id: r async for r in backend.generate(requests)}
    await backend.aclose()
    assert set(responses) == {r.item_id for r in requests}
    errors = {k: r.error for k, r in responses.items() if r.status == "error"}
    assert errors == {}
    # Each prompt's images became image tokens: more images, more prompt tokens.
    by_images = sorted(requests, key=lambda r: len(r.images))
    assert responses[by_images[-1].item_id].prompt_tokens > responses[by_images[0].item_id].prompt_tokens
