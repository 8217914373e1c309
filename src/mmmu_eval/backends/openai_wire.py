"""An HTTP answer read off the wire under a cap: decoded as it streams in, and only 2xx is an answer.

A server (or anything pretending to be one) decides how many bytes it sends. Read whole, a 1 MB
gzip body inflating to 1 GiB took a run to 2.2 GB, and an endless chunked body grew by 0.8 GB a
second until the request timeout. Here every body, an answer or an error, is read a chunk at a
time and decoded as it arrives (gzip and deflate by ``zlib`` with an output limit per step, br
where the ``brotli`` package with output limits is installed), and the reading stops at
``cap`` bytes on the wire or decoded: ``AnswerTooLarge``, the attempt's named error, and the
connection is dropped with what it had sent. The request asks only for the encodings decoded
here (``accept_encoding``); a body in another one is ``UnaskedEncoding``, a malformed answer.

A 3xx is no answer, whatever its body holds: ``Redirected`` names where it points (the
``Location``, without credentials, bounded and escaped) and the base URL to set. Redirects are
never followed, so the key never goes to a host the user did not name.

JSON from a server is read by ``loads``: malformed at any depth and size is one error,
``NotJSON`` (a ``ValueError``), never a ``RecursionError`` from deep in the parser or from
whatever later walks the parsed value (a repr, the redaction of secrets).

    body = await read_capped(chunks, encoding="gzip", declared=None, cap=DEFAULT_MAX_RESPONSE_BYTES)
    data = loads(body)
"""

from __future__ import annotations

import json
import zlib
from typing import Any, AsyncIterable, Mapping
from urllib.parse import urljoin, urlsplit

from mmmu_eval.core import jsonfile
from mmmu_eval.core.untrusted import for_terminal
from mmmu_eval.core.urls import without_credentials

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "MAX_JSON_DEPTH", "AnswerTooLarge", "NotJSON", "Redirected",
           "UnaskedEncoding", "accept_encoding", "content_length", "loads", "read_capped", "shown_text"]

#: Deepest nesting of a server's JSON that is read (an answer is about 5 deep; logprobs 8): the
#: limit of every JSON we read (``core.jsonfile.MAX_DEPTH``).
MAX_JSON_DEPTH = jsonfile.MAX_DEPTH
#: Bytes of an answer read at most (``--max-response-bytes``): far above any real answer (a
#: chat completion of 100,000 tokens is well under 1 MB of JSON), far below what hurts a run.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 2**20


class AnswerTooLarge(Exception):
    """The body went past the cap; nothing of it is kept."""

    def __init__(self, cap: int, where: str) -> None:
        super().__init__(f"answer exceeded {cap} bytes ({where}); raise --max-response-bytes if the server's "
                         "answers really are that large")
        self.cap = cap


class UnaskedEncoding(Exception):
    """The body is encoded in a way the request did not ask for, or its encoding is broken."""


class Redirected(Exception):
    """The server answered 3xx: where it points, as it may be shown, and the base URL to set."""

    def __init__(self, status: int, location: str | None, request_url: str) -> None:
        self.status = status
        self.location = None if not location else shown_text(without_credentials(urljoin(request_url, location)), 200)
        if self.location is None:
            message = f"HTTP {status}: a redirect without a Location, not an answer; check --base-url"
        else:
            base = _base_of(self.location)
            message = f"HTTP {status}: redirected to {self.location}; set --base-url to {base or 'it'}"
            message += " (not followed: the key would go along)"
        super().__init__(message)
        self.message = message


def _base_of(location: str) -> str | None:
    """The base URL a redirected request names: its path less ``/chat/completions`` or ``/models``."""
    parts = urlsplit(location)
    for tail in ("/chat/completions", "/models"):
        if parts.path.rstrip("/").endswith(tail):
            return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')[: -len(tail)]}"
    return None


def shown_text(text: str, limit: int = 300) -> str:
    """Outside text as it may be printed: control characters as escapes (``core.untrusted.for_terminal``,
    newlines and tabs too: it is one line of a message), at most ``limit`` characters."""
    escaped = for_terminal(text[: limit * 4]).replace("\n", "\\n").replace("\t", "\\t")
    return escaped if len(escaped) <= limit else escaped[: limit - 3] + "..."


# -- decoding ---------------------------------------------------------------------------------

def _brotli_decompressor():  # pragma: no cover - only with the optional ``brotli`` >= 1.2
    """A brotli decoder that can limit its output per step, or None when none is installed."""
    try:
        import brotli
    except ImportError:
        return None
    decoder = brotli.Decompressor()
    return decoder if hasattr(decoder, "can_accept_more_data") else None


def accept_encoding() -> str:
    """The encodings a request asks for: the ones ``read_capped`` decodes under its cap."""
    return "gzip, deflate" + (", br" if _brotli_decompressor() is not None else "")


