"""The OpenAI-compatible backend against httpx.MockTransport: the exact bodies it sends, and
how it reads answers and failures."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest
from PIL import Image

from mmmu_eval.backends.openai_api import (
    OpenAIBackend,
    classify_error,
    retry_after_seconds,
)
from mmmu_eval.backends.openai_errors import classify_preflight
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.config import RunConfig
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.prompt.images import tiny_png
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

PNG = tiny_png(1)
JPEG_IMAGE = io.BytesIO()
Image.new("RGB", (20, 10), (200, 30, 40)).save(JPEG_IMAGE, format="JPEG", quality=75)
JPEG = JPEG_IMAGE.getvalue()


def completion(text="The answer is (B).", finish="stop", **message_extra) -> dict:
    return {
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": text, **message_extra}}],
        "usage": {"prompt_tokens": 123, "completion_tokens": 7, "total_tokens": 130},
    }


class Server:
    """A MockTransport handler: records each body, answers from a script (then ``completion()``)."""

    def __init__(self, script=(), models=("m",)) -> None:
        self.script = list(script)
        self.bodies: list[dict] = []
        self.models = models

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "x"} for m in self.models]})
        self.bodies.append(json.loads(request.content))
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step
        return httpx.Response(200, json=completion())


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


async def no_sleep(seconds: float) -> None:
    return None


def backend(server, **kwargs) -> OpenAIBackend:
    kwargs.setdefault("policy", RetryPolicy(base_delay=0.0))
    return OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="sk-test",
                         transport=httpx.MockTransport(server), sleep=no_sleep, **kwargs)


async def run_all(b: OpenAIBackend, requests) -> dict:
    try:
        return {r.item_id: r async for r in b.generate(requests)}
    finally:
        await b.aclose()


def data_url_bytes(url: str) -> tuple[str, bytes]:
    head, _, payload = url.partition(";base64,")
    return head.removeprefix("data:"), base64.b64decode(payload)


# ----------------------------------------------------------------------------- request bodies

async def test_body_has_system_text_and_images_in_prompt_order_with_the_stored_bytes():
    server = Server()
    request = Request(
        "validation_Art_1",
        parts=(TextPart("Question: compare "), ImagePart(ImageRef.from_bytes("image_2", JPEG)),
               TextPart(" with "), ImagePart(ImageRef.from_bytes("image_1", PNG)),
               TextPart(" and again "), ImagePart(ImageRef.from_bytes("image_2", JPEG)),
               TextPart("\nAnswer with the option's letter.")),
        choices=("A", "B"),
        system="You are careful.",
        generation=GenerationSettings(max_tokens=16, temperature=0.0, top_p=0.9, seed=7,
                                      extra_body=(("chat_template_kwargs", {"enable_thinking": False}),)),
    )
    await run_all(backend(server), [request])
    (body,) = server.bodies
    content = body["messages"][1]["content"]
    images = [data_url_bytes(c["image_url"]["url"]) for c in content if c["type"] == "image_url"]
    assert images == [("image/jpeg", JPEG), ("image/png", PNG), ("image/jpeg", JPEG)], \
        "stored bytes, unchanged, in prompt order, repeats kept"
    for c in content:
        if c["type"] == "image_url":
            c["image_url"]["url"] = "IMG"
    assert body == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are careful."},
            {"role": "user", "content": [
                {"type": "text", "text": "Question: compare "},
                {"type": "image_url", "image_url": {"url": "IMG"}},
                {"type": "text", "text": " with "},
                {"type": "image_url", "image_url": {"url": "IMG"}},
                {"type": "text", "text": " and again "},
                {"type": "image_url", "image_url": {"url": "IMG"}},
                {"type": "text", "text": "\nAnswer with the option's letter."},
            ]},
        ],
        "max_tokens": 16, "temperature": 0.0, "top_p": 0.9, "seed": 7,
        "chat_template_kwargs": {"enable_thinking": False},
    }


async def test_text_only_request_sends_a_plain_string_and_no_unset_settings():
    server = Server()
    await run_all(backend(server), [Request("dev_Math_1", parts=(TextPart("2+2? "), TextPart("Answer.")))])
    assert server.bodies == [{"model": "m", "messages": [{"role": "user", "content": "2+2? Answer."}]}]


async def test_unsupported_format_is_converted_to_png_losslessly_with_a_note():
    bmp = io.BytesIO()
    Image.new("RGB", (3, 2), (1, 2, 3)).save(bmp, format="BMP")
    server = Server()
    out = await run_all(backend(server), [Request("i", parts=(ImagePart(ImageRef.from_bytes("image_1", bmp.getvalue())),))])
    media, data = data_url_bytes(server.bodies[0]["messages"][0]["content"][0]["image_url"]["url"])
    assert media == "image/png"
    assert Image.open(io.BytesIO(data)).tobytes() == Image.open(io.BytesIO(bmp.getvalue())).tobytes()
    assert out["i"].notes == ("image_1 (image part 1): converted image/bmp to PNG (lossless)",)


async def test_max_image_pixels_downscales_only_when_asked_and_notes_it():
    big = io.BytesIO()
    Image.new("RGB", (400, 300), (9, 9, 9)).save(big, format="PNG")
    request = Request("i", parts=(ImagePart(ImageRef.from_bytes("image_1", big.getvalue())),))
    server = Server()
    out = await run_all(backend(server, max_image_pixels=12_000), [request])
    _, data = data_url_bytes(server.bodies[0]["messages"][0]["content"][0]["image_url"]["url"])
    assert Image.open(io.BytesIO(data)).size == (126, 94)  # sqrt(12000/120000) = 0.316
    assert out["i"].notes == ("image_1 (image part 1): down-scaled 400x300 to 126x94 (--max-image-pixels 12000)",)
    server = Server()
    out = await run_all(backend(server), [request])
    assert data_url_bytes(server.bodies[0]["messages"][0]["content"][0]["image_url"]["url"])[1] == big.getvalue()
    assert out["i"].notes == ()


# ------------------------------------------------------------------------------ answers read

@pytest.mark.parametrize(
    "raw, text, reasoning, why",
    [
        ("The answer is B", "The answer is B", None, "no tags: unchanged"),
        ("  B  ", "  B  ", None, "no tags: whitespace kept for the official parser"),
        ("<think>A or B?</think>\n\nB", "B", "A or B?", "closed block removed"),
        ("A or B?</think> B", "B", "A or B?", "opening tag was in the prompt"),
        ("<think>a</think>x<think>b</think>y", "xy", "a\n\nb", "several blocks"),
        ("<think>still thinking", "", "still thinking", "cut off while thinking: no answer"),
    ],
)
def test_split_reasoning(raw, text, reasoning, why):
    assert split_reasoning(raw) == (text, reasoning), why


async def test_response_records_text_reasoning_usage_latency_and_finish_reason():
    server = Server([httpx.Response(200, json=completion("<think>hmm</think>(C)", reasoning_content="server side"))])
    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k",
                      transport=httpx.MockTransport(server), clock=Clock())
    out = await run_all(b, [Request("i", parts=(TextPart("q"),))])
    r = out["i"]
    assert (r.status, r.text, r.reasoning, r.finish_reason) == ("ok", "(C)", "server side\n\nhmm", "stop")
    assert (r.prompt_tokens, r.completion_tokens, r.attempts, r.error) == (123, 7, 1, None)
    assert r.latency_s == 0.25


async def test_answer_given_in_parts_is_joined():
    parts = [{"type": "text", "text": "The answer "}, {"type": "text", "text": "is (D)."}]
    server = Server([httpx.Response(200, json=completion(parts))])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].text) == ("ok", "The answer is (D).")


async def test_reasoning_in_the_message_reasoning_field_is_kept_apart_from_the_answer():
    """Servers that return the thinking as ``message.reasoning`` (vLLM's newer field, OpenRouter)."""
    server = Server([httpx.Response(200, json=completion("(B)", reasoning="A looks wrong, so B"))])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].text, out["i"].reasoning) == ("ok", "(B)", "A looks wrong, so B")


