"""The hf: backend on tiny random LLaVA-1.5 and Idefics3 models, on CPU, offline (more families: test_hf_families.py)."""

import shutil

import pytest
from fakes.tiny_models import build_tiny_idefics3, build_tiny_llava, mmmu_like_requests, png_bytes

from mmmu_eval.backends.base import Backend
from mmmu_eval.backends.local_chat import chat_messages, resolve_sampling
from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.backends.settings import HFSettings
from mmmu_eval.core.config import RunConfig
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

# torch and transformers: a skip locally, a failure under CI (tests/conftest.py hf_extra).
pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]

MAX_TOKENS = 10


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("llava"))


@pytest.fixture(scope="module")
def idefics3_dir(tmp_path_factory):
    return build_tiny_idefics3(tmp_path_factory.mktemp("idefics3"))


def png(color, size=(40, 30)) -> bytes:
    return png_bytes(color, size)


async def run(backend: HFBackend, requests):
    await backend.preflight(requests)
    try:
        return {r.item_id: r async for r in backend.generate(requests)}
    finally:
        await backend.aclose()


@pytest.mark.parametrize("builder", [build_tiny_llava, build_tiny_idefics3], ids=["llava", "idefics3"])
async def test_batched_and_unbatched_greedy_generation_give_the_same_text(builder, tmp_path):
    model_dir = builder(tmp_path / "m")
    requests = mmmu_like_requests()
    one = await run(HFBackend(str(model_dir), batch_size=1), requests)
    four = await run(HFBackend(str(model_dir), batch_size=4), requests)
    assert set(one) == set(four) == {r.item_id for r in requests}
    assert {k: r.text for k, r in one.items()} == {k: r.text for k, r in four.items()}
    assert {k: r.prompt_tokens for k, r in one.items()} == {k: r.prompt_tokens for k, r in four.items()}
    assert any(r.text.strip() for r in one.values())


async def test_responses_carry_token_counts_and_truncation(llava_dir):
    responses = await run(HFBackend(str(llava_dir), batch_size=4), mmmu_like_requests(3))
    for r in responses.values():
        # A random model rarely says its end token in 10 steps; when it does the status is ok.
        assert (r.status, r.finish_reason) in {("truncated", "length"), ("ok", "stop")}
        assert 1 <= r.completion_tokens <= MAX_TOKENS
        assert r.prompt_tokens > 20 and r.latency_s >= 0 and r.error is None