class _Identity:
    def feed(self, data: bytes, room: int) -> bytes:
        return data

    def finish(self) -> None:
        pass


class _Inflate:
    """gzip (members one after another) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._head = b""
        self._z: zlib._Decompress | None = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzip else None
        self._fed = False

    def feed(self, data: bytes, room: int) -> bytes:
        """At most ``room + 1`` bytes of output (one past the cap is enough to know it is past)."""
        if self._z is None:  # deflate: its first two bytes say whether a zlib header comes
            self._head += data
            if len(self._head) < 2:
                return b""
            data, self._head = self._head, b""
            wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        out = bytearray()
        try:
            while data and len(out) <= room:
                if self._z.eof:  # a gzip member ended: another may follow
                    if not self._gzip:
                        raise UnaskedEncoding("the deflate body goes on after its end")
                    self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                out += self._z.decompress(data, room + 1 - len(out))
                data = self._z.unused_data if self._z.eof else self._z.unconsumed_tail
                self._fed = True
        except zlib.error as exc:
            raise UnaskedEncoding(f"the body is not valid {'gzip' if self._gzip else 'deflate'} ({exc})") from None
        return bytes(out)

    def finish(self) -> None:
        if self._head or (self._fed and self._z is not None and not self._z.eof):
            raise UnaskedEncoding(f"the {'gzip' if self._gzip else 'deflate'} body is cut short")


class _Brotli:  # pragma: no cover - only with the optional ``brotli`` >= 1.2
    def __init__(self, decoder) -> None:
        self._d = decoder

    def feed(self, data: bytes, room: int) -> bytes:
        try:
            out = bytearray(self._d.process(data, output_buffer_limit=room + 1))
            while len(out) <= room and not self._d.can_accept_more_data():
                out += self._d.process(b"", output_buffer_limit=room + 1 - len(out))
        except Exception as exc:  # brotli.error
            raise UnaskedEncoding(f"the body is not valid br ({exc})") from None
        return bytes(out)

    def finish(self) -> None:
        if not self._d.is_finished():
            raise UnaskedEncoding("the br body is cut short")


def _decoder(encoding: str | None):
    name = (encoding or "identity").strip().lower()
    if name == "identity":
        return _Identity()
    if name in ("gzip", "x-gzip", "deflate"):
        return _Inflate(gzip=name != "deflate")
    if name == "br" and (decoder := _brotli_decompressor()) is not None:  # pragma: no cover
        return _Brotli(decoder)
    raise UnaskedEncoding(f"the body is encoded as {shown_text(name, 40)!r}, which the request did not ask for "
                          f"(it asked for {accept_encoding()})")


async def read_capped(chunks: AsyncIterable[bytes], *, encoding: str | None, declared: int | None, cap: int) -> bytes:
    """The body, decoded, from the chunks it arrives in.

    Args:
        chunks: the body as it comes off the wire (still encoded).
        encoding: its ``Content-Encoding``; None for none.
        declared: its ``Content-Length``, when given: past the cap, nothing is read.
        cap: most bytes on the wire, and decoded.

    Raises:
        AnswerTooLarge: past ``cap``; the caller drops the connection.
        UnaskedEncoding: an encoding not asked for, or broken.
    """
    decoder = _decoder(encoding)
    if declared is not None and declared > cap:
        raise AnswerTooLarge(cap, f"its Content-Length says {declared}")
    wire = size = 0
    parts: list[bytes] = []
    async for chunk in chunks:
        wire += len(chunk)
        if wire > cap:
            raise AnswerTooLarge(cap, "on the wire")
        out = decoder.feed(chunk, cap - size)
        size += len(out)
        if size > cap:
            raise AnswerTooLarge(cap, "decoded")
        if out:
            parts.append(out)
    decoder.finish()
    return parts[0] if len(parts) == 1 else b"".join(parts)


def content_length(headers: Mapping[str, str]) -> int | None:
    """The declared ``Content-Length``; None when absent or not a number (the body's end decides)."""
    value = headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# -- JSON -------------------------------------------------------------------------------------

class NotJSON(ValueError):
    """A server's body that is not JSON this client reads: the reason, without the body."""


def loads(text: str | bytes) -> Any:
    """``json.loads`` of a server's body, with every way it can fail as ``NotJSON``: the one
    reader of JSON we did not write (``core.jsonfile.loads``), its failures named for a server.

    Raises:
        NotJSON: not JSON (``json.JSONDecodeError`` is kept as the cause, with its position),
            a whole number past Python's digit limit, or nesting deeper than ``MAX_JSON_DEPTH``.
    """
    try:
        return jsonfile.loads(text, MAX_JSON_DEPTH)
    except json.JSONDecodeError:
        raise
    except jsonfile.MalformedJSON as exc:
        raise NotJSON(str(exc)) from None