async def test_a_choice_without_a_message_is_malformed_retried_then_an_error():
    no_message = {**completion(), "choices": [{"index": 0, "finish_reason": "stop"}]}
    server = Server([httpx.Response(200, json=no_message), httpx.Response(200, json=completion("(C)"))])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].text, out["i"].attempts) == ("ok", "(C)", 2)
    assert out["i"].error.startswith("malformed answer: the first choice has no message")

    server = Server([httpx.Response(200, json=no_message)] * 10)
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    r = out["i"]
    assert (r.status, r.text, r.attempts, len(server.bodies)) == ("error", "", 3, 3), "malformed answers are capped at 3"
    assert r.error.startswith("malformed answer: the first choice has no message: {'index': 0, 'finish_reason': 'stop'}")


async def test_http_409_is_retried():
    """409 Conflict (a busy or restarting engine, some gateways) is temporary, not final."""
    server = Server([httpx.Response(409, json={"error": {"message": "engine busy"}}), httpx.Response(200, json=completion())])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].attempts, out["i"].error) == ("ok", 2, "HTTP 409: engine busy")


async def test_answer_cut_by_token_limit_is_truncated_and_kept():
    server = Server([httpx.Response(200, json=completion("The answer is", finish="length"))])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].text, out["i"].finish_reason) == ("truncated", "The answer is", "length")