async def test_two_image_prompts_cost_more_prompt_tokens_than_one_image_prompts(llava_dir):
    """Each image expands into its image tokens, counted without the left padding."""
    requests = mmmu_like_requests(2)  # dev_Art_0: one image; dev_Art_1: two
    responses = await run(HFBackend(str(llava_dir), batch_size=2), requests)
    tokens_per_image = (32 // 8) ** 2  # CLIP patches of the tiny vision tower, CLS token dropped
    difference = responses["dev_Art_1"].prompt_tokens - responses["dev_Art_0"].prompt_tokens
    assert difference > tokens_per_image


async def test_a_corrupt_image_fails_only_its_own_item(llava_dir):
    requests = mmmu_like_requests(3)
    bad = Request("dev_Art_bad", (TextPart("Q "), ImagePart(ImageRef.from_bytes("image_1", b"\x89PNG\r\n\x1a\nbroken"))),
                  generation=GenerationSettings(max_tokens=MAX_TOKENS))
    responses = await run(HFBackend(str(llava_dir), batch_size=4), [*requests, bad])
    assert responses["dev_Art_bad"].status == "error"
    assert responses["dev_Art_bad"].error.startswith("dev_Art_bad: image_1")
    assert all(responses[r.item_id].status != "error" for r in requests)


async def test_the_models_own_template_renders_the_prompt_and_render_shows_it_exactly(llava_dir):
    """llava-hf's LLaVA-1.5 template: no system header, images first, a space after each text part."""
    backend = HFBackend(str(llava_dir))
    request = Request("x", (TextPart("before "), ImagePart(ImageRef.from_bytes("image_1", png((1, 2, 3)))), TextPart(" after")),
                      system="Answer briefly.")
    prompt = backend.render(request)
    assert prompt == "Answer briefly. USER: <image>\nbefore   after ASSISTANT:"
    assert prompt == backend._processor.apply_chat_template(chat_messages(request), add_generation_prompt=True, tokenize=False)
    assert backend._model is None  # rendering needs the processor only
    assert backend.layout_of(request, prompt) == "images-first"


async def test_end_token_stops_the_answer_and_is_not_in_the_text(llava_dir):
    backend = HFBackend(str(llava_dir))
    await backend.preflight([])
    tokenizer = backend._processor.tokenizer
    word = tokenizer.encode("cat", add_special_tokens=False)
    request = Request("x", (TextPart("t"),))
    row = [*word, tokenizer.eos_token_id, tokenizer.pad_token_id, tokenizer.pad_token_id]
    response = backend._response(request, row, 12, resolve_sampling(GenerationSettings(max_tokens=5)), 0.5)
    assert (response.status, response.finish_reason, response.text) == ("ok", "stop", "cat")
    assert (response.completion_tokens, response.prompt_tokens) == (len(word) + 1, 12)


async def test_a_text_only_request_generates_without_images(llava_dir):
    request = Request("t", (TextPart("Question: 2 + 2?"),), generation=GenerationSettings(max_tokens=4))
    responses = await run(HFBackend(str(llava_dir)), [request])
    assert responses["t"].status != "error" and responses["t"].completion_tokens >= 1


async def test_sampling_with_a_seed_is_reproducible_and_is_not_greedy(llava_dir):
    """Two runs with one seed agree; and they really sample: greedy decoding, or another seed,
    gives other text (with the seed ignored, or sampling never switched on, this still failed)."""
    plain = mmmu_like_requests(4, max_tokens=8)

    def texts(responses):
        return {k: r.text for k, r in responses.items()}

    def sampled(seed):
        return [Request(r.item_id, r.parts, generation=GenerationSettings(max_tokens=8, temperature=1.0, seed=seed))
                for r in plain]

    first = await run(HFBackend(str(llava_dir), batch_size=2), sampled(7))
    second = await run(HFBackend(str(llava_dir), batch_size=2), sampled(7))
    greedy = await run(HFBackend(str(llava_dir), batch_size=2), plain)
    other_seed = await run(HFBackend(str(llava_dir), batch_size=2), sampled(8))
    assert texts(first) == texts(second)
    assert texts(first) != texts(greedy)
    assert texts(first) != texts(other_seed)


async def test_a_missing_model_directory_is_a_config_error_before_any_request(tmp_path):
    backend = HFBackend(str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="no such model directory"):
        await backend.preflight(mmmu_like_requests(1))


async def test_a_directory_that_is_not_a_model_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot load a vision-language model"):
        await HFBackend(str(tmp_path)).preflight(mmmu_like_requests(1))


async def test_a_template_that_refuses_the_system_role_stops_the_run_in_preflight(llava_dir, tmp_path):
    model_dir = tmp_path / "strict"
    shutil.copytree(llava_dir, model_dir)
    (model_dir / "chat_template.jinja").write_text(
        "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
        + (llava_dir / "chat_template.jinja").read_text()
    )
    request = Request("dev_Art_0", (TextPart("Q"),), system="Be brief.")
    with pytest.raises(ConfigError, match=r"dev_Art_0.*System role not supported.*--system-prompt"):
        await HFBackend(str(model_dir)).preflight([request])


async def test_a_batch_that_fails_whole_is_retried_item_by_item(llava_dir, tmp_path, caplog):
    """A prompt the chat template refuses sinks the batch it is in; its neighbours must still be
    answered (each alone) and only that item stored as an error naming it and the reason."""
    import logging

    model_dir = tmp_path / "picky"
    shutil.copytree(llava_dir, model_dir)
    (model_dir / "chat_template.jinja").write_text(
        "{% for m in messages %}{% for c in m['content'] if c['type'] == 'text' and 'EXPLODE' in c['text'] %}"
        "{{ raise_exception('cannot render EXPLODE') }}{% endfor %}{% endfor %}"
        + (llava_dir / "chat_template.jinja").read_text()
    )
    requests = mmmu_like_requests(4)
    culprit = Request("dev_Art_bad", (TextPart("Question: EXPLODE "), *requests[2].parts[1:]), choices=("A", "B", "C"),
                      generation=requests[2].generation)
    batch = [requests[0], requests[2], culprit, requests[1]]  # the culprit is not first: preflight renders the first
    alone = await run(HFBackend(str(llava_dir), batch_size=1), [requests[0], requests[2], requests[1]])
    with caplog.at_level(logging.WARNING, logger="mmmu_eval.backends.hf_transformers"):
        responses = await run(HFBackend(str(model_dir), batch_size=4), batch)
    assert "a batch of 4 failed" in caplog.text and "retrying its items one by one" in caplog.text
    bad = responses["dev_Art_bad"]
    assert bad.status == "error" and bad.error.startswith("dev_Art_bad: ") and "cannot render EXPLODE" in bad.error
    for request in (requests[0], requests[2], requests[1]):
        assert (responses[request.item_id].status, responses[request.item_id].text) == (
            alone[request.item_id].status, alone[request.item_id].text)


@pytest.mark.parametrize(
    "kwargs, flag",
    [({"batch_size": 0}, "--batch-size"), ({"dtype": "fp8"}, "--dtype"), ({"device": "tpu"}, "--device")],
)
def test_bad_settings_name_their_flag(kwargs, flag):
    with pytest.raises(ConfigError, match=flag):
        HFBackend("x", **kwargs)


def test_from_settings_reads_the_run_configuration_and_describes_itself():
    config = RunConfig(model="hf:/m", batch_size=3, dtype="float32", device="cpu", trust_remote_code=True)
    backend = HFBackend.from_settings("/m", backend_settings(config).hf)
    assert isinstance(backend, Backend)
    assert backend.spec == "hf:/m"
    described = backend.describe()
    assert {k: described[k] for k in ("backend", "model", "batch_size", "dtype", "device", "trust_remote_code")} == {
        "backend": "hf", "model": "/m", "batch_size": 3, "dtype": "float32", "device": "cpu", "trust_remote_code": True,
    }
    assert HFBackend.from_settings("/m", HFSettings()).batch_size == 8


def test_batches_sort_by_image_count_then_length_and_never_mix_generation_settings():
    backend = HFBackend("x", batch_size=2)
    requests = mmmu_like_requests(5)  # 0, 2, 4: one image; 1, 3: two; extra options: 4 and 1 one, 2 two
    odd = Request("other", requests[0].parts, generation=GenerationSettings(max_tokens=99))
    batches = backend.batches([odd, *requests])
    assert [[r.item_id for r in b] for b in batches] == [
        ["dev_Art_0", "dev_Art_4"],
        ["dev_Art_2", "dev_Art_3"],
        ["dev_Art_1"],
        ["other"],
    ]


def test_text_only_requests_are_never_batched_with_image_requests():
    backend = HFBackend("x", batch_size=8)
    text_only = Request("t", (TextPart("Question?"),), generation=GenerationSettings(max_tokens=MAX_TOKENS))
    batches = backend.batches([*mmmu_like_requests(2), text_only])
    assert [[r.item_id for r in b] for b in batches] == [["t"], ["dev_Art_0", "dev_Art_1"]]


async def test_max_image_pixels_down_scales_and_notes_it_in_the_response(llava_dir):
    requests = mmmu_like_requests(2)  # images of 40x30 (and 24x48)
    responses = await run(HFBackend(str(llava_dir), max_image_pixels=300), requests)
    assert [n.split(":")[0] for n in responses["dev_Art_1"].notes] == ["image_1 (image 1 of the prompt)",
                                                                       "image_2 (image 2 of the prompt)"]
    assert responses["dev_Art_0"].status != "error"


async def test_chat_template_kwargs_in_extra_body_reach_the_models_template(llava_dir, tmp_path):
    model_dir = tmp_path / "thinking"
    shutil.copytree(llava_dir, model_dir)
    template = (llava_dir / "chat_template.jinja").read_text()
    (model_dir / "chat_template.jinja").write_text(
        template + "{% if enable_thinking is defined and not enable_thinking %} /no_think{% endif %}"
    )
    plain = mmmu_like_requests(1)[0]
    off = Request("off", plain.parts, generation=GenerationSettings(
        max_tokens=MAX_TOKENS, extra_body=(("chat_template_kwargs", {"enable_thinking": False}),)))
    responses = await run(HFBackend(str(model_dir), batch_size=2), [plain, off])
    assert responses["off"].prompt_tokens > responses[plain.item_id].prompt_tokens


async def test_a_template_kept_only_in_tokenizer_config_is_used(llava_dir, tmp_path, caplog):
    """Older conversions keep the chat template in tokenizer_config.json alone."""
    import json
    import logging

    model_dir = tmp_path / "old-style"
    shutil.copytree(llava_dir, model_dir)
    template = (model_dir / "chat_template.jinja").read_text()
    (model_dir / "chat_template.jinja").unlink()
    config = json.loads((model_dir / "tokenizer_config.json").read_text())
    (model_dir / "tokenizer_config.json").write_text(json.dumps({**config, "chat_template": template}))
    requests = mmmu_like_requests(2)
    with caplog.at_level(logging.INFO, logger="mmmu_eval.backends.hf_inputs"):
        responses = await run(HFBackend(str(model_dir)), requests)
    assert "using the chat template of tokenizer_config.json" in caplog.text
    alone = await run(HFBackend(str(llava_dir)), requests)
    assert {k: (r.status, r.text, r.prompt_tokens) for k, r in responses.items()} == {
        k: (r.status, r.text, r.prompt_tokens) for k, r in alone.items()}


async def test_a_checkpoint_without_any_chat_template_is_refused_naming_both_places(llava_dir, tmp_path):
    model_dir = tmp_path / "base"
    shutil.copytree(llava_dir, model_dir)
    (model_dir / "chat_template.jinja").unlink()
    with pytest.raises(ConfigError, match=r"no chat template \(neither chat_template.jinja / .json nor tokenizer_config.json"):
        await HFBackend(str(model_dir)).preflight(mmmu_like_requests(1))


async def test_a_template_that_fails_without_refusing_is_not_called_a_refusal(llava_dir, tmp_path):
    """A template bug (here: a filter on a missing variable) is named as what it is."""
    model_dir = tmp_path / "buggy"
    shutil.copytree(llava_dir, model_dir)
    (model_dir / "chat_template.jinja").write_text("{{ messages[0]['content'][0]['text'] | nonexistent_filter }}")
    with pytest.raises(ConfigError) as err:
        await HFBackend(str(model_dir)).preflight(mmmu_like_requests(1))
    message = str(err.value)
    assert "could not render the prompt of dev_Art_0" in message and "nonexistent_filter" in message
    assert "rejects" not in message


async def test_a_processor_that_needs_torchvision_names_it_and_the_families_that_do(llava_dir, tmp_path):
    """The processors with a video processor need torchvision (4.57 and 5.x); LLaVA's does not."""
    import importlib.util
    import json

    if importlib.util.find_spec("torchvision") is not None:
        pytest.skip("torchvision is installed here: nothing is missing")
    model_dir = tmp_path / "onevision"
    shutil.copytree(llava_dir, model_dir)
    config = json.loads((model_dir / "processor_config.json").read_text())
    (model_dir / "processor_config.json").write_text(json.dumps({**config, "processor_class": "LlavaOnevisionProcessor"}))
    (model_dir / "video_preprocessor_config.json").write_text(json.dumps(
        {"video_processor_type": "LlavaOnevisionVideoProcessor", "processor_class": "LlavaOnevisionProcessor"}))
    with pytest.raises(ConfigError) as err:
        await HFBackend(str(model_dir)).preflight(mmmu_like_requests(1))
    message = str(err.value)
    assert "needs torchvision, which is not installed (" in message
    assert "VideoProcessor requires the Torchvision library" in message  # transformers' own words, named
    for family in ("Qwen-VL family", "LLaVA-OneVision", "InternVL", "SmolVLM2", "Pixtral"):
        assert family in message
    assert "Gemma" not in message and "Idefics3" not in message


def test_a_missing_package_named_only_further_down_the_chain_is_the_one_named():
    """transformers 4.57 loading SmolVLM2 without torchvision: "Could not import module
    'SmolVLMProcessor'", raised from the import of torchvision; likewise num2words."""
    from mmmu_eval.backends.hf_inputs import missing_package_hint

    def raised(inner: ModuleNotFoundError) -> ImportError:
        try:
            try:
                raise inner
            except ModuleNotFoundError as exc:
                raise ModuleNotFoundError(
                    "Could not import module 'SmolVLMProcessor'. Are this object's requirements defined correctly?"
                ) from exc
        except ModuleNotFoundError as outer:
            return outer

    torchvision = missing_package_hint(raised(ModuleNotFoundError("No module named 'torchvision'", name="torchvision")))
    assert "needs torchvision, which is not installed (Could not import module 'SmolVLMProcessor')" in torchvision
    assert "SmolVLM2" in torchvision and "on 4.x all of them but Pixtral / Mistral3" in torchvision
    num2words = missing_package_hint(raised(ModuleNotFoundError("No module named 'num2words'", name="num2words")))
    assert "a package that is missing (num2words)" in num2words and "torchvision" not in num2words


async def test_inputs_the_model_does_not_take_are_dropped_before_generate(llava_dir, tmp_path):
    """transformers 4.x tokenizers return token_type_ids, which generate refuses for LLaVA;
    Gemma 3's forward names them, and keeps them."""
    import torch
    from fakes.tiny_models import build_tiny_gemma3

    from mmmu_eval.backends.hf_inputs import forward_inputs

    for model_dir, kept in ((llava_dir, False), (build_tiny_gemma3(tmp_path / "gemma3"), True)):
        backend = HFBackend(str(model_dir))
        await backend.preflight([])
        inputs = backend._processor(text=["USER: hello ASSISTANT:"], return_tensors="pt")
        inputs["token_type_ids"] = torch.zeros_like(inputs["input_ids"])
        assert ("token_type_ids" in forward_inputs(backend._model, inputs)) is kept
        assert "input_ids" in inputs and "attention_mask" in inputs
        backend._model.generate(**inputs, max_new_tokens=1)  # what generate is given, it takes
        await backend.aclose()
