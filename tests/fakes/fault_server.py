"""An OpenAI-compatible server on loopback that misbehaves on purpose, for fault-injection tests.

Standard library only (``http.server``, one thread per connection). ``POST /v1/chat/completions``
fails at a high rate with every fault a real server or proxy produces (429 with Retry-After,
500, 503, a connection dropped without an answer, a stall, and 200 answers that are no usable
completion: a body that is not JSON, not UTF-8 or cut short, no choices, a ``content`` that is
null or a list with no text, an event stream to a request that asked for none) and otherwise answers
deterministically from the request: ``expected_answer(key)`` where the key is the request's text
and a digest of its images (``request_key``). So a test can check that every item got exactly its own answer.

Faults are a pure function of (seed, key, attempt number): the first attempts of a key fail
with probability ``fault_rate`` each, at most ``max_faults`` of them, and never more than two
malformed ones in a row (the client gives up after three). The server counts attempts per key.

Two switches make a run's course depend on what the server has received, never on how fast a
loaded machine is: ``hold_after=N`` holds every chat request after the first N until
``release()`` (a run that cannot finish until the test lets it: kill it, Ctrl-C it, or starve one
endpoint), and ``break_after=N`` answers every chat request after the first N with HTTP 500 (an
engine that died mid-run). ``received`` counts chat requests as they arrive; ``holding`` is how
many wait at the moment.

    with FaultServer(fault_rate=0.6, latency=0.01) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k")
        ...
        assert server.stats["answered"] == len(requests)

Run it alone (for the kill test's subprocess, or by hand): ``python tests/fakes/fault_server.py
--port 0 --latency 0.05`` prints its URL on the first line of stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import socket
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

if not __package__:  # run as a script (``python tests/fakes/fault_server.py``): find ``fakes``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakes.wire_faults import (  # noqa: E402
    BOMB_BYTES,
    ENDLESS_BYTES,
    WIRE_FAULTS,
    WIRE_MALFORMED,
    authorised,
    followed,
    send_wire_fault,
)

#: Failed answers: an HTTP error, a 200 that is no usable completion, or no answer at all.
FAULTS = ("429", "500", "503", "not-json", "empty-choices", "drop", "stall",
          "bad-utf8", "truncated", "null-content", "list-content", "stream")
MALFORMED = frozenset({"not-json", "empty-choices", "bad-utf8", "truncated", "null-content", "list-content",
                       "stream"})

# -- hostile servers (issue 29, text, numbers, secrets, refusals) -------------------------------
#: Failed attempts of a hostile server, drawn like ``FAULTS`` when a test opts in
#: (``faults=FAULTS + HOSTILE_FAULTS``): a 200 whose token counts are out of range (negative, or
#: 10**400), an HTTP 500 whose message holds a lone surrogate (``\ud800``), and an HTTP 500 that
#: echoes the request's headers, API key included, in its message; and (issue 40) an HTTP 500
#: whose message would drive a terminal (``TERMINAL_ESCAPES``).
HOSTILE_FAULTS = ("negative-tokens", "huge-tokens", "surrogate-error", "echo-headers", "escape-error")
#: What the ``escape-error`` fault says: retitle the window, clear the screen, plant an OSC 8
#: hyperlink, ring the bell, return to the line's start; and Rich markup and an emoji code.
TERMINAL_ESCAPES = ("\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://evil.example/\x1b\\click here\x1b]8;;\x1b\\\r"
                    "[bold red]fine[/bold red] :smile: \u202edesrever\x9b31m")
#: The hostile faults that are 200 answers no client can use (counted with ``MALFORMED``).
HOSTILE_MALFORMED = frozenset({"negative-tokens", "huge-tokens"})
#: Answers, not faults: what the server says instead of ``expected_answer(key)`` for the keys
#: ``answer_modes_rate`` picks (the same keys on every attempt and every server with that seed):
#: ``surrogate`` (lone surrogates in the content, ``reasoning_content`` and ``finish_reason``),
#: ``refusal`` (content null, the text in ``refusal``), ``content-filter`` (content null,
#: ``finish_reason: content_filter``), ``bom`` (the JSON body starts with a UTF-8 BOM).
ANSWER_MODES = ("surrogate", "refusal", "content-filter", "bom")
#: The start-up probe's text (``mmmu_eval.backends.openai_body.PROBE_TEXT``): a hostile fault
#: spares the probe unless ``spare_probe`` is False, so a test sees what a run stores.
PROBE_TEXT = "Reply with one letter."
#: The refusal text of the ``refusal`` mode.
REFUSAL_TEXT = "I'm sorry, but I can't help with that."


def answer_mode(key: str, modes: tuple[str, ...], rate: float, seed: int = 0) -> str | None:
    """The answer mode of ``key`` (None: a plain answer): a pure function of seed and key."""
    if not modes:
        return None
    rng = random.Random(f"{seed}:mode:{key}")
    return rng.choice(modes) if rng.random() < rate else None


def _hostile_fault(handler: "_Handler", owner: "FaultServer", fault: str, key: str, attempt: int, body: dict) -> None:
    """Send one of ``HOSTILE_FAULTS``."""
    if fault in ("negative-tokens", "huge-tokens"):
        answer = handler._completion(owner, key, attempt, body, count=False)
        if fault == "negative-tokens":
            answer["usage"]["completion_tokens"] = -1
        else:  # 10**400 is valid JSON, and no float holds it
            answer["usage"]["prompt_tokens"] = _HUGE
        handler._raw(200, _spliced(answer), "application/json")
    elif fault == "surrogate-error":
        handler._raw(500, _spliced({"error": {"message": f"overloaded {_HIGH} try again", "code": _LOW}}),
                     "application/json")
    elif fault == "echo-headers":
        sent = "; ".join(f"{name}: {value}" for name, value in handler.headers.items())
        handler._json(500, {"error": {"message": f"upstream refused the request with headers {sent}"}})
    elif fault == "escape-error":
        handler._json(500, {"error": {"message": f"overloaded {TERMINAL_ESCAPES} try again"}})


def _hostile_answer(answer: dict, mode: str | None) -> bytes | None:
    """The bytes of ``answer`` in answer ``mode``; None for a plain answer."""
    if mode is None:
        return None
    message, choice = answer["choices"][0]["message"], answer["choices"][0]
    if mode == "surrogate":  # written as JSON escapes, as a server that cuts a character in half writes them
        message["content"] = f"{message['content']} {_HIGH}"
        message["reasoning_content"] = f"first {_HIGH} then {_LOW}"
        choice["finish_reason"] = f"stop{_LOW}"
    elif mode == "refusal":
        message["content"], message["refusal"] = None, REFUSAL_TEXT
    elif mode == "content-filter":
        message["content"], choice["finish_reason"] = None, "content_filter"
    elif mode == "bom":
        return b"\xef\xbb\xbf" + json.dumps(answer).encode()
    return _spliced(answer)


# Stand-ins replaced in the encoded JSON by what ``json.dumps`` cannot write: lone surrogate
# escapes, and a whole number larger than any float.
_HIGH, _LOW, _HUGE = "@@high-surrogate@@", "@@low-surrogate@@", "@@huge-number@@"


def _spliced(data: dict) -> bytes:
    text = json.dumps(data).replace(_HIGH, "\\ud800").replace(_LOW, "\\udfff")
    return text.replace(f'"{_HUGE}"', "1" + "0" * 400).encode()


# -- end of hostile servers ------------------------------------------------------------------


def request_key(body: dict) -> str:
    """What identifies an item's request: its user text and a digest of its image URLs, in order."""
    texts: list[str] = []
    images = hashlib.sha256()
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
            continue
        for part in content or []:
            if part.get("type") == "text":
                texts.append(part.get("text", ""))
            elif part.get("type") == "image_url":
                images.update(part["image_url"]["url"].encode())
    return f"{''.join(texts)}|images={images.hexdigest()[:16]}"