# ---------------------------------------------------------------------------- failures

def status_error(status: int, headers=None, body=None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=httpx.Request("POST", "http://x/v1/chat/completions"))
    return openai.APIStatusError("failed", response=response, body=body)


REQ = httpx.Request("POST", "http://x/v1/chat/completions")


@pytest.mark.parametrize(
    "exc, kind, retry_after",
    [
        (status_error(429, {"retry-after": "3"}), "rate_limit", 3.0),
        (status_error(429, {"retry-after-ms": "1500"}), "rate_limit", 1.5),
        (status_error(429), "rate_limit", None),
        (status_error(429, body={"error": {"code": "insufficient_quota", "message": "quota"}}), "final", None),
        (status_error(500), "temporary", None),
        (status_error(502), "temporary", None),
        (status_error(503, {"retry-after": "2"}), "temporary", 2.0),
        (status_error(504), "temporary", None),
        (status_error(408), "temporary", None),
        (status_error(409), "temporary", None),
        (status_error(400, body={"error": {"message": "At most 1 image(s) may be provided"}}), "final", None),
        (status_error(401), "final", None),
        (status_error(404), "final", None),
        (status_error(422), "final", None),
        (openai.APITimeoutError(REQ), "temporary", None),
        (openai.APIConnectionError(request=REQ), "temporary", None),
        (httpx.RemoteProtocolError("Server disconnected"), "temporary", None),
        (json.JSONDecodeError("Expecting value", "<html>", 0), "malformed", None),
        (openai.APIResponseValidationError(httpx.Response(200, request=REQ), None), "malformed", None),
        (ZeroDivisionError("bug"), "final", None),
    ],
)
def test_classification_table(exc, kind, retry_after):
    failure = classify_error(exc)
    assert (failure.kind, failure.retry_after) == (kind, retry_after)


def test_retry_after_as_http_date():
    from datetime import datetime, timezone

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    headers = httpx.Headers({"retry-after": "Thu, 01 Jan 2026 12:00:30 GMT"})
    assert retry_after_seconds(headers, now=now) == 30.0


async def test_rate_limit_is_retried_after_the_servers_wait_and_recorded():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    server = Server([httpx.Response(429, headers={"retry-after": "2"}, json={"error": {"message": "slow down"}}),
                     httpx.Response(200, text="<html>bad gateway</html>", headers={"content-type": "application/json"}),
                     httpx.Response(200, json={**completion(), "choices": []})])
    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k",
                      transport=httpx.MockTransport(server), sleep=sleep, policy=RetryPolicy(base_delay=0.0))
    out = await run_all(b, [Request("i", parts=(TextPart("q"),))])
    r = out["i"]
    assert (r.status, r.text, r.attempts) == ("ok", "The answer is (B).", 4)
    assert waits[0] == 2.0 and len(waits) == 3
    assert r.error.startswith("malformed answer: the answer has no choices"), "last retried error kept"


async def test_chat_requests_carry_the_headers_the_sdk_sends_that_mean_something_to_a_server(monkeypatch):
    """Requests bypass the SDK for speed (no SDK import on success); the key, content type,
    organisation and project go out as the SDK sends them; the user agent names mmmu-eval."""
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-2")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=completion())

    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="sk-test",
                      transport=httpx.MockTransport(handler), policy=RetryPolicy(timeout=30.0))
    await run_all(b, [Request("i", parts=(TextPart("q"),))])
    sdk = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="sk-test", max_retries=0,
                             http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    await sdk.post("/chat/completions", content=seen[0].content, cast_to=httpx.Response)
    await sdk.close()
    ours, theirs = seen
    assert ours.url == theirs.url and ours.method == theirs.method == "POST"
    for name in ("authorization", "content-type", "accept", "openai-organization", "openai-project"):
        assert ours.headers[name] == theirs.headers[name], name
    assert ours.headers["authorization"] == "Bearer sk-test" and ours.headers["openai-project"] == "proj-2"
    assert ours.headers["user-agent"].startswith("mmmu-eval/")


