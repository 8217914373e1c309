"""The hf: backend on tiny models of the families users evaluate, each with its checkpoint's real
chat template and special tokens (tests/fakes/chat_templates): LLaVA-1.5 (llava-hf's template
writes every image first), Idefics3 (SmolVLM-Instruct's) and Gemma 3 (gemma-3-it's) need no
torchvision and run on transformers 4.x and 5.x (``make test`` runs them under 4.57 too);
Qwen2-VL, Qwen2.5-VL, Qwen3-VL, LLaVA-OneVision (images first too), InternVL (InternVL3-hf's
template), SmolVLM2, Mistral3 (Mistral-Small-3.1's template) and Pixtral (LLaVA, pixtral-12b's template) need
torchvision on transformers 5, and run where it is installed (``make test-torchvision``, marker
``torchvision``). On 4.x their Pixtral processor needs no torchvision, so the 4.57 session runs
Mistral3 and Pixtral; the others skip there.

For each: every item answered; batch sizes 1, 4 and 8 give the same greedy text; each image
reaches the slot of its ``<image N>`` (replace one image with noise, and exactly the embeddings
of the N-th image's tokens change); and the run records the layout the model's template gave.
"""

import io
import logging

import numpy as np
import pytest
from fakes.tiny_models import build_tiny_gemma3, build_tiny_idefics3, build_tiny_llava, mmmu_like_requests, png_bytes

from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

# torch and transformers: a skip locally, a failure under CI (tests/conftest.py hf_extra).
pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]

BUILDERS = {"llava-1.5": build_tiny_llava, "idefics3": build_tiny_idefics3, "gemma3": build_tiny_gemma3}
# Families whose processors need torchvision: run by `make test-torchvision` (marker torchvision).
NEED_TORCHVISION = {"qwen2-vl": ("build_tiny_qwen2_vl", {}), "qwen2.5-vl": ("build_tiny_qwen2_vl", {"version": "2.5"}),
                    "qwen3-vl": ("build_tiny_qwen3_vl", {}), "llava-onevision": ("build_tiny_llava_onevision", {}),
                    "internvl": ("build_tiny_internvl", {}), "smolvlm2": ("build_tiny_smolvlm2", {}),
                    "mistral3": ("build_tiny_mistral3", {}),
                    "pixtral-12b": ("build_tiny_mistral3", {"checkpoint": "pixtral-12b"})}
# ... on transformers 5 only: 4.x's Pixtral processor has no video processor and a PIL image one.
TORCHVISION_ON_5_ONLY = {"mistral3", "pixtral-12b"}
# The layout each real template gives a question with text before its images.
LAYOUT = {"llava-1.5": "images-first", "idefics3": "interleaved", "gemma3": "interleaved",
          "qwen2-vl": "interleaved", "qwen2.5-vl": "interleaved", "qwen3-vl": "interleaved",
          "llava-onevision": "images-first", "internvl": "interleaved", "smolvlm2": "interleaved",
          "mistral3": "interleaved", "pixtral-12b": "interleaved"}
FAMILIES = sorted(BUILDERS) + [pytest.param(name, marks=pytest.mark.torchvision) for name in sorted(NEED_TORCHVISION)]


@pytest.fixture(scope="module", params=FAMILIES)
def family(request, tmp_path_factory):
    name = request.param
    if name in NEED_TORCHVISION:
        import transformers

        from mmmu_eval.backends.hf_inputs import release

        if name not in TORCHVISION_ON_5_ONLY or release(transformers) >= (5,):
            pytest.importorskip("torchvision", reason="its processor needs torchvision: make test-torchvision")
        from fakes import tiny_models_torchvision

        builder, options = NEED_TORCHVISION[name]
        return name, getattr(tiny_models_torchvision, builder)(tmp_path_factory.mktemp(name), **options)
    return name, BUILDERS[name](tmp_path_factory.mktemp(name))


async def answers(backend: HFBackend, requests):
    await backend.preflight(requests)
    try:
        return {r.item_id: r async for r in backend.generate(requests)}
    finally:
        await backend.aclose()


async def test_every_item_is_answered_and_batches_of_1_4_and_8_give_the_same_text(family):
    _, model_dir = family
    requests = mmmu_like_requests(9)
    runs = [await answers(HFBackend(str(model_dir), batch_size=size), requests) for size in (1, 4, 8)]
    for run in runs:
        assert set(run) == {r.item_id for r in requests}
        assert all(r.status in ("ok", "truncated") and r.completion_tokens >= 1 for r in run.values())
    texts = [{k: (r.text, r.prompt_tokens) for k, r in run.items()} for run in runs]
    assert texts[0] == texts[1] == texts[2]


def noise_png(seed: int, size: tuple[int, int]) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    return buf.getvalue()


