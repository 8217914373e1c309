"""The ``photo`` medium: a rendered page made to look like a phone picture of a screen.

MMMU-Pro's vision set holds photos of questions shown on screens as well as screenshots
(arXiv:2409.02813, section 2.2). No camera is involved here: the screenshot is placed on a dark
surround (the screen's bezel and the desk), seen at a slight angle (a perspective warp that
moves each corner a little), lit unevenly (a broad highlight and a falloff towards the edges,
with a warm or cool cast), slightly out of focus (a Gaussian blur) and with sensor noise, and
sometimes with a faint moire (the interference of the screen's pixel grid with the camera's).
It is encoded as a JPEG, as a phone saves it.

Every number is drawn from the item's own generator (``draw_photo``) and recorded, so the same
seed gives the same bytes on the same machine, and harden.json says how each photo was made.
The distortions stay mild enough that Tesseract still reads the question and every option
(``tests/screenshots/test_harden_styles.py``).
"""

from __future__ import annotations

import hashlib
import io
import random
from dataclasses import asdict, dataclass

__all__ = ["Photo", "draw_photo", "photograph"]

#: JPEG quality of a photo: a phone camera's usual setting.
JPEG_QUALITY = 90


@dataclass(frozen=True)
class Photo:
    """How one photo is made from its screenshot; recorded per item in harden.json."""

    margin: float
    """The surround on each side, as a share of the page's width."""
    corners: tuple[float, ...]
    """How far each corner (top-left, top-right, bottom-right, bottom-left) moves, x then y, as shares of the size."""
    light: float
    """Depth of the falloff from the highlight to the darkest corner (0 = even)."""
    highlight: tuple[float, float]
    """Where the light is brightest, as shares of width and height."""
    tint: tuple[float, float, float]
    """Per-channel gain of the colour cast."""
    blur: float
    """Gaussian blur radius in pixels."""
    noise: float
    """Standard deviation of the sensor noise, in 0-255 levels."""
    moire: float
    """Amplitude of the moire pattern (0 = none)."""
    moire_period: float
    """Its period in pixels."""
    moire_angle: float
    """Its direction in degrees."""

    def to_json(self) -> dict[str, object]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def draw_photo(rng: random.Random) -> Photo:
    """A photo's parameters from the item's style generator."""
    corners = tuple(round(rng.uniform(-0.03, 0.03), 4) for _ in range(8))
    warm = rng.random() < 0.5
    return Photo(
        margin=round(rng.uniform(0.04, 0.09), 4),
        corners=corners,
        light=round(rng.uniform(0.12, 0.28), 4),
        highlight=(round(rng.uniform(0.25, 0.75), 4), round(rng.uniform(0.2, 0.6), 4)),
        tint=(1.0, round(rng.uniform(0.96, 1.0), 4), round(rng.uniform(0.88, 0.95), 4)) if warm
        else (round(rng.uniform(0.9, 0.96), 4), round(rng.uniform(0.96, 1.0), 4), 1.0),
        blur=round(rng.uniform(0.3, 0.7), 3),
        noise=round(rng.uniform(1.5, 4.0), 3),
        moire=round(rng.uniform(0.015, 0.03), 4) if rng.random() < 0.35 else 0.0,
        moire_period=round(rng.uniform(3.0, 6.0), 3),
        moire_angle=round(rng.uniform(0.0, 180.0), 2),
    )


def photograph(png: bytes, photo: Photo, key: str) -> bytes:
    """The JPEG photo of a screenshot; ``key`` (the item's id and seed) seeds its noise."""
    import numpy as np
    from PIL import Image, ImageFilter

    with Image.open(io.BytesIO(png)) as shot:
        page = shot.convert("RGB")
    w, h = page.size
    pad = max(8, round(photo.margin * w))
    canvas = Image.new("RGB", (w + 2 * pad, h + 2 * pad), (38, 38, 42))
    canvas.paste(page, (pad, pad))
    cw, ch = canvas.size
    # Where the page's corners land in the photo: the canvas's corners, each moved a little.
    c = photo.corners
    target = [(c[0] * cw, c[1] * ch), (cw + c[2] * cw, c[3] * ch), (cw + c[4] * cw, ch + c[5] * ch), (c[6] * cw, ch + c[7] * ch)]
    source = [(0, 0), (cw, 0), (cw, ch), (0, ch)]
    warped = canvas.transform((cw, ch), Image.Transform.PERSPECTIVE, _perspective(target, source),
                              resample=Image.Resampling.BILINEAR, fillcolor=(24, 24, 26))
    warped = warped.filter(ImageFilter.GaussianBlur(photo.blur))

    pixels = np.array(warped, dtype=np.float32)
    # The light is smooth, so it is computed on a grid 8 times coarser and scaled up.
    gw, gh = max(2, cw // 8), max(2, ch // 8)
    gx = (np.arange(gw, dtype=np.float32) + 0.5) * (cw / gw)
    gy = (np.arange(gh, dtype=np.float32) + 0.5) * (ch / gh)
    hx, hy = photo.highlight[0] * cw, photo.highlight[1] * ch
    reach = float(np.hypot(max(hx, cw - hx), max(hy, ch - hy)))
    coarse = 1.06 - photo.light * (np.hypot(gx[None, :] - hx, gy[:, None] - hy) / reach) ** 2
    light = np.array(Image.fromarray(coarse.astype(np.float32), "F").resize((cw, ch), Image.Resampling.BILINEAR), dtype=np.float32)
    if photo.moire:
        # sin(a x + b y) = sin(a x) cos(b y) + cos(a x) sin(b y): two outer products, no full-size trigonometry.
        angle = np.deg2rad(photo.moire_angle)
        ax = 2 * np.pi * np.cos(angle) / photo.moire_period * np.arange(cw, dtype=np.float32)
        by = 2 * np.pi * np.sin(angle) / photo.moire_period * np.arange(ch, dtype=np.float32)
        wave = np.outer(np.cos(by), np.sin(ax)) + np.outer(np.sin(by), np.cos(ax))
        light *= 1.0 + photo.moire * wave.astype(np.float32)
    pixels *= light[..., None]
    pixels *= np.asarray(photo.tint, dtype=np.float32)
    seed = int.from_bytes(hashlib.sha256(f"photo-noise:{key}".encode()).digest()[:8], "big")
    noise = np.random.default_rng(seed).standard_normal(pixels.shape, dtype=np.float32)
    noise *= photo.noise
    pixels += noise
    np.clip(pixels, 0, 255, out=pixels)
    out = io.BytesIO()
    Image.fromarray(np.rint(pixels).astype(np.uint8), "RGB").save(out, format="JPEG", quality=JPEG_QUALITY)
    return out.getvalue()


def _perspective(target: list[tuple[float, float]], source: list[tuple[int, int]]) -> tuple[float, ...]:
    """Pillow's eight coefficients mapping each output point in ``target`` to its input point in ``source``."""
    import numpy as np

    rows = []
    for (x, y), (u, v) in zip(target, source):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solution = np.linalg.solve(np.asarray(rows, dtype=np.float64), np.asarray([p for uv in source for p in uv], dtype=np.float64))
    return tuple(float(v) for v in solution)
