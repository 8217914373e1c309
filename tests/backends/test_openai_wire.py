"""What the OpenAI backend takes off the wire (issue 40): bounded bodies, only 2xx as an answer,
JSON malformed at any depth or size, a base URL's credentials as Basic auth and never shown.

Through ``httpx.MockTransport`` (the seam every backend test uses); the same answers from a real
loopback server, through aiohttp and the command line, are in ``tests/test_wire_faults.py``.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import tracemalloc
import zlib

import httpx
import pytest
from fakes.wire_faults import gzip_bomb

from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.openai_http import Endpoint, StatusError
from mmmu_eval.backends.openai_wire import (
    MAX_JSON_DEPTH,
    AnswerTooLarge,
    NotJSON,
    Redirected,
    UnaskedEncoding,
    loads,
    read_capped,
)
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request, TextPart

FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01, timeout=30)
ANSWER = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "(B)"}}]}
LISTING = {"object": "list", "data": [{"id": "m", "object": "model"}]}


def chunks(data: bytes, size: int = 1000):
    async def gen():
        for n in range(0, len(data), size):
            yield data[n:n + size]
    return gen()


def _no_brotli() -> bool:
    try:
        import brotli
    except ImportError:
        return True
    return not hasattr(brotli.Decompressor(), "can_accept_more_data")


def read(data: bytes, encoding: str | None, cap: int, declared: int | None = None) -> bytes:
    return asyncio.run(read_capped(chunks(data), encoding=encoding, declared=declared, cap=cap))


# -- the cap, decoded ---------------------------------------------------------------------------

@pytest.mark.parametrize("encoding, encode", [
    (None, lambda b: b),
    ("identity", lambda b: b),
    ("gzip", gzip.compress),
    ("deflate", zlib.compress),  # zlib-wrapped, as HTTP says
    ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw, as some servers send it
])
def test_a_body_within_the_cap_is_read_decoded(encoding, encode):
    body = json.dumps(ANSWER).encode() * 3
    assert read(encode(body), encoding, cap=len(body)) == body


@pytest.mark.parametrize("encoding, encode", [(None, lambda b: b), ("gzip", gzip.compress), ("deflate", zlib.compress)])
def test_one_byte_past_the_cap_decoded_is_refused(encoding, encode):
    body = b"x" * 10_001
    with pytest.raises(AnswerTooLarge, match=r"answer exceeded 10000 bytes \((decoded|on the wire)\)"):
        read(encode(body), encoding, cap=10_000)


def test_a_gzip_bomb_is_inflated_only_up_to_the_cap():
    """1 MB of gzip inflating to 1 GiB: read a step at a time, refused just past the cap."""
    bomb = gzip_bomb(json.dumps(ANSWER).encode(), 2**30)
    assert len(bomb) < 1_100_000
    seen: list[int] = []

    async def watched():
        async for chunk in chunks(bomb, 65536):
            seen.append(len(chunk))
            yield chunk

    tracemalloc.start()
    try:
        with pytest.raises(AnswerTooLarge, match="exceeded 4194304 bytes \\(decoded\\)"):
            asyncio.run(read_capped(watched(), encoding="gzip", declared=None, cap=4 * 2**20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(seen) < 65536 * 2, "stopped at the first chunk past the cap, not after inflating the rest"
    assert peak < 3 * 4 * 2**20, f"inflated a step at a time, never past the cap: peak {peak:,} bytes"


def test_a_declared_length_past_the_cap_reads_nothing():
    with pytest.raises(AnswerTooLarge, match="Content-Length says 5000"):
        read(b"", None, cap=100, declared=5000)


def test_br_is_asked_for_and_inflated_under_the_cap_where_brotli_can_limit_its_output():
    """Only with the optional ``brotli`` >= 1.2 (output limits); without it br is neither asked for
    nor read (the case below, ``an_encoding_not_asked_for``)."""
    brotli = pytest.importorskip("brotli")
    if not hasattr(brotli.Decompressor(), "can_accept_more_data"):
        pytest.skip("brotli before 1.2 cannot limit its output")
    from mmmu_eval.backends.openai_wire import accept_encoding

    assert accept_encoding() == "gzip, deflate, br"
    body = json.dumps(ANSWER).encode() * 50
    assert read(brotli.compress(body), "br", cap=len(body)) == body
    bomb = brotli.compress(b" " * 2**26, quality=1)
    tracemalloc.start()
    try:
        with pytest.raises(AnswerTooLarge, match=r"exceeded 1000000 bytes \(decoded\)"):
            read(bomb, "br", cap=1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1_000_000, f"inflated a step at a time: peak {peak:,} bytes"
    with pytest.raises(UnaskedEncoding, match="br body is cut short"):
        read(brotli.compress(body)[:-4], "br", cap=10**6)


def test_gzip_members_one_after_another_are_one_body():
    assert read(gzip.compress(b"ab") + gzip.compress(b"cd"), "gzip", cap=100) == b"abcd"


@pytest.mark.parametrize("encoding, data, problem", [
    *([("br", b"\x1b", "encoded as 'br', which the request did not ask for")] if _no_brotli() else []),
    ("zstd", b"\x28\xb5", "encoded as 'zstd'"),
    # mtime=0: the bytes are the test's id, which must not change with the clock (pytest-xdist's
    # workers each collect the suite and refuse to run when their ids differ)
    ("gzip", gzip.compress(b"x" * 1000, mtime=0)[:-8], "gzip body is cut short"),
    ("gzip", b"not gzip at all", "not valid gzip"),
])
def test_an_encoding_not_asked_for_or_broken_is_named(encoding, data, problem):
    with pytest.raises(UnaskedEncoding, match=problem):
        read(data, encoding, cap=10**6)


# -- JSON at any depth and size -----------------------------------------------------------------

def test_json_nested_past_the_limit_is_not_json_at_any_depth():
    assert loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    for depth in (MAX_JSON_DEPTH + 1, 100_000):
        with pytest.raises(NotJSON, match="nested deeper than"):
            loads('{"a": ' + "[" * depth + "]" * depth + "}")


def test_a_number_past_pythons_digit_limit_is_not_json():
    with pytest.raises(NotJSON, match="a number of more than 4,300 digits"):
        loads('{"usage": {"prompt_tokens": ' + "9" * 5000 + "}}")


def test_a_status_error_with_a_deep_body_keeps_its_text():
    deep = ('{"error": {"message": ' + "[" * 50_000 + "]" * 50_000 + "}}").encode()
    error = StatusError(500, {}, deep)
    assert error.status_code == 500 and error.message.startswith('{"error": {"message": [[[')
    assert len(error.message) <= 2000


async def test_deep_or_huge_answers_are_malformed_and_asked_again():
    """Before: RecursionError was a final error of the item, never retried."""
    deep = b'{"choices": [{"message": {"content": "(A)", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}"
    huge = json.dumps({**ANSWER, "usage": {"prompt_tokens": "N"}}).replace('"N"', "9" * 5000).encode()
    script = [httpx.Response(200, content=deep), httpx.Response(200, content=huge), httpx.Response(200, json=ANSWER)]
    backend = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", policy=FAST,
                            transport=httpx.MockTransport(lambda request: script.pop(0)))
    (response,) = [r async for r in backend.generate([Request("i", parts=(TextPart("q"),))])]
    await backend.aclose()
    assert (response.status, response.text, response.attempts) == ("ok", "(B)", 3)
    assert response.error.startswith("malformed answer: the answer is not JSON we can read (a number of more than 4,300 digits")


@pytest.mark.parametrize("listing", [
    b'{"object": "list", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"object": "list", "data": [], "n": ' + b"7" * 5000 + b"}",
])
async def test_a_deep_or_huge_model_listing_is_asked_again(listing):
    """Before: the listing's RecursionError or digit limit ended the run: "cannot reach ... start the server"."""
    answers = [httpx.Response(200, content=listing), httpx.Response(200, json=LISTING)]

    def server(request: httpx.Request) -> httpx.Response:
        return answers.pop(0) if request.url.path.endswith("/models") else httpx.Response(200, json=ANSWER)

    backend = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", policy=FAST,
                            transport=httpx.MockTransport(server))
    await backend.preflight([Request("i", parts=(TextPart("q"),))])
    await backend.aclose()
    assert not answers, "the listing was asked again"


