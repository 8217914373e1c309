"""The page a vision screenshot is taken of: one question, its images and its lettered options.

Pure functions: an item, its options, a style and its images as ``data:`` URLs in; one HTML
document out. What varies per item (MMMU-Pro's screenshots and photos vary background, font
family and size, and the official screenshot tool also lays options out in one or two columns
and puts images inline or after the question) is a ``Style`` drawn from a generator seeded
with ``"{seed}:render:{id}"``:

- **font**: an installed family from ``SERIF``, ``SANS``, ``HANDWRITING`` and ``MONO``
  (Debian's DejaVu, Liberation, FreeFont, Crosextra, Comic Neue and Humor Sans
  packages; ``installed_fonts`` asks fontconfig which are there);
- **font size** and **page width**: whole pixels from the given ranges;
- **background**: a plain colour or a texture of our own making, drawn by CSS gradients
  (lined paper, graph paper, dots, linen, a soft gradient), light enough to stay legible;
- **options columns**: 1, or 2 when every option is short text (``TWO_COLUMN_CHARS``);
- **images**: ``inline`` (each where its ``<image N>`` token is) or ``after question`` (the
  question's text keeps its tokens, as MMMU's text reads, and its images follow it in order);
- **medium**: ``screenshot``, or ``photo`` (``photo.py``: the screenshot as a phone picture of
  a screen, with its parameters drawn here too).

Images in options are always in place (an image-only option would be empty otherwise); images
no token names follow the question. LaTeX between ``$...$``, ``$$...$$``,
``\\(...\\)`` or ``\\[...\\]`` becomes MathML (``latex2mathml``), which Chromium draws
natively; a ``$`` that reads as money (``$5 to $6``) stays text. The page's head is every page's
(``rendering/page.py``): it allows no script and no network (Content-Security-Policy), whatever
the question holds.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from functools import lru_cache
from html import escape
from typing import Mapping, Sequence

from mmmu_eval.screenshots.photo import Photo, draw_photo
from mmmu_eval.prompt.layout import TOKEN, token_numbers
from mmmu_eval.core.records import Item, letters
from mmmu_eval.rendering.page import head

__all__ = [
    "BACKGROUNDS", "HANDWRITING", "MEDIUMS", "MONO", "SANS", "SERIF", "Style", "choose_style", "installed_fonts",
    "latex_to_mathml", "page_html",
]

SERIF = ("DejaVu Serif", "Liberation Serif", "FreeSerif", "Caladea")
SANS = ("DejaVu Sans", "Liberation Sans", "FreeSans", "Carlito")
#: Handwriting-like families (fonts-comic-neue, fonts-humor-sans). Scripts that Tesseract reads
#: badly are not among them (DKG Handwriting: 13 of 23 words), nor is FreeMono (strokes too thin
#: for a photo): a page must stay readable.
HANDWRITING = ("Comic Neue", "Humor Sans")
MONO = ("DejaVu Sans Mono", "Liberation Mono")
#: Families drawn no smaller than this (within the size range): Humor Sans's capitals at 16 px
#: in a photo lost 3 of 23 words to Tesseract, at 20 px at most 2 (its U reads as D).
MIN_FONT_SIZE = {"Humor Sans": 20}
#: Each family's CSS fallback, should fontconfig lose it.
_GENERIC = {**{f: "serif" for f in SERIF}, **{f: "sans-serif" for f in SANS}, **{f: "cursive" for f in HANDWRITING},
            **{f: "monospace" for f in MONO}}
#: How a page is captured; the share of photos is ``PHOTO_SHARE`` unless told.
MEDIUMS = ("screenshot", "photo")
PHOTO_SHARE = 0.3
#: Options are laid out in two columns only when each is text of at most this many characters.
TWO_COLUMN_CHARS = 32
#: The share of pages with two option columns (when the options allow), and with images after the question.
TWO_COLUMN_SHARE = 0.5
AFTER_QUESTION_SHARE = 0.4
#: name -> CSS background. Plain colours first, then textures; all light, so text stays legible.
BACKGROUNDS: dict[str, str] = {
    "white": "#ffffff",
    "ivory": "#fffdf4",
    "paper": "#f8f5ec",
    "light-grey": "#f1f2f3",
    "pale-blue": "#eef4fb",
    "mint": "#eef8f1",
    "lined-paper": "repeating-linear-gradient(180deg, #fdfcf7 0px, #fdfcf7 27px, #d9e3ef 27px, #d9e3ef 28px)",
    "graph-paper": ("linear-gradient(90deg, rgba(120,150,190,.16) 1px, transparent 1px) 0 0/20px 20px, "
                    "linear-gradient(180deg, rgba(120,150,190,.16) 1px, transparent 1px) 0 0/20px 20px, #fbfcfe"),
    "dots": "radial-gradient(circle, rgba(90,90,90,.14) 1.2px, transparent 1.4px) 0 0/14px 14px, #fcfcfa",
    "linen": ("repeating-linear-gradient(45deg, rgba(160,140,110,.07) 0 2px, transparent 2px 5px), "
              "repeating-linear-gradient(-45deg, rgba(160,140,110,.07) 0 2px, transparent 2px 5px), #f7f3ea"),
    "soft-gradient": "linear-gradient(180deg, #ffffff 0%, #eef1f6 100%)",
}
FONT_SIZES = (16, 24)
PAGE_WIDTHS = (640, 980)
_MATHML = "http://www.w3.org/1998/Math/MathML"
_MATH_ELEMENTS = frozenset(
    "math mrow mi mn mo mtext mspace ms mfrac msqrt mroot mstyle merror mpadded mphantom mfenced menclose "
    "msub msup msubsup munder mover munderover mmultiscripts mprescripts none mtable mtr mtd mlabeledtr "
    "maligngroup malignmark semantics annotation annotation-xml".split()
)
_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$"
    r"|\\\[(?P<display2>.+?)\\\]"
    r"|\\\((?P<inline2>.+?)\\\)"
    r"|\$(?=\S)(?P<inline>[^$\n]+?)(?<=\S)\$(?!\d)",
    re.S,
)


@dataclass(frozen=True)
class Style:
    """How one page looks; recorded per item in harden.json and the vision parquet."""

    font: str
    font_size: int
    """Pixels."""
    page_width: int
    """Pixels: the screenshot's width."""
    background: str
    """A key of ``BACKGROUNDS``."""
    options_columns: int = 1
    """1 or 2."""
    images: str = "inline"
    """``inline`` or ``after question``."""
    medium: str = "screenshot"
    """``screenshot`` or ``photo``."""
    photo: Photo | None = None
    """How the photo is made (``medium == "photo"`` only)."""

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["photo"] = self.photo.to_json() if self.photo else None
        return data