SDK_MAJOR = int(openai.__version__.split(".")[0])
FAILED_ANSWERS = [
    httpx.Response(429, json={"error": {"message": "slow", "code": "insufficient_quota"}}),
    httpx.Response(429, headers={"retry-after": "3"}, json={"error": {"message": "Rate limit reached"}}),
    httpx.Response(503, headers={"retry-after": "7"}, text="overloaded"),
    httpx.Response(500, json={"detail": "engine died"}),
    httpx.Response(502, text=""),
    httpx.Response(400, json={"error": {"message": "At most 1 image(s) may be provided", "type": "invalid"}}),
    httpx.Response(404, json={"error": "no such model"}),
    httpx.Response(422, json=[{"loc": ["body"], "msg": "bad"}]),
]


@pytest.mark.parametrize("answer", FAILED_ANSWERS, ids=lambda r: str(r.status_code))
async def test_a_failed_answer_reads_as_the_sdks_own_error_for_it(answer: httpx.Response):
    """The endpoint never imports the SDK (issue 17) yet reads every failed answer as the
    SDK's exception for the same answer is read: same kind, wait and message."""
    from mmmu_eval.backends.openai_http import Endpoint, StatusError

    endpoint = Endpoint("http://127.0.0.1:9/v1", "k", concurrency=1, timeout=10.0,
                        transport=httpx.MockTransport(lambda request: answer))
    with pytest.raises(StatusError) as caught:
        await endpoint.post_chat(b"{}")
    await endpoint.aclose()
    sdk = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0,
                             http_client=httpx.AsyncClient(transport=httpx.MockTransport(lambda request: answer)))
    with pytest.raises(openai.APIStatusError) as theirs:
        await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    await sdk.close()
    ours_read, theirs_read = classify_error(caught.value), classify_error(theirs.value)
    assert caught.value.body == theirs.value.body
    assert (ours_read.kind, ours_read.retry_after) == (theirs_read.kind, theirs_read.retry_after)
    if SDK_MAJOR < 3:  # ours keep the 1.x/2.x wording, which stored errors carry; openai 3 words them anew
        assert (caught.value.message, ours_read) == (theirs.value.message, theirs_read)


async def test_no_answer_reads_as_a_temporary_failure_naming_the_cause():
    from mmmu_eval.backends.openai_http import Endpoint, Unreachable

    script = [httpx.ReadTimeout("slow"), httpx.ConnectError("refused")]

    def handler(request: httpx.Request) -> httpx.Response:
        raise script.pop(0)

    endpoint = Endpoint("http://127.0.0.1:9/v1", "k", concurrency=1, timeout=10.0,
                        transport=httpx.MockTransport(handler))
    with pytest.raises(Unreachable) as caught:
        await endpoint.post_chat(b"{}")
    assert classify_error(caught.value) == classify_error(openai.APITimeoutError(REQ))
    with pytest.raises(Unreachable) as caught:
        await endpoint.post_chat(b"{}")
    assert classify_error(caught.value).message == "connection failed: refused"
    assert classify_preflight(caught.value).kind == "final", "a refused probe: the server is not there"
    await endpoint.aclose()
    await endpoint.aclose()  # a second close is harmless


def _message(**fields) -> dict:
    body = completion()
    body["choices"][0]["message"] = {"role": "assistant", **fields}
    return body


BAD_200_ANSWERS = {
    "not JSON": (b"<html><body>502 Bad Gateway</body></html>", "the answer is not JSON"),
    "invalid UTF-8": (b'{"choices": [{"message": {"content": "\xff\xfe"}}]}', "the answer is not UTF-8"),
    "truncated": (json.dumps(completion()).encode()[:-30], "the answer is cut short"),
    "no choices": (json.dumps({**completion(), "choices": []}).encode(), "the answer has no choices"),
    "null content": (json.dumps(_message(content=None)).encode(), "the answer's content is null"),
    "content list without text": (json.dumps(_message(content=[{"type": "image_url"}])).encode(),
                                  "the answer's content has no text part"),
    "content number": (json.dumps(_message(content=7)).encode(), "the answer's content is a int"),
    "stream": (b'data: {"choices": [{"delta": {"content": "The"}}]}\n\ndata: [DONE]\n\n',
               "the server answered with an event stream"),
}


