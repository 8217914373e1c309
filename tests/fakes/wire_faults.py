"""The fault server's wire faults (issue 40): answers no client may read whole or take as an answer.

Drawn like the other faults (``FaultServer(faults=WIRE_FAULTS)``), each a failed attempt:

- ``gzip-bomb``: a 200 with ``Content-Encoding: gzip`` whose body (about 1 MB) inflates to a
  real completion followed by ``BOMB_BYTES`` (1 GiB) of spaces: valid JSON, so a client that
  inflates it whole stores it as an answer after holding it all.
- ``endless``: a 200 with a chunked body that never ends: the start of a completion, then spaces
  for as long as the client reads (at most ``ENDLESS_BYTES`` per request, a guard for machines
  running the old code).
- ``3xx-body``: HTTP 302 carrying a real completion and no ``Location``: not an answer.
- ``redirect``: HTTP 308 to ``/moved/v1/chat/completions`` on the same server, with the server's
  own address and the ``user:password@`` it was given in the ``Location``; a request that
  follows it is counted (``FaultServer.stats["followed"]``) and refused.
- ``deep-json``: a 200 whose completion holds a list nested 100,000 deep.
- ``huge-int``: a 200 whose ``usage.prompt_tokens`` is a 5,000-digit number (past Python's 4,300).

``basic_auth=("user", "password")`` makes the server refuse (401) every request without that HTTP
Basic auth, as a reverse proxy in front of a model server does: ``FaultServer.url_with_credentials``.
"""

from __future__ import annotations

import base64
import functools
import json
import struct
import zlib
from typing import Any

WIRE_FAULTS = ("gzip-bomb", "endless", "3xx-body", "redirect", "deep-json", "huge-int")
#: The wire faults that are 200 answers no client can use (counted with ``MALFORMED``).
WIRE_MALFORMED = frozenset({"deep-json", "huge-int"})
#: Bytes of spaces after the completion in the gzip bomb, and the most an endless body sends.
BOMB_BYTES = 2**30
ENDLESS_BYTES = 2**31
#: Where ``redirect`` points (a path on the same server, counted when followed).
MOVED = "/moved"


@functools.lru_cache(maxsize=4)
def gzip_bomb(completion: bytes, padding: int = BOMB_BYTES) -> bytes:
    """gzip of ``completion`` with ``padding`` spaces spliced in before its last byte (still JSON).

    A megabyte of spaces is deflated once, after a full flush (so it refers to nothing before
    it), and repeated: the bomb is built in a second, not by deflating a gigabyte.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = b" " * 2**20
    count, rest = divmod(padding, len(block))
    last = b" " * rest + completion[-1:]
    head = packer.compress(completion[:-1]) + packer.flush(zlib.Z_FULL_FLUSH)
    one = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    tail = packer.compress(last) + packer.flush()
    crc = zlib.crc32(completion[:-1])
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(last, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # gzip, deflate, no name, no time, unknown OS
    trailer = struct.pack("<II", crc, (len(completion) + padding) % 2**32)
    return header + head + one * count + tail + trailer


def deep_json(depth: int = 100_000) -> bytes:
    return ('{"choices": [{"message": {"content": "The answer is (A).", "extra": ' + "[" * depth + "]" * depth
            + '}}]}').encode()


def huge_int(completion: dict[str, Any], digits: int = 5000) -> bytes:
    marker = "@@huge-int@@"
    completion["usage"]["prompt_tokens"] = marker
    return json.dumps(completion).replace(f'"{marker}"', "9" * digits).encode()


def send_wire_fault(handler: Any, owner: Any, fault: str, completion: dict[str, Any]) -> None:
    """Send one of ``WIRE_FAULTS`` through ``handler`` (the fault server's request handler)."""
    if fault == "gzip-bomb":
        handler._raw(200, gzip_bomb(json.dumps(completion).encode(), owner.bomb_bytes), "application/json",
                     {"Content-Encoding": "gzip"})
    elif fault == "endless":
        _endless(handler, owner, json.dumps(completion).encode()[:-2])
    elif fault == "3xx-body":
        handler._raw(302, json.dumps(completion).encode(), "application/json")
    elif fault == "redirect":
        where = owner.url_with_credentials.replace("/v1", f"{MOVED}/v1", 1) + "/chat/completions"
        handler._raw(308, b"", "application/json", {"Location": where})
    elif fault == "deep-json":
        handler._raw(200, deep_json(), "application/json")
    elif fault == "huge-int":
        handler._raw(200, huge_int(completion), "application/json")
    else:
        raise ValueError(f"no wire fault {fault!r}")


def _endless(handler: Any, owner: Any, head: bytes) -> None:
    """A chunked body that goes on until the client hangs up (or ``owner.endless_bytes`` are sent)."""
    block = b" " * 2**16
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        sent = 0
        for piece in [head] + [block] * (owner.endless_bytes // len(block)):
            if owner._stopping.is_set():
                break
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            sent += len(piece)
        handler.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True


def authorised(handler: Any, owner: Any) -> bool:
    """Whether the request carries the Basic auth the server asks for (always, when it asks none);
    a request without it is answered 401, as a reverse proxy does."""
    if owner.basic_auth is None:
        return True
    expected = "Basic " + base64.b64encode(":".join(owner.basic_auth).encode()).decode()
    if handler.headers.get("Authorization") == expected:
        return True
    with owner._lock:
        owner.stats["unauthorised"] += 1
    handler._raw(401, b'{"error": {"message": "401 Authorization Required"}}', "application/json",
                 {"WWW-Authenticate": 'Basic realm="models"'})
    return False


def followed(handler: Any, owner: Any) -> bool:
    """Whether the request went to where ``redirect`` points: counted, and refused."""
    if not handler.path.startswith(MOVED):
        return False
    with owner._lock:
        owner.stats["followed"] += 1
    handler._raw(418, b'{"error": {"message": "a redirect was followed"}}', "application/json")
    return True
