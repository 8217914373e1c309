"""Down-scaling an image (``--max-image-pixels``) without decoding it whole, and the decode budget.

A 13000x13000 PNG is 657 KB on disk and 507 MB decoded; decoded whole before it was scaled, two
of them in flight took a run to 2.87 GB. So an image is opened lazily (Pillow reads the header:
width and height) and checked against the budget before anything is decoded, and then only as
much is decoded as the scaled image needs:

- **The budget** is Pillow's own limit against decompression bombs, ``PIL.Image.MAX_IMAGE_PIXELS``
  (89,478,485 unless a program changes it). An image decoded whole (converted, checked, or
  scaled from a format without reduced decoding) may have at most that many pixels; one decoded
  at a reduced scale (below) at most twice that, the size past which Pillow will not open an
  image at all. Past it an image is ``ImageTooLarge``, its item's error, naming the size. Images
  sent as stored are never decoded and never refused: the server decides.
- **JPEG** is decoded at a reduced scale (``Image.draft``: the decoder's 1/2, 1/4 or 1/8 DCT
  scaling), at least ``REDUCING_GAP`` times the target size, then resampled.
- **PNG** has no reduced decoding, so it is decoded a strip of rows at a time (8-bit,
  non-interlaced: every MMMU PNG); each strip is reduced by whole factors as it comes
  (``Image.reduce``, a box filter over blocks, so strips of a multiple of the factor's rows give
  exactly the whole image's reduction) and only the reduced image is kept. Memory is a strip and
  the reduced image: proportional to the scaled size, not the stored one.
- **Other formats** (GIF, WebP, BMP, TIFF; 16-bit or interlaced PNG) are decoded whole, within
  the budget.

Every path gives what ``image.resize(size, LANCZOS, reducing_gap=REDUCING_GAP)`` of the whole
decoded image gives (for JPEG, of its draft): Pillow's two-step resize (reduce by whole
factors, then LANCZOS over at least ``REDUCING_GAP`` times the target), which Pillow documents as
indistinguishable from a plain LANCZOS in most cases (16-bit images, which Pillow does not
reduce, get the plain LANCZOS). Palette and 1-bit images are resampled in RGB(A) and L, not by
nearest neighbour. Images with alpha (LA, RGBA, a palette with transparency) are resampled
premultiplied, as Pillow's ``resize`` does, converted here rather than left to ``resize``: Pillow
before 13 drops ``reducing_gap`` for those modes (a plain LANCZOS, 1 to 3 levels off the two-step
result at 517x389 to 61x45), and Pillow 13 needs Python 3.11, so under 3.10 a scaled image would
depend on the path it took and on the Pillow installed. Converted here, every path gives the same
bytes on Pillow 10 to 13.
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["REDUCING_GAP", "ImageTooLarge", "check_budget", "open_header", "reduces", "scaled"]

#: Pillow's reducing gap: the whole-factor reduction stops at this many times the target size.
REDUCING_GAP = 3.0
#: Bytes of PNG rows decoded at a time.
STRIP_BYTES = 4 * 2**20
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type -> channels, for the 8-bit types the strip decoder reads.
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
#: A mode with alpha -> the premultiplied mode it is reduced and resampled in.
_PREMULTIPLIED = {"LA": "La", "RGBA": "RGBa"}


class ImageTooLarge(ValueError):
    """An image whose width x height is past the decode budget."""


def check_budget(width: int, height: int, *, reduced: bool = False) -> None:
    """Raise ``ImageTooLarge`` when decoding ``width`` x ``height`` is past Pillow's limit (twice
    it for a reduced decoding, which never holds the whole image)."""
    from PIL import Image

    limit = Image.MAX_IMAGE_PIXELS
    if limit is not None and width * height > limit * (2 if reduced else 1):
        how = ("twice PIL.Image.MAX_IMAGE_PIXELS, past which Pillow opens no image" if reduced
               else "PIL.Image.MAX_IMAGE_PIXELS, for an image decoded whole")
        raise ImageTooLarge(f"{width}x{height} is {width * height:,} pixels, more than the "
                            f"{limit * (2 if reduced else 1):,} an image may have to be decoded ({how}); it was not decoded")


def reduces(image: "Image", data: bytes) -> bool:
    """Whether ``image`` can be scaled without decoding it whole (a JPEG, an 8-bit PNG)."""
    return image.format == "JPEG" or (image.format == "PNG" and _png_layout(data) is not None)


def open_header(data: bytes) -> "Image":
    """The image opened lazily: its format, mode and size read from the header, nothing decoded.

    Raises:
        ImageTooLarge: past twice Pillow's limit (Pillow itself refuses to open it).
        ValueError: not an image Pillow reads.
    """
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():  # the size is checked by the caller (check_budget), not warned about
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"{exc}; it was not decoded") from None
    except Exception as exc:  # Pillow raises several unrelated types for bad bytes
        raise ValueError(f"unreadable image ({len(data)} bytes): {exc}") from exc


def resizable(image: "Image") -> "Image":
    """The image in a mode Pillow resamples (a palette or 1-bit image would go by nearest neighbour)."""
    if image.mode == "P":
        return image.convert("RGBA" if "transparency" in image.info else "RGB")
    if image.mode == "1":
        return image.convert("L")
    return image


def scaled(image: "Image", data: bytes, size: tuple[int, int]) -> "Image":
    """``image`` (opened from ``data``, not yet decoded, within the budget) resampled to ``size``."""
    from PIL import Image

    if image.format == "JPEG":
        image.draft(None, (math.ceil(size[0] * REDUCING_GAP), math.ceil(size[1] * REDUCING_GAP)))
    elif image.format == "PNG" and (layout := _png_layout(data)) is not None:
        return _png_scaled(image, data, layout, size)
    try:
        image.load()
    except Exception as exc:  # truncated or corrupt data in a known format
        raise ValueError(f"unreadable image ({image.format}, {len(data)} bytes): {exc}") from exc
    image = resizable(image)
    gap = None if image.mode.startswith("I;16") else REDUCING_GAP  # Pillow reduces no 16-bit mode
    if image.mode in _PREMULTIPLIED:  # premultiplied here: Pillow before 13 drops reducing_gap for LA, RGBA
        premultiplied = image.convert(_PREMULTIPLIED[image.mode])
        return premultiplied.resize(size, Image.Resampling.LANCZOS, reducing_gap=gap).convert(image.mode)
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=gap)


# -- PNG, a strip at a time ---------------------------------------------------------------------

class _Layout:
    """What the strip decoder needs of a PNG: its header, palette chunks and compressed rows."""

    def __init__(self, width: int, height: int, colour: int, extra: list[bytes], idat: list[memoryview]) -> None:
        self.width, self.height, self.colour = width, height, colour
        self.row = 1 + width * _CHANNELS[colour]  # the filter byte, then the row's bytes
        self.extra = extra  # PLTE and tRNS chunks, whole
        self.idat = idat


def _chunks(data: bytes) -> Iterator[tuple[bytes, memoryview, bytes]]:
    """(type, content, the whole chunk) of each PNG chunk; stops at IEND or where the bytes end."""
    view, at = memoryview(data), len(_PNG_SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", view[at:at + 4])
        kind = bytes(view[at + 4:at + 8])
        yield kind, view[at + 8:at + 8 + length], bytes(view[at:at + 12 + length]) if kind in (b"PLTE", b"tRNS") else b""
        if kind == b"IEND":
            return
        at += 12 + length


def _png_layout(data: bytes) -> _Layout | None:
    """The layout of an 8-bit, non-interlaced PNG; None for any other (decoded whole instead)."""
    if not data.startswith(_PNG_SIGNATURE):
        return None
    extra: list[bytes] = []
    idat: list[memoryview] = []
    header = None
    for kind, content, whole in _chunks(data):
        if kind == b"IHDR" and len(content) == 13:
            header = struct.unpack(">IIBBBBB", content)
        elif kind in (b"PLTE", b"tRNS"):
            extra.append(whole)
        elif kind == b"IDAT":
            idat.append(content)
    if header is None:
        return None
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in _CHANNELS or not idat or width == 0 or height == 0:
        return None
    return _Layout(width, height, colour, extra, idat)


def _chunk(kind: bytes, content: bytes) -> bytes:
    return struct.pack(">I", len(content)) + kind + content + struct.pack(">I", zlib.crc32(kind + content))


def _png_scaled(image: "Image", data: bytes, layout: _Layout, size: tuple[int, int]) -> "Image":
    """Decode a strip of rows at a time, reducing each; resample the reduced image to ``size``.

    A strip is decoded by Pillow as a small PNG of its own: the same header with the strip's
    height, the palette chunks, and the strip's filtered rows, after the row above it written
    unfiltered (filter 0), since PNG filters refer to the row above. That row is the strip
    before's last, as decoded, whose bytes are its raw PNG bytes for 8-bit modes.
    """
    from PIL import Image

    width, height = layout.width, layout.height
    fx = int(width / size[0] / REDUCING_GAP) or 1
    fy = int(height / size[1] / REDUCING_GAP) or 1
    rows_per_strip = max(fy, STRIP_BYTES // layout.row // fy * fy)
    stream = _rows(layout)
    next(stream)
    reduced: Image.Image | None = None
    above: bytes | None = None
    y = 0
    while y < height:
        n = min(rows_per_strip, height - y)
        rows = stream.send(n * layout.row)
        if above is not None:
            rows = b"\0" + above + rows
        top = 0 if above is None else 1
        header = struct.pack(">IIBBBBB", width, n + top, 8, layout.colour, 0, 0, 0)
        strip_png = b"".join([_PNG_SIGNATURE, _chunk(b"IHDR", header), *layout.extra,
                              _chunk(b"IDAT", zlib.compress(rows, 0)), _chunk(b"IEND", b"")])
        del rows
        with open_header(strip_png) as decoded:  # a strip is checked as any image is
            decoded.load()
            strip = decoded.crop((0, top, width, top + n)) if top else decoded.copy()
        above = strip.crop((0, n - 1, width, n)).tobytes()
        strip = resizable(strip)
        if strip.mode in _PREMULTIPLIED:  # reduced and resampled premultiplied, as Pillow's resize does
            strip = strip.convert(_PREMULTIPLIED[strip.mode])
        part = strip.reduce((fx, fy)) if (fx, fy) != (1, 1) else strip
        if reduced is None:
            reduced = Image.new(part.mode, (math.ceil(width / fx), math.ceil(height / fy)))
        reduced.paste(part, (0, y // fy))
        y += n
    stream.close()
    assert reduced is not None
    out = reduced.resize(size, Image.Resampling.LANCZOS, box=(0, 0, width / fx, height / fy))
    straight = {premultiplied: mode for mode, premultiplied in _PREMULTIPLIED.items()}
    if out.mode in straight:
        out = out.convert(straight[out.mode])
    out.info = {k: v for k, v in image.info.items() if k != "transparency" or out.mode == image.mode}
    return out


def _rows(layout: _Layout) -> "Iterator[bytes]":
    """A generator sent a byte count, answering with that many bytes of the inflated rows.

    Raises:
        ValueError: the compressed rows are corrupt or end before the image does.
    """
    inflate = zlib.decompressobj()
    pieces = iter(layout.idat)
    pending = bytearray()
    want = yield b""
    while True:
        try:
            while len(pending) < want:
                source = inflate.unconsumed_tail or next(pieces, None)
                if source is None or inflate.eof:
                    raise ValueError(f"unreadable image (PNG): its rows end before row "
                                     f"{len(pending) // layout.row + 1} of a strip")
                pending += inflate.decompress(source, want - len(pending))
        except zlib.error as exc:
            raise ValueError(f"unreadable image (PNG): {exc}") from None
        out = bytes(pending[:want])
        del pending[:want]
        want = yield out