@lru_cache(maxsize=1)
def installed_fonts() -> tuple[str, ...]:
    """The families of ``SERIF``, ``SANS``, ``HANDWRITING`` and ``MONO`` that fontconfig knows, in that order."""
    if shutil.which("fc-list") is None:
        return ()
    listing = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True, check=False).stdout
    families = {name.strip() for line in listing.splitlines() for name in line.split(",")}
    return tuple(f for f in _GENERIC if f in families)


def choose_style(
    seed: int,
    item_id: str,
    fonts: Sequence[str],
    *,
    font_sizes: tuple[int, int] = FONT_SIZES,
    page_widths: tuple[int, int] = PAGE_WIDTHS,
    backgrounds: Sequence[str] = tuple(BACKGROUNDS),
    options: Sequence[str] = (),
    photo_share: float = PHOTO_SHARE,
) -> Style:
    """The item's style, from its own generator: the same seed and id give the same style.

    Every choice is drawn whether or not it applies, so one does not shift the others: two
    columns are used only when every one of ``options`` is short text.
    """
    rng = random.Random(f"{seed}:render:{item_id}")
    font = rng.choice(list(fonts))
    font_size = min(font_sizes[1], max(rng.randint(*font_sizes), MIN_FONT_SIZE.get(font, 0)))
    width = rng.randrange(page_widths[0], page_widths[1] + 1, 20) if page_widths[1] - page_widths[0] >= 20 else page_widths[0]
    background = rng.choice(list(backgrounds))
    two = rng.random() < TWO_COLUMN_SHARE
    after = rng.random() < AFTER_QUESTION_SHARE
    photo = rng.random() < photo_share
    photo_params = draw_photo(rng)
    fits = bool(options) and all(len(o) <= TWO_COLUMN_CHARS and not TOKEN.search(o) for o in options)
    return Style(
        font=font, font_size=font_size, page_width=width, background=background,
        options_columns=2 if two and fits else 1, images="after question" if after else "inline",
        medium="photo" if photo else "screenshot", photo=photo_params if photo else None,
    )