def expected_answer(key: str) -> str:
    """The server's answer to a key: a letter the official parser reads, derived from the key."""
    letter = "ABCD"[hashlib.sha256(key.encode()).digest()[0] % 4]
    return f"The answer is ({letter})."


# -- servers no request can pass (issue 29: quota, key, model, a hung chat endpoint) ---------------
#: What every chat request after the first ``never_after`` gets, by mode name (``never=NAME``): the
#: answers of OpenAI's API for an exhausted quota, a revoked key, a key without access and a
#: model it does not have (status, body); ``hang`` holds the request unanswered until the server
#: stops, as a chat endpoint that hangs behind a working ``/models``. Set ``server.never = None``
#: to lift it (credit added, the key fixed).
NEVER: dict[str, tuple[int, dict] | None] = {
    "quota": (429, {"error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}),
    "revoked-key": (401, {"error": {
        "message": "Incorrect API key provided: sk-proj-****abcd. You can find your API key at "
                   "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}),
    "forbidden": (403, {"error": {
        "message": "Project `proj_abc` does not have access to model `fake-model`",
        "type": "invalid_request_error", "param": None, "code": "model_not_found"}}),
    "model-gone": (404, {"error": {
        "message": "The model `fake-model` does not exist or you do not have access to it.",
        "type": "invalid_request_error", "param": None, "code": "model_not_found"}}),
    "hang": None,
}
# -- end of servers no request can pass ---------------------------------------------------------


class FaultServer:
    """The server; a context manager that starts it on a free port and stops it."""

    def __init__(
        self,
        *,
        fault_rate: float = 0.5,
        max_faults: int = 3,
        faults: tuple[str, ...] = FAULTS,
        latency: float = 0.0,
        stall: float | None = None,
        retry_after: str = "0",
        always_fail: frozenset[str] = frozenset(),
        hold_after: int | None = None,
        break_after: int | None = None,
        never: str | None = None,
        never_after: int = 0,
        model: str = "fake-model",
        seed: int = 0,
        port: int = 0,
        answer: Callable[[dict], str] | None = None,
        cut_at_max_tokens: bool = False,
        refuse: Callable[[dict], bool] | None = None,
        answer_modes: tuple[str, ...] = (),
        answer_modes_rate: float = 1.0,
        spare_probe: bool = True,
        basic_auth: tuple[str, str] | None = None,
        bomb_bytes: int = BOMB_BYTES,
        endless_bytes: int = ENDLESS_BYTES,
    ) -> None:
        """
        Args:
            fault_rate: chance that each of a key's first ``max_faults`` attempts fails.
            faults: the fault kinds to draw from (``FAULTS``).
            latency: seconds before every real answer (slow answers).
            stall: seconds at most a ``stall`` fault holds its request; None holds it until the
                server has finished another request since, or every request it holds is a stall
                (then the connection is closed without an answer). So a stall is outlived by the
                work around it, on any machine, and a run never waits on a clock for it.
            retry_after: the Retry-After header sent with 429.
            always_fail: keys that get HTTP 500 on every attempt (the client must give up).
            hold_after: chat requests after the first ``hold_after`` wait until ``release()``.
            break_after: chat requests after the first ``break_after`` get HTTP 500.
            never, never_after: chat requests after the first ``never_after`` get the ``NEVER``
                answer named ``never`` (0: the start-up probe already); None answers as usual.
            model: the one model ``/v1/models`` lists.
            answer: the answer text for a request body; None answers ``expected_answer(key)``.
            cut_at_max_tokens: count each word of an answer as a token and cut an answer longer
                than the request's ``max_tokens`` there, with ``finish_reason`` length, as a
                server at its limit does (off: every answer is whole, 6 completion tokens).
            refuse: bodies it returns True for get HTTP 400 (a final refusal, never retried).
            answer_modes, answer_modes_rate: the ``ANSWER_MODES`` its answers take, for the share
                ``answer_modes_rate`` of keys (``answer_mode``); () answers every key plainly.
            spare_probe: answer the start-up probe although a ``HOSTILE_FAULTS`` or ``WIRE_FAULTS``
                fault is drawn.
            basic_auth, bomb_bytes, endless_bytes: the wire faults' (``fakes/wire_faults.py``).
        """
        self.fault_rate = fault_rate
        self.max_faults = max_faults
        self.faults = faults
        self.latency = latency
        self.stall = stall
        self.retry_after = retry_after
        self.always_fail = always_fail
        self.broken = False
        self.hold_after = hold_after
        self.break_after = break_after
        if never is not None and never not in NEVER:
            raise ValueError(f"never={never!r} is not one of {', '.join(NEVER)}")
        self.never = never
        self.never_after = never_after
        self.received = 0
        self.holding = 0
        self.listed = threading.Event()
        """Set when ``/v1/models`` is first asked; ``listings`` counts the askings."""
        self.listings = 0
        self._released = threading.Event()
        self.model = model
        self.seed = seed
        self.answer = answer
        self.cut_at_max_tokens = cut_at_max_tokens
        self.refuse = refuse
        self.answer_modes = answer_modes
        self.answer_modes_rate = answer_modes_rate
        self.spare_probe = spare_probe
        self.basic_auth = basic_auth
        self.bomb_bytes = bomb_bytes
        self.endless_bytes = endless_bytes
        self.bodies: list[dict] = []
        """Every chat request body received, in arrival order."""
        self.chat_bytes = 0
        """Bytes of every chat request body received (Content-Length), as they came over the wire."""
        self.attempts: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.stats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._progress = threading.Condition(self._lock)
        self._in_flight = 0
        self._stalled = 0
        self._finished = 0
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def url_with_credentials(self) -> str:
        """``url`` with the ``user:password@`` of ``basic_auth`` (``url`` when it asks none)."""
        if self.basic_auth is None:
            return self.url
        return f"http://{':'.join(self.basic_auth)}@127.0.0.1:{self.port}/v1"

    def start(self) -> "FaultServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FaultServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def release(self) -> None:
        """Let every held request go on, and hold none from now on."""
        self._released.set()

    def _stall(self) -> None:
        """Hold a request without answering it; see ``stall`` in ``__init__``."""
        deadline = None if self.stall is None else time.monotonic() + self.stall
        with self._progress:
            finished = self._finished
            self._stalled += 1
            self._progress.notify_all()
            try:
                while not (self._stopping.is_set() or self._finished != finished or self._stalled >= self._in_flight
                           or (deadline is not None and time.monotonic() >= deadline)):
                    self._progress.wait(0.05)  # the wait only polls for stop(); progress notifies
            finally:
                self._stalled -= 1

    def _hold(self) -> None:
        with self._lock:
            self.holding += 1
        try:
            while not (self._released.wait(0.05) or self._stopping.is_set()):
                pass
        finally:
            with self._lock:
                self.holding -= 1

    def break_down(self) -> None:
        """From now on answer every chat request with HTTP 500, as a server whose engine died
        (``/models`` still answers, and open keep-alive connections stay up)."""
        self.broken = True

    def plan(self, key: str, attempt: int) -> str | None:
        """The fault for attempt number ``attempt`` (0-based) of ``key``, or None to answer."""
        if self.broken or key in self.always_fail:
            return "500"
        malformed_run = 0
        for k in range(min(attempt + 1, self.max_faults)):
            rng = random.Random(f"{self.seed}:{key}:{k}")
            if rng.random() >= self.fault_rate:
                return None  # this attempt, and every later one, is answered
            bad = MALFORMED | HOSTILE_MALFORMED | WIRE_MALFORMED
            kinds = [f for f in self.faults if not (f in bad and malformed_run >= 2)]
            kind = rng.choice(kinds)
            malformed_run = malformed_run + 1 if kind in bad else 0
            if k == attempt:
                return kind
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # a burst of 256 connections must not overflow the listen backlog
    owner: FaultServer

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away (killed, timed out) is no error of the server's: no trace."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        owner = self.server.owner
        if not authorised(self, owner) or followed(self, owner):
            return
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            with owner._lock:
                owner.listings += 1
            owner.listed.set()
            self._json(200, {"object": "list", "data": [
                {"id": owner.model, "object": "model", "created": 0, "owned_by": "fault-server"}]})
        elif self.path == "/health":
            self._json(200, {"status": "ok"})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        with owner._progress:
            owner._in_flight += 1
            owner._progress.notify_all()
        try:
            self._answer_post(owner)
        finally:
            with owner._progress:
                owner._in_flight -= 1
                owner._finished += 1
                owner._progress.notify_all()

    def _answer_post(self, owner: FaultServer) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not authorised(self, owner) or followed(self, owner):
            return
        if self.path.rstrip("/").endswith("/chat/completions"):
            with owner._lock:
                owner.chat_bytes += len(raw)
        body = json.loads(raw or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        if body.get("model") != owner.model:
            self._json(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            return
        key = request_key(body)
        with owner._lock:
            owner.bodies.append(body)
            attempt = owner.attempts[key]
            owner.attempts[key] += 1
            arrived = owner.received
            owner.received += 1
        if owner.hold_after is not None and arrived >= owner.hold_after and not owner._released.is_set():
            owner._hold()
        fault = owner.plan(key, attempt)
        if fault in HOSTILE_FAULTS + WIRE_FAULTS and owner.spare_probe and key.startswith(PROBE_TEXT):
            fault = None
        if owner.refuse is not None and owner.refuse(body):
            fault = "400"
        if owner.break_after is not None and arrived >= owner.break_after:
            fault = "500"
        never = owner.never
        if never is not None and arrived >= owner.never_after:
            fault = f"never:{never}"
        with owner._lock:
            owner.stats[fault or "answered"] += 1
        if fault is not None and fault.startswith("never:"):
            answer = NEVER[fault.partition(":")[2]]
            if answer is None:  # hang: no answer until the server stops
                owner._stopping.wait()
                self.close_connection = True
            else:
                self._json(*answer)
        elif fault == "429":
            self._json(429, {"error": {"message": "rate limited"}}, {"Retry-After": owner.retry_after})
        elif fault == "400":
            self._json(400, {"error": {"message": "refused: this request breaks a rule of the server", "type": "invalid_request_error"}})
        elif fault in ("500", "503"):
            self._json(int(fault), {"error": {"message": f"injected {fault}"}})
        elif fault == "not-json":
            self._raw(200, b"<html><body>502 Bad Gateway</body></html>", "application/json")
        elif fault == "empty-choices":
            self._json(200, {"id": "x", "object": "chat.completion", "created": 0, "model": owner.model,
                             "choices": []})
        elif fault == "bad-utf8":
            self._raw(200, b'{"choices": [{"message": {"content": "\xff\xfe"}}]}', "application/json")
        elif fault == "truncated":
            self._raw(200, json.dumps(self._completion(owner, key, attempt, body, count=False)).encode()[:-25],
                      "application/json")
        elif fault in ("null-content", "list-content"):
            answer = self._completion(owner, key, attempt, body, count=False)
            answer["choices"][0]["message"]["content"] = (
                None if fault == "null-content" else [{"type": "image_url", "image_url": {"url": "x"}}])
            self._json(200, answer)
        elif fault == "stream":
            chunk = {"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "The"}}]}
            self._raw(200, f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode(), "text/event-stream")
        elif fault == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif fault == "stall":
            owner._stall()
            self.close_connection = True
        elif fault in HOSTILE_FAULTS:
            _hostile_fault(self, owner, fault, key, attempt, body)
        elif fault in WIRE_FAULTS:
            send_wire_fault(self, owner, fault, self._completion(owner, key, attempt, body, count=False))
        else:
            if owner.latency:
                owner._stopping.wait(owner.latency)
            answer = self._completion(owner, key, attempt, body)
            hostile = _hostile_answer(answer, answer_mode(key, owner.answer_modes, owner.answer_modes_rate, owner.seed))
            if hostile is None:
                self._json(200, answer)
            else:
                self._raw(200, hostile, "application/json")

    @staticmethod
    def _completion(owner: FaultServer, key: str, attempt: int, body: dict, *, count: bool = True) -> dict:
        """The real answer to ``key``; counted as answered unless ``count`` is False (a fault's)."""
        text = owner.answer(body) if owner.answer else expected_answer(key)
        finish, completion = "stop", 6
        if owner.cut_at_max_tokens:
            words, limit = text.split(), body.get("max_tokens")
            completion = len(words)
            if isinstance(limit, int) and len(words) > limit:
                text, finish, completion = " ".join(words[:limit]), "length", limit
        if count:
            with owner._lock:
                owner.answered[key] += 1
        return {
            "id": f"chatcmpl-{attempt}", "object": "chat.completion", "created": int(time.time()),
            "model": owner.model,
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": len(key) // 4 + 1, "completion_tokens": completion,
                      "total_tokens": len(key) // 4 + 1 + completion},
        }

    def _json(self, status: int, data: dict, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(data).encode(), "application/json", headers)

    def _raw(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def key_of(request) -> str:
    """The key the server files an ``mmmu_eval`` Request under, from the body the OpenAI backend builds."""
    from mmmu_eval.prompt.messages import build_messages

    messages, _ = build_messages(request)
    return request_key({"messages": messages})


def sample_requests(split: str = "validation") -> list:
    """The requests ``mmmu-eval run --data sample --split SPLIT`` sends (MMMU, direct prompt)."""
    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.prompt.protocol import EvalProtocol, build_request

    protocol = EvalProtocol.from_config(RunConfig(model="openai:fake-model", benchmark="mmmu", split=split, data="sample"))
    return [build_request(item, protocol) for item in load_benchmark("mmmu", split=split, data="sample").items]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--model", default="fake-model")
    args = parser.parse_args(argv)
    server = FaultServer(port=args.port, latency=args.latency, fault_rate=args.fault_rate,
                         faults=tuple(f for f in FAULTS if f != "stall"), model=args.model)
    server.start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