@pytest.mark.parametrize("case", sorted(BAD_200_ANSWERS))
async def test_every_bad_200_answer_is_retried_then_an_error_of_the_item(case):
    """Issue 17: each answer a broken server or proxy gives with status 200 is a malformed
    attempt (retried, at most three times), then an ``error`` record naming what was wrong;
    never an exception out of the run, never answer text."""
    payload, said = BAD_200_ANSWERS[case]
    bad = httpx.Response(200, content=payload, headers={"content-type": "application/json"})
    once = await run_all(backend(Server([bad])), [Request("i", parts=(TextPart("q"),))])
    assert (once["i"].status, once["i"].text, once["i"].attempts) == ("ok", "The answer is (B).", 2)
    always = await run_all(backend(Server([bad] * 5)), [Request("i", parts=(TextPart("q"),))])
    r = always["i"]
    assert (r.status, r.text, r.attempts) == ("error", "", RetryPolicy().max_malformed)
    assert r.error.startswith(f"malformed answer: {said}"), r.error


async def test_a_null_content_cut_by_the_token_limit_or_beside_reasoning_is_an_answer():
    """Null content is the model's own answer where the server says why: cut by the limit,
    or all of it reasoning."""
    cut = {**completion(), "choices": [
        {"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": None}}]}
    a = await run_all(backend(Server([httpx.Response(200, json=cut)])), [Request("a", parts=(TextPart("q"),))])
    b = await run_all(backend(Server([httpx.Response(200, json=_message(content=None, reasoning_content="thinking"))])),
                      [Request("b", parts=(TextPart("r"),))])
    out = {**a, **b}
    assert (out["a"].status, out["a"].text) == ("truncated", "")
    assert (out["b"].status, out["b"].text, out["b"].reasoning) == ("ok", "", "thinking")


async def test_final_client_error_is_an_error_response_never_answer_text():
    server = Server([httpx.Response(400, json={"error": {"message": "At most 1 image(s) may be provided"}})])
    out = await run_all(backend(server), [Request("i", parts=(TextPart("q"),))])
    r = out["i"]
    assert (r.status, r.text, r.attempts) == ("error", "", 1)
    assert r.error == "HTTP 400: At most 1 image(s) may be provided"
    assert not r.scorable


async def test_server_that_keeps_failing_gives_an_error_after_max_attempts():
    server = Server([httpx.Response(503)] * 10)
    out = await run_all(backend(server, policy=RetryPolicy(max_attempts=3, base_delay=0.0)),
                        [Request("i", parts=(TextPart("q"),))])
    assert (out["i"].status, out["i"].attempts, len(server.bodies)) == ("error", 3, 3)
    assert out["i"].error.startswith("HTTP 503")


async def test_unreadable_image_fails_that_item_only():
    def broken() -> bytes:
        raise DataError("image_1 is not a readable image", "validation_Art_2")

    server = Server()
    requests = [Request("validation_Art_1", parts=(TextPart("q"),)),
                Request("validation_Art_2", parts=(ImagePart(ImageRef("image_1", broken)),))]
    out = await run_all(backend(server), requests)
    assert out["validation_Art_1"].status == "ok"
    bad = out["validation_Art_2"]
    assert (bad.status, bad.attempts, bad.error) == ("error", 1, "validation_Art_2: image_1 is not a readable image")
    assert len(server.bodies) == 1, "the broken item was never sent"


# ------------------------------------------------------------------------ concurrency, spread

async def test_concurrency_is_bounded_per_endpoint_and_load_is_spread():
    """Each endpoint gets --concurrency requests in flight at once, never more, and both get them.

    The first requests wait until every host has the whole limit in flight (deadline 30 s), so
    reaching it depends neither on how fast bodies are built on a loaded machine nor on which
    worker the queue hands a body to: while one host answered at once, its workers could take
    every new body before the other host's last idle worker woke, and that host would stay one
    short of its limit."""
    limit, hosts = 11, ("127.0.0.1", "127.0.0.2")
    in_flight = dict.fromkeys(hosts, 0)
    peak = dict.fromkeys(hosts, 0)
    served = dict.fromkeys(hosts, 0)
    full = {host: asyncio.Event() for host in hosts}

    async def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        in_flight[host] += 1
        peak[host] = max(peak[host], in_flight[host])
        if in_flight[host] == limit:
            full[host].set()
        try:
            await asyncio.wait_for(asyncio.gather(*(event.wait() for event in full.values())), 30)
        finally:
            in_flight[host] -= 1
        served[host] += 1
        return httpx.Response(200, json=completion())

    b = OpenAIBackend("m", base_urls=[f"http://{host}:1/v1" for host in hosts], api_key="k",
                      concurrency=limit, transport=httpx.MockTransport(handler))
    requests = [Request(f"i{n}", parts=(TextPart(f"q{n}"),)) for n in range(120)]
    out = await run_all(b, requests)
    assert sorted(out) == sorted(r.item_id for r in requests)
    assert all(r.status == "ok" for r in out.values()), [r.error for r in out.values() if r.error][:3]
    assert peak == dict.fromkeys(hosts, limit), "the limit is per endpoint, reached and never passed"
    assert sum(served.values()) == 120 and min(served.values()) >= limit