# -- only 2xx is an answer ----------------------------------------------------------------------

async def one_answer(handler, base_url="http://127.0.0.1:9/v1", **kw):
    backend = OpenAIBackend("m", base_urls=[base_url], api_key="sk-secret-key-0123456789", policy=FAST,
                            transport=httpx.MockTransport(handler), **kw)
    try:
        return [r async for r in backend.generate([Request("i", parts=(TextPart("q"),))])][0]
    finally:
        await backend.aclose()


async def test_a_3xx_carrying_a_completion_is_no_answer():
    """Before: stored as ok (any status below 400 was success)."""
    sent: list[str] = []

    def handler(request):
        sent.append(str(request.url))
        return httpx.Response(302, json=ANSWER)

    response = await one_answer(handler)
    assert (response.status, response.text, response.attempts) == ("error", "", 1)
    assert response.error == "HTTP 302: a redirect without a Location, not an answer; check --base-url"
    assert sent == ["http://127.0.0.1:9/v1/chat/completions"]


async def test_a_redirect_is_named_with_its_location_and_never_followed():
    """Before: "cut short (0 characters)", retried; the Location never named."""
    sent: list[str] = []

    def handler(request):
        sent.append(str(request.url))
        return httpx.Response(308, headers={"Location": "https://me:hunter2hunter2@new.example/v2/chat/completions?q=1"})

    response = await one_answer(handler)
    assert response.status == "error" and sent == ["http://127.0.0.1:9/v1/chat/completions"]
    assert response.error == ("HTTP 308: redirected to https://new.example/v2/chat/completions?q=1; "
                              "set --base-url to https://new.example/v2 (not followed: the key would go along)")


