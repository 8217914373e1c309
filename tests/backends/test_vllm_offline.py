"""The vllm: backend's request construction and flow, without vLLM installed (a fake engine)."""

import base64
import importlib.util
import io
from dataclasses import dataclass, field
from typing import Any

import pytest
from PIL import Image

from mmmu_eval.backends.base import Backend
from mmmu_eval.backends.local_chat import resolve_sampling
from mmmu_eval.backends.vllm_offline import (
    VLLMBackend,
    conversation,
    engine_kwargs,
    images_needed,
    response_from_output,
    sampling_kwargs,
)
from mmmu_eval.backends.settings import VLLMSettings
from mmmu_eval.core.config import RunConfig
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart


def png(color=(0, 128, 255), size=(6, 4)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def request(item_id="dev_Art_1", n_images=1, data=None, **kwargs) -> Request:
    parts: list = [TextPart("Question: ")]
    for i in range(n_images):
        parts += [ImagePart(ImageRef.from_bytes(f"image_{i + 1}", data or png())), TextPart(f" then {i}")]
    return Request(item_id, tuple(parts), **kwargs)


# -- fakes shaped like vLLM's LLM, SamplingParams and RequestOutput ----------------------------

@dataclass
class FakeCompletion:
    text: str
    token_ids: list[int]
    finish_reason: str


@dataclass
class FakeOutput:
    prompt_token_ids: list[int]
    outputs: list[FakeCompletion]


@dataclass
class FakeLLM:
    """Answers each conversation with the number of its image parts; records every call."""

    kwargs: dict[str, Any]
    calls: list[tuple[list, list]] = field(default_factory=list)
    fail_on: str | None = None  # text that makes a whole call raise, like an over-long prompt

    def chat(self, messages, sampling_params=None, use_tqdm=True):
        self.calls.append((messages, sampling_params))
        outputs = []
        for conv, params in zip(messages, sampling_params):
            texts = [c.get("text", "") for m in conv for c in m["content"] if c["type"] == "text"]
            if self.fail_on and any(self.fail_on in t for t in texts):
                raise ValueError("prompt is longer than the maximum model length")
            n_images = sum(c["type"] == "image_url" for m in conv for c in m["content"])
            finish = "length" if params["max_tokens"] <= 2 else "stop"
            outputs.append(FakeOutput(list(range(10 + n_images)), [FakeCompletion(f"images={n_images}", [1, 2], finish)]))
        return outputs


def make_backend(config=None, chunk_size=256, engines=None) -> VLLMBackend:
    engines = engines if engines is not None else []

    def engine(**kwargs):
        llm = FakeLLM(kwargs)
        engines.append(llm)
        return llm

    return VLLMBackend("org/model", backend_settings(config or RunConfig(model="vllm:org/model")).vllm, engine=engine,
                       sampling_params=lambda **kw: kw, chunk_size=chunk_size)


# -- pure construction ------------------------------------------------------------------------

def test_conversation_interleaves_data_urls_of_the_stored_bytes_in_prompt_order():
    first, second = png((255, 0, 0)), png((0, 255, 0))
    req = Request("x", (TextPart("A "), ImagePart(ImageRef.from_bytes("image_2", second)), TextPart(" B "),
                        ImagePart(ImageRef.from_bytes("image_1", first))), system="Sys")
    messages, notes = conversation(req)
    assert notes == ()
    assert messages[0] == {"role": "system", "content": [{"type": "text", "text": "Sys"}]}
    content = messages[1]["content"]
    assert [c["type"] for c in content] == ["text", "image_url", "text", "image_url"]
    sent = [base64.b64decode(c["image_url"]["url"].split(",", 1)[1]) for c in content if c["type"] == "image_url"]
    assert sent == [second, first]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_conversation_notes_down_scaled_images():
    _, notes = conversation(request(data=png(size=(100, 100))), max_image_pixels=100)
    assert len(notes) == 1 and "image_1" in notes[0] and "down-scaled" in notes[0]


def test_a_corrupt_image_is_a_data_error_naming_the_item():
    with pytest.raises(DataError, match="^dev_Bio_2: image_1"):
        conversation(request("dev_Bio_2", data=b"\xff\xd8\xffnot really a jpeg"))


@pytest.mark.parametrize(
    "requests, expected",
    [([], 1), ([request(n_images=0)], 1), ([request(n_images=2), request(n_images=7), request(n_images=1)], 7)],
)
def test_image_limit_is_the_most_images_any_request_needs(requests, expected):
    assert images_needed(requests) == expected


def test_a_repeated_image_counts_twice_toward_the_limit():
    ref = ImageRef.from_bytes("image_1", png())
    assert images_needed([Request("x", (ImagePart(ref), TextPart("and"), ImagePart(ref)))]) == 2


def test_engine_kwargs_from_the_run_configuration():
    config = RunConfig(model="vllm:m", dtype="bfloat16", tensor_parallel_size=4, trust_remote_code=True, seed=3)
    assert engine_kwargs("m", backend_settings(config).vllm, [request(n_images=3)]) == {
        "model": "m", "dtype": "bfloat16", "tensor_parallel_size": 4, "trust_remote_code": True,
        "limit_mm_per_prompt": {"image": 3}, "seed": 3,
    }
    defaults = engine_kwargs("m", VLLMSettings(), [])
    assert (defaults["dtype"], defaults["tensor_parallel_size"], defaults["trust_remote_code"]) == ("auto", 1, False)
    assert "seed" not in defaults


def test_a_bad_dtype_names_its_flag():
    with pytest.raises(ConfigError, match="--dtype"):
        engine_kwargs("m", VLLMSettings(dtype="int3"), [])


def test_a_zero_tensor_parallel_size_is_refused_with_the_configuration():
    with pytest.raises(ConfigError, match="--tensor-parallel-size"):
        RunConfig(model="vllm:m", tensor_parallel_size=0)


@pytest.mark.parametrize(
    "settings, expected",
    [
        (GenerationSettings(), {"max_tokens": 128, "temperature": 0.0}),
        (GenerationSettings(temperature=0, top_p=0.9), {"max_tokens": 128, "temperature": 0.0}),
        (GenerationSettings(max_tokens=512, temperature=0.6, top_p=0.95, seed=1),
         {"max_tokens": 512, "temperature": 0.6, "top_p": 0.95, "seed": 1}),
    ],
)
def test_sampling_kwargs_default_to_greedy_with_the_shared_token_limit(settings, expected):
    assert sampling_kwargs(resolve_sampling(settings)) == expected


@pytest.mark.parametrize(
    "finish, status, text, reasoning",
    [("stop", "ok", "<think>r</think>B", "r"), ("length", "truncated", "The answer", None)],
)
def test_response_from_output(finish, status, text, reasoning):
    output = FakeOutput([1, 2, 3], [FakeCompletion(text, [7, 8], finish)])
    response = response_from_output(request(), output, latency_s=2.0, notes=("n",))
    assert (response.status, response.finish_reason, response.reasoning) == (status, finish, reasoning)
    assert (response.prompt_tokens, response.completion_tokens, response.latency_s, response.notes) == (3, 2, 2.0, ("n",))


# -- the backend with a fake engine -----------------------------------------------------------

async def collect(backend, requests):
    await backend.preflight(requests)
    return {r.item_id: r async for r in backend.generate(requests)}


async def test_the_engine_is_sized_for_the_requests_and_every_request_is_answered():
    engines: list[FakeLLM] = []
    backend = make_backend(chunk_size=2, engines=engines)
    assert isinstance(backend, Backend)
    requests = [request(f"dev_Art_{i}", n_images=i % 3 + 1) for i in range(5)]
    responses = await collect(backend, requests)
    assert len(engines) == 1 and engines[0].kwargs["limit_mm_per_prompt"] == {"image": 3}
    assert {k: r.text for k, r in responses.items()} == {f"dev_Art_{i}": f"images={i % 3 + 1}" for i in range(5)}
    assert [len(messages) for messages, _ in engines[0].calls] == [2, 2, 1]  # chunks of 2
    assert backend.describe()["limit_mm_per_prompt"] == {"image": 3}


async def test_a_bad_image_fails_its_item_and_the_rest_of_the_chunk_runs():
    engines: list[FakeLLM] = []
    requests = [request("good_1"), request("bad", data=b"GIF89a-garbage"), request("good_2")]
    responses = await collect(make_backend(engines=engines), requests)
    assert responses["bad"].status == "error" and responses["bad"].error.startswith("bad: image_1")
    assert responses["good_1"].status == responses["good_2"].status == "ok"
    assert len(engines[0].calls[0][0]) == 2


async def test_a_chunk_vllm_rejects_is_retried_item_by_item():
    engines: list[FakeLLM] = []
    backend = make_backend(engines=engines)
    requests = [request("ok_1"), Request("too_long", (TextPart("LONG"),)), request("ok_2")]
    await backend.preflight(requests)
    engines[0].fail_on = "LONG"
    responses = {r.item_id: r async for r in backend.generate(requests)}
    assert responses["too_long"].status == "error" and "maximum model length" in responses["too_long"].error
    assert responses["ok_1"].status == responses["ok_2"].status == "ok"


async def test_each_request_gets_its_own_sampling_params():
    engines: list[FakeLLM] = []
    requests = [request("a", generation=GenerationSettings(max_tokens=2)), request("b", generation=GenerationSettings(max_tokens=64))]
    responses = await collect(make_backend(engines=engines), requests)
    assert [p["max_tokens"] for p in engines[0].calls[0][1]] == [2, 64]
    assert (responses["a"].status, responses["b"].status) == ("truncated", "ok")


async def test_requests_with_more_images_than_the_engine_allows_fail_clearly():
    backend = make_backend()
    await backend.preflight([request(n_images=1)])
    responses = {r.item_id: r async for r in backend.generate([request("big", n_images=3)])}
    assert responses["big"].status == "error" and "more than the engine was started for (1)" in responses["big"].error


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_without_vllm_choosing_it_says_what_to_install():
    with pytest.raises(ConfigError, match=r"pip install 'mmmu-eval\[vllm\]'"):
        VLLMBackend.from_settings("m", VLLMSettings())


async def test_chat_template_kwargs_from_extra_body_reach_the_template_per_group():
    calls: list[dict] = []

    class RecordingLLM(FakeLLM):
        def chat(self, messages, sampling_params=None, use_tqdm=True, **kwargs):
            calls.append(kwargs)
            return super().chat(messages, sampling_params, use_tqdm)

    backend = VLLMBackend("m", VLLMSettings(), engine=lambda **kw: RecordingLLM(kw),
                          sampling_params=lambda **kw: kw)
    thinking_off = GenerationSettings(extra_body=(("chat_template_kwargs", {"enable_thinking": False}),))
    requests = [request("a", generation=thinking_off), request("b"), request("c", generation=thinking_off)]
    responses = await collect(backend, requests)
    assert set(responses) == {"a", "b", "c"}
    assert sorted(map(str, calls)) == sorted(map(str, [{"chat_template_kwargs": {"enable_thinking": False}}, {}]))


async def test_the_engine_is_built_and_used_on_the_event_loops_thread():
    """vLLM 0.8-0.10 refuse to start off the main thread, and its client must not change threads."""
    import threading

    threads: list[threading.Thread] = []

    class ThreadRecordingLLM(FakeLLM):
        def __init__(self, kwargs):
            super().__init__(kwargs)
            threads.append(threading.current_thread())

        def chat(self, messages, sampling_params=None, use_tqdm=True):
            threads.append(threading.current_thread())
            return super().chat(messages, sampling_params, use_tqdm)

    backend = VLLMBackend("m", VLLMSettings(), engine=lambda **kw: ThreadRecordingLLM(kw),
                          sampling_params=lambda **kw: kw, chunk_size=1)
    await collect(backend, [request("a"), request("b")])
    assert threads == [threading.current_thread()] * 3


async def test_a_missing_model_directory_is_named_before_vllm_starts(tmp_path):
    engines: list[FakeLLM] = []
    backend = VLLMBackend(str(tmp_path / "gone"), VLLMSettings(), engine=lambda **kw: engines.append(kw),
                          sampling_params=lambda **kw: kw)
    with pytest.raises(ConfigError, match="no such model directory"):
        await backend.preflight([request()])
    assert engines == []