async def test_consumer_stopping_early_cancels_the_workers():
    """Requests after the first hang until the test lets them go; once the consumer leaves, every
    one in flight is cancelled and no new one starts, however long we then wait."""
    started = cancelled = 0
    release = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal started, cancelled
        started += 1
        if started > 1:
            try:
                await release.wait()
            except asyncio.CancelledError:
                cancelled += 1
                raise
        return httpx.Response(200, json=completion())

    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:1/v1"], api_key="k", concurrency=2,
                      transport=httpx.MockTransport(handler))
    stream = b.generate([Request(f"i{n}", parts=(TextPart("q"),)) for n in range(50)])
    async for _ in stream:
        break
    await stream.aclose()
    deadline = asyncio.get_running_loop().time() + 30
    while cancelled < started - 1:
        assert asyncio.get_running_loop().time() < deadline, (started, cancelled)
        await asyncio.sleep(0.01)
    assert started <= 3, "two workers: the first answer, then at most one held request each"
    seen = started
    release.set()  # a worker still alive would now answer and start the next request
    for _ in range(20):
        await asyncio.sleep(0.01)
    assert started == seen, "no new requests after the consumer left"
    await b.aclose()


# --------------------------------------------------------------------------------- preflight

async def test_preflight_probes_with_the_runs_most_images():
    server = Server()
    requests = [Request("a", parts=(ImagePart(ImageRef.from_bytes("image_1", PNG)),)),
                Request("b", parts=tuple(ImagePart(ImageRef.from_bytes(f"image_{n}", PNG)) for n in (1, 2, 3)))]
    b = backend(server)
    await b.preflight(requests)
    await b.aclose()
    (probe,) = server.bodies
    assert probe["max_tokens"] == 1
    assert [c["type"] for c in probe["messages"][0]["content"]] == ["image_url"] * 3 + ["text"]


async def test_preflight_names_the_vllm_flag_when_images_are_refused():
    server = Server([httpx.Response(400, json={"error": {"message": "At most 1 image(s) may be provided in one request"}})])
    requests = [Request("validation_Art_5", parts=tuple(ImagePart(ImageRef.from_bytes(f"image_{n}", PNG)) for n in (1, 2)))]
    b = backend(server)
    with pytest.raises(ConfigError) as caught:
        await b.preflight(requests)
    await b.aclose()
    message = str(caught.value)
    assert "up to 2 images" in message and "validation_Art_5" in message
    assert "--limit-mm-per-prompt '{\"image\": 2}'" in message


async def test_preflight_refuses_a_model_the_server_does_not_list():
    b = backend(Server(models=("llava-7b", "qwen2-vl")))
    with pytest.raises(ConfigError, match=r"model 'm' is not served by http://127.0.0.1:9/v1; it serves: llava-7b, qwen2-vl"):
        await b.preflight([Request("a", parts=(TextPart("q"),))])
    await b.aclose()


async def test_preflight_fails_fast_when_nothing_listens():
    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k")  # port 9: discard, closed
    with pytest.raises(ConfigError, match=r"cannot reach http://127.0.0.1:9/v1 .*start the server or fix --base-url"):
        await asyncio.wait_for(b.preflight([Request("a", parts=(TextPart("q"),))]), 5)
    await b.aclose()