async def test_a_relative_redirect_names_the_base_url_to_set():
    response = await one_answer(lambda request: httpx.Response(301, headers={"Location": "/api/v1/chat/completions"}))
    assert response.error.startswith("HTTP 301: redirected to http://127.0.0.1:9/api/v1/chat/completions; "
                                     "set --base-url to http://127.0.0.1:9/api/v1 ")


async def test_a_redirect_at_start_up_stops_the_run_naming_it():
    def handler(request):
        return httpx.Response(307, headers={"Location": "http://127.0.0.1:9/other/v1/models"})

    backend = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", policy=FAST,
                            transport=httpx.MockTransport(handler))
    with pytest.raises(ConfigError, match=r"^http://127.0.0.1:9/v1: HTTP 307: redirected to "
                                          r"http://127.0.0.1:9/other/v1/models; set --base-url to http://127.0.0.1:9/other/v1 "):
        await backend.preflight([Request("i", parts=(TextPart("q"),))])
    await backend.aclose()


async def test_an_answer_past_the_cap_is_the_items_error():
    response = await one_answer(lambda request: httpx.Response(200, content=b" " * 5000 + json.dumps(ANSWER).encode()),
                                max_response_bytes=4096)
    assert (response.status, response.attempts) == ("error", 1)
    assert response.error.startswith("answer exceeded 4096 bytes (")


# -- credentials in the base URL ----------------------------------------------------------------

async def test_credentials_in_the_base_url_go_as_basic_auth_from_a_url_without_them():
    """Before: aiohttp refused the request (a ValueError), reported as "cannot reach ... start the server"."""
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        return httpx.Response(200, json=LISTING if request.url.path.endswith("/models") else ANSWER)

    backend = OpenAIBackend("m", base_urls=["http://us%40er:p%3Assword-1@127.0.0.1:9/v1"], api_key="sk-unused-0123456789",
                            policy=FAST, transport=httpx.MockTransport(handler))
    await backend.preflight([Request("i", parts=(TextPart("q"),))])
    await backend.aclose()
    assert {str(r.url) for r in seen} == {"http://127.0.0.1:9/v1/models", "http://127.0.0.1:9/v1/chat/completions"}
    token = base64.b64encode(b"us@er:p:ssword-1").decode()
    assert {r.headers["Authorization"] for r in seen} == {f"Basic {token}"}, "as httpx (the SDK) sends them"
    assert backend.describe()["base_urls"] == ["http://127.0.0.1:9/v1"]


def test_a_server_echoing_the_basic_token_or_password_gets_it_redacted():
    endpoint = Endpoint("http://user:pass-word-42@127.0.0.1:9/v1", "EMPTY", concurrency=1, timeout=None)
    token = base64.b64encode(b"user:pass-word-42").decode()
    error = StatusError(401, {}, f'{{"error": {{"message": "no: Basic {token}; token {token}, pass-word-42"}}}}'.encode(),
                        endpoint.redact)
    assert token not in error.message and "pass-word-42" not in error.message


def test_the_manifest_records_the_base_url_without_credentials():
    config = RunConfig(model="openai:m", base_urls=("http://me:s3cret-pw@10.0.0.1:8000/v1", "http://[::1]:8000/v1"))
    assert config.to_manifest()["base_urls"] == ["http://10.0.0.1:8000/v1", "http://[::1]:8000/v1"]


def test_a_url_with_credentials_needs_no_key(monkeypatch):
    from mmmu_eval.run.backend_settings import backend_settings

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = RunConfig(model="openai:m", base_urls=("https://me:pw@models.example/v1",))
    backend = OpenAIBackend.from_settings("m", backend_settings(config).openai)
    assert backend.describe()["base_urls"] == ["https://models.example/v1"]


def test_a_location_is_shown_bounded_and_with_its_control_characters_escaped():
    error = Redirected(301, "http://x.example/" + "a" * 5000, "http://127.0.0.1:9/v1/chat/completions")
    assert len(error.location) == 200 and error.location.endswith("...")
    error = Redirected(302, "http://x.example/\x1b]0;owned\x07\x1b[2J", "http://127.0.0.1:9/v1/chat/completions")
    assert error.location == "http://x.example/\\x1b]0;owned\\x07\\x1b[2J"