def latex_to_mathml(tex: str, *, display: bool = False) -> str | None:
    """MathML for a LaTeX fragment; None when it does not convert to clean MathML.

    The converter passes ``\\text{...}`` through unescaped, so its output is parsed and must
    hold MathML elements only; anything else falls back to showing the source.
    """
    try:
        from latex2mathml.converter import convert
    except ImportError:  # the harden extra is missing: show the source, legibly
        return None
    try:
        markup = convert(tex, display="block" if display else "inline")
        root = ET.fromstring(markup)
    except Exception:  # the converter raises many types on bad LaTeX; all mean "show the source"
        return None
    for node in root.iter():
        namespace, _, name = node.tag.rpartition("}")
        if namespace.lstrip("{") != _MATHML or name not in _MATH_ELEMENTS:
            return None
    return markup


def page_html(item: Item, options: Sequence[str], style: Style, images: Mapping[str, str]) -> str:
    """The page for one item: question, images in token order, options lettered A, B, ...

    Args:
        item: the question (its text and ``<image N>`` tokens).
        options: the options to show (the 10-option ones after ``augment``).
        style: font, size, width and background.
        images: image field -> ``data:`` URL.
    """
    generic = _GENERIC.get(style.font, "sans-serif")
    css = (
        "html,body{margin:0;padding:0}"
        f"body{{background:{BACKGROUNDS[style.background]};width:{style.page_width}px}}"
        f"#page{{box-sizing:border-box;width:{style.page_width}px;padding:{style.font_size * 2}px {style.font_size * 2}px;"
        f"font-family:'{style.font}',{generic};font-size:{style.font_size}px;line-height:1.5;color:#1b1b1b}}"
        ".q{margin:0 0 .8em}.fig{display:block;max-width:100%;margin:.5em 0}"
        ".opt img{max-width:60%;max-height:8em;vertical-align:middle}"
        "ol{list-style:none;margin:0;padding:0}li{margin:.25em 0;padding-left:2em;text-indent:-2em}"
        "ol.two{display:grid;grid-template-columns:1fr 1fr;column-gap:2em}"
        "math{font-size:1.1em;math-style:normal}"
    )
    question_numbers = token_numbers(item.question)
    used = set(question_numbers) | {n for o in options for n in token_numbers(o)}
    if style.images == "after question":
        # The text keeps its tokens (as MMMU's text reads); its images follow it, in token order, once each.
        question = _with_math(item.question)
        after = "".join(_img(images, f"image_{n}", "fig") for n in dict.fromkeys(question_numbers))
    else:
        question, after = _rich(item.question, images, "fig"), ""
    extra = "".join(_img(images, ref.field, "fig") for ref in item.images if ref.number not in used)
    body = [f'<div class="q">{question}</div>', after, extra, '<ol class="two">' if style.options_columns == 2 else "<ol>"]
    for letter, option in zip(letters(len(options)), options):
        body.append(f'<li class="opt">{letter}. {_rich(option, images, "")}</li>')
    body.append("</ol>")
    return head(None, style=css) + f"<div id=\"page\">{''.join(body)}</div></body></html>"


def _rich(text: str, images: Mapping[str, str], image_class: str) -> str:
    """Text with its image tokens as images and its LaTeX as MathML; everything else escaped."""
    out = []
    start = 0
    for match in TOKEN.finditer(text):
        out.append(_with_math(text[start:match.start()]))
        out.append(_img(images, f"image_{match.group(1)}", image_class))
        start = match.end()
    out.append(_with_math(text[start:]))
    return "".join(out)


def _with_math(text: str) -> str:
    out = []
    start = 0
    for match in _MATH.finditer(text):
        tex = next(g for g in match.groups() if g is not None)
        display = match.group("display") is not None or match.group("display2") is not None
        markup = latex_to_mathml(tex.strip(), display=display)
        out.append(_plain(text[start:match.start()]))
        out.append(markup if markup is not None else _plain(match.group(0)))
        start = match.end()
    out.append(_plain(text[start:]))
    return "".join(out)


def _plain(text: str) -> str:
    return escape(text).replace("\n", "<br>")


def _img(images: Mapping[str, str], field: str, css_class: str) -> str:
    src = images.get(field)
    if not src:
        return f"<span>[{escape(field)}]</span>"
    cls = f' class="{css_class}"' if css_class else ""
    return f'<img{cls} src="{escape(src)}" alt="{escape(field)}">'