async def test_preflight_gives_up_on_a_silent_server_after_a_few_short_tries():
    """A server that accepted connections but never answered held the run silent for minutes
    (six tries of the full request timeout) before the first item."""
    listings = 0

    async def silent(request: httpx.Request) -> httpx.Response:
        nonlocal listings
        listings += request.url.path.endswith("/models")
        await asyncio.sleep(10)
        return httpx.Response(200, json={"data": []})

    b = backend(silent, policy=RetryPolicy(base_delay=0.0, max_attempts=6, timeout=0.05))
    with pytest.raises(ConfigError, match="cannot reach"):
        await asyncio.wait_for(b.preflight([Request("a", parts=(TextPart("q"),))]), 5)
    await b.aclose()
    assert listings == 3


def test_a_configured_zero_is_never_replaced_by_a_default():
    """`config.x or DEFAULT` turned an explicit value the configuration accepts into the default;
    RunConfig now refuses zeros, and the backend takes what it is given."""
    config = RunConfig(model="openai:m", base_urls=("http://127.0.0.1:9/v1",), concurrency=1, max_attempts=1,
                       request_timeout=0.5)
    b = OpenAIBackend.from_settings("m", backend_settings(config).openai)
    assert (b.concurrency, b.policy.max_attempts, b.policy.timeout) == (1, 1, 0.5)


# ------------------------------------------------------------------------------- configuration

def test_missing_key_for_a_remote_server_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError) as caught:
        OpenAIBackend.from_settings("gpt-4o", backend_settings(RunConfig(model="openai:gpt-4o")).openai)
    assert str(caught.value) == "OPENAI_API_KEY is not set (needed by openai:gpt-4o); set it or pass --api-key-env NAME"


def test_named_key_variable_must_be_set(monkeypatch):
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(ConfigError, match="MY_KEY is not set"):
        OpenAIBackend.from_settings("m", backend_settings(RunConfig(model="openai:m", api_key_env="MY_KEY",
                                                 base_urls=("http://127.0.0.1:8000/v1",))).openai)


def test_loopback_server_needs_no_key_and_config_is_read(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = RunConfig(model="openai:m", base_urls=("http://localhost:8000", "http://127.0.0.1:8001/v1/"),
                       concurrency=8, max_attempts=2, request_timeout=30.0, probe_timeout=5, max_image_pixels=10**6,
                       max_response_bytes=10**7)
    b = OpenAIBackend.from_settings("m", backend_settings(config).openai)
    assert b.describe() == {
        "backend": "openai", "model": "m",
        "base_urls": ["http://localhost:8000/v1", "http://127.0.0.1:8001/v1"],
        "concurrency_per_endpoint": 8, "max_attempts": 2, "request_timeout_s": 30.0, "probe_timeout_s": 5,
        "max_response_bytes": 10**7, "max_image_pixels": 1000000, "api_key_env": None,
    }
    assert b.spec == "openai:m"


def test_base_url_from_environment_and_key_never_described(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:pw@api.example.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    b = OpenAIBackend.from_settings("m", backend_settings(RunConfig(model="openai:m")).openai)
    assert b.describe()["base_urls"] == ["https://api.example.com/v1"]
    assert b.describe()["api_key_env"] == "OPENAI_API_KEY", "the variable's name, never its value"
    assert "sk-secret-123" not in json.dumps(b.describe())


def test_bad_base_url_is_a_config_error():
    with pytest.raises(ConfigError, match="is not an http"):
        OpenAIBackend("m", base_urls=["127.0.0.1:8000"], api_key="k")


async def test_images_are_read_just_ahead_of_sending_not_all_up_front():
    """Memory stays flat: at any time only requests in flight or queued hold image bytes."""
    from mmmu_eval.backends.openai_api import BODY_THREADS

    loaded = served = peak = 0

    def loader() -> bytes:
        nonlocal loaded, peak
        loaded += 1
        peak = max(peak, loaded - served)
        return PNG

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal served
        await asyncio.sleep(0.002)
        served += 1
        return httpx.Response(200, json=completion())

    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:1/v1"], api_key="k", concurrency=4,
                      transport=httpx.MockTransport(handler))
    requests = [Request(f"i{n}", parts=(ImagePart(ImageRef("image_1", loader)),)) for n in range(150)]
    out = await run_all(b, requests)
    assert len(out) == 150 and loaded == 150
    in_flight, queued, being_built = 4, BODY_THREADS, BODY_THREADS
    assert peak <= in_flight + queued + being_built + 1


# --------------------------------------------------------------------- one backend, several runs

async def test_concurrent_generate_calls_share_one_limit_per_endpoint():
    """Several runs on one backend (issue 9) keep one pool: the endpoint never sees more than
    --concurrency requests at once, and every call gets all its answers."""
    in_flight = peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.005)
        in_flight -= 1
        return httpx.Response(200, json=completion())

    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:1/v1"], api_key="k", concurrency=3,
                      transport=httpx.MockTransport(handler))

    async def one_run(tag: str) -> list[str]:
        return [r.item_id async for r in b.generate([Request(f"{tag}{n}", parts=(TextPart("q"),)) for n in range(20)])]

    try:
        runs = await asyncio.gather(*(one_run(tag) for tag in "abcd"))
    finally:
        await b.aclose()
    assert [sorted(ids) for ids in runs] == [sorted(f"{tag}{n}" for n in range(20)) for tag in "abcd"]
    assert 1 < peak <= 3, f"one limit across the four calls, not one per call (peak {peak})"