def three_image_request(images) -> Request:
    parts = [TextPart("Compare <image 1>: ")]
    for n, data in enumerate(images, start=1):
        parts.append(ImagePart(ImageRef.from_bytes(f"image_{n}", data)))
        parts.append(TextPart(f" with the next one, <image {n + 1}>: " if n < 3 else "\nAnswer with the letter."))
    return Request("validation_Art_9", tuple(parts), generation=GenerationSettings(max_tokens=2))


class Capture:
    """The prompt's token ids and the embeddings the language model receives, at the first step."""

    def __init__(self, model):
        self.ids, self.embeds = [], []
        inner = model.model
        decoder = getattr(inner, "language_model", None) or inner.text_model
        self.handles = [
            model.register_forward_pre_hook(self._ids, with_kwargs=True),
            decoder.register_forward_pre_hook(self._embeds, with_kwargs=True),
        ]

    def _ids(self, _module, _args, kwargs):
        if kwargs.get("input_ids") is not None:
            self.ids.append(kwargs["input_ids"][0].tolist())

    def _embeds(self, _module, _args, kwargs):
        self.embeds.append(kwargs["inputs_embeds"][0].detach().clone())


async def test_each_image_reaches_the_slot_of_its_image_token(family):
    """Noise in image N changes the embeddings of image tokens only, and the N-th group of them in
    prompt order: no image is bound to another's slot, whatever the template did with the text
    around them (adjacent images, as in an images-first prompt, make one run of image tokens)."""
    name, model_dir = family
    sizes = [(40, 30), (24, 48), (50, 20)]
    pictures = [png_bytes(color, size) for color, size in zip([(200, 30, 30), (30, 200, 30), (30, 30, 200)], sizes)]
    backend = HFBackend(str(model_dir), batch_size=1)
    await backend.preflight([three_image_request(pictures)])
    capture = Capture(backend._model)
    token = backend._model.config.image_token_id
    try:
        seen = []
        for changed in (None, 0, 1, 2):
            # noise of the same size: the token count of Qwen's and OneVision's images follows it
            images = [noise_png(i, sizes[i]) if i == changed else p for i, p in enumerate(pictures)]
            capture.ids.clear(), capture.embeds.clear()
            response = [r async for r in backend.generate([three_image_request(images)])][0]
            assert response.status in ("ok", "truncated"), response.error
            seen.append((capture.ids[0], capture.embeds[0]))
    finally:
        for handle in capture.handles:
            handle.remove()
        await backend.aclose()
    base_ids, base = seen[0]
    image_tokens = {at for at, t in enumerate(base_ids) if t == token}
    moved = []
    for n, (ids, embeds) in enumerate(seen[1:]):
        assert ids == base_ids
        positions = set((embeds - base).abs().sum(dim=-1).nonzero().flatten().tolist())
        assert positions and positions <= image_tokens, f"noise in image {n + 1} changed positions {sorted(positions)}"
        moved.append(positions)
    # image 1 fills the first image tokens, image 2 the next, image 3 the last; together all of
    # them but LLaVA-OneVision's image_newline (one learned token per image, whatever its pixels)
    assert max(moved[0]) < min(moved[1]) and max(moved[1]) < min(moved[2])
    assert len(image_tokens - (moved[0] | moved[1] | moved[2])) <= (3 if name == "llava-onevision" else 0)


async def test_the_run_records_the_layout_the_models_template_gave(family, caplog):
    name, model_dir = family
    requests = mmmu_like_requests(4)  # text before every image: interleaved asked
    backend = HFBackend(str(model_dir))
    with caplog.at_level(logging.WARNING, logger="mmmu_eval.backends.hf_transformers"):
        await backend.preflight(requests)
        layout = await backend.effective_layout(requests, "interleaved")
    await backend.aclose()
    assert layout == LAYOUT[name]
    warned = [r for r in caplog.records if "does not keep --image-layout interleaved" in r.getMessage()]
    assert len(warned) == (0 if layout == "interleaved" else 1)
    if warned:
        assert "the model saw images-first" in warned[0].getMessage() and "data show dev_Art_0" in warned[0].getMessage()


async def test_a_template_that_keeps_the_order_asked_reads_as_the_layout_asked(tmp_path):
    """LLaVA-1.5's template puts images first: requests built images-first see what was asked;
    interleaved ones are named by what the model saw."""
    model_dir = build_tiny_llava(tmp_path / "llava")
    first = [Request(r.item_id, tuple(sorted(r.parts, key=lambda p: not isinstance(p, ImagePart))), generation=r.generation)
             for r in mmmu_like_requests(3)]
    backend = HFBackend(str(model_dir))
    assert await backend.effective_layout(first, "images-first") == "images-first"
    assert await backend.effective_layout(mmmu_like_requests(3), "interleaved") == "images-first"