def test_aclose_is_idempotent_and_the_backend_serves_again_on_a_new_event_loop():
    server = Server()
    b = backend(server)
    request = [Request("i", parts=(TextPart("q"),))]

    async def one_run() -> list:
        out = [r async for r in b.generate(request)]
        await b.aclose()
        await b.aclose()
        return out

    first, second = asyncio.run(one_run()), asyncio.run(one_run())  # evaluate() runs each call in its own loop
    assert [r.status for r in first + second] == ["ok", "ok"] and len(server.bodies) == 2


async def test_a_retry_sends_the_same_body_built_again():
    """Bodies are forgotten once sent (memory at 256 in flight); a retry rebuilds identical bytes."""
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        return httpx.Response(503 if len(seen) == 1 else 200, json=completion())

    b = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", sleep=no_sleep,
                      policy=RetryPolicy(base_delay=0.0), transport=httpx.MockTransport(handler))
    request = Request("i", parts=(TextPart("look: "), ImagePart(ImageRef.from_bytes("image_1", PNG))))
    (response,) = (await run_all(b, [request])).values()
    assert response.attempts == 2 and len(seen) == 2 and seen[0] == seen[1]
    assert seen[0] == b.encode_body(request)[0]


def test_a_body_is_handed_over_once():
    from mmmu_eval.backends.openai_http import Body

    body = Body((b'{"a":', b"1}"))
    assert body.length == 7 and b"".join(body.take()) == b'{"a":1}'
    with pytest.raises(RuntimeError, match="sent already"):
        body.take()


def test_encoded_body_is_the_json_of_the_body_byte_for_byte():
    from mmmu_eval.backends.openai_body import encode_body, encode_body_parts, generation_params
    from mmmu_eval.prompt.messages import build_messages

    request = Request("i", parts=(TextPart('say "é" <tag> '), ImagePart(ImageRef.from_bytes("image_1", JPEG)),
                                  TextPart(" and "), ImagePart(ImageRef.from_bytes("image_2", PNG))),
                      generation=GenerationSettings(max_tokens=8, extra_body=(("top_k", 1),)))
    messages, _ = build_messages(request)
    expected = json.dumps({"model": "m", "messages": messages, **generation_params(request)}, separators=(",", ":"))
    assert encode_body(request, "m")[0] == expected.encode()
    assert b"".join(encode_body_parts(request, "m")[0]) == expected.encode()


def test_proxy_comes_from_the_environment_unless_no_proxy_exempts_the_host(monkeypatch):
    from mmmu_eval.backends.openai_http import env_proxy

    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert env_proxy("https://api.openai.com/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert env_proxy("https://api.openai.com/v1") == "http://proxy.internal:3128"
    assert env_proxy("http://127.0.0.1:8000/v1") is None
    assert env_proxy("http://10.0.0.5:8000/v1") is None, "no HTTP_PROXY: plain http goes direct"


def test_a_run_that_succeeds_never_imports_the_sdk(tmp_path):
    """`import openai` costs about a second; only a failure needs its exception types."""
    code = f"""
import asyncio, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from fakes.fault_server import FaultServer
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.core.records import Request, TextPart

async def main():
    with FaultServer(fault_rate=0.0) as server:
        b = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=2)
        requests = [Request(f"i{{n}}", parts=(TextPart(f"q{{n}}"),)) for n in range(5)]
        await b.preflight(requests)
        statuses = [r.status async for r in b.generate(requests)]
        await b.aclose()
    print(statuses.count("ok"), ",".join(m for m in ("openai", "httpx", "pydantic") if m in sys.modules))

asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["5"], f"loaded: {out.stdout}"
