"""``rendering.page``: the kit every HTML file of the project is made with.

The run report (``rendering/run_page.py``), the suite report (``suite/suite_page.py``), harden's report and
review page (``harden/harden_report.py``, ``harden/review.py``) and the pages ``harden render``
screenshots (``screenshots/item_page.py``) are self-contained files a person opens offline, holding
untrusted text (model output, dataset questions). They share one set of rules, kept here so a
fix reaches every page:

- **Head and security policy** (``head``, ``content_security_policy``): one doctype, charset,
  viewport and Content-Security-Policy. The policy allows inline styles, ``data:`` images and
  exactly the page's own script (by hash), or no script at all; nothing reaches the network.
- **Item data in a page** (``script_json``): JSON that no string can break out of.
- **Images** (``data_url``): embedded as ``data:`` URLs of the stored bytes; the formats a
  browser may not show (TIFF, BMP, anything unknown) are converted to PNG, for every page. Only
  the page's copy is converted: datasets keep the bytes as stored.
- **The image budget** (``ImageBudget``): counted in one unit on every page, the length of the
  data URLs as the page carries them (base64 and their ``data:`` prefix), so a budget of 64 MiB
  means the same page size wherever it is set.
- **Style sheets and scripts** (``asset``): read from the ``assets`` folder of the package that
  owns them; ``report.css`` is the style the run and suite reports share.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from html import escape
from importlib import resources

from mmmu_eval.prompt.images import data_url as _data_url, data_url_prefix
from mmmu_eval.core.records import sniff_media_type

__all__ = [
    "IMAGE_BUDGET", "SHOWABLE", "ImageBudget", "asset", "content_security_policy", "data_url", "data_url_length",
    "head", "script_json", "showable", "url_length",
]

#: Default most bytes of embedded images a page carries (as data URLs: base64 with its prefix).
IMAGE_BUDGET = 64 * 1024 * 1024
#: Formats embedded as stored; every other one is converted to PNG (``showable``).
SHOWABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: What every page may do: inline styles and ``data:`` images; no network, no plugin, no frame.
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def asset(name: str, package: str = "mmmu_eval.rendering") -> str:
    """A file of ``package``'s ``assets`` folder (a page's script or style sheet)."""
    return resources.files(package).joinpath("assets", name).read_text(encoding="utf-8")


def script_json(data: object) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``</``, no ``<!--``, no ``]]>``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def content_security_policy(script: str | None = None) -> str:
    """The page's policy: inline styles, ``data:`` images, exactly ``script`` (by hash) or none.

    A page without script gets no ``script-src``: ``default-src 'none'`` then refuses every one,
    so even an escaping mistake could not run injected code.
    """
    if script is None:
        return _POLICY
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"{_POLICY}; script-src 'sha256-{digest}'"


def head(title: str | None, *, style: str, script: str | None = None) -> str:
    """The page from its doctype up to ``<body>``: charset, policy, viewport, title, ``style``.

    ``script`` is the one script the page will hold (its hash goes in the policy); the caller
    places it, usually last in the body. ``title`` is escaped; None leaves the page untitled
    (a page made only to be screenshotted).
    """
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        + (f"<title>{escape(title)}</title>" if title is not None else "")
        + f"<style>{style}</style></head><body>"
    )


def showable(data: bytes) -> tuple[bytes, str]:
    """The bytes a browser shows and their MIME type: as stored, or PNG for any other format.

    Bytes PIL cannot read raise what PIL raises (several types); each page says so in place of
    the image.
    """
    media = sniff_media_type(data)
    if media in SHOWABLE:
        return data, media
    from PIL import Image  # only for the rare TIFF/BMP

    buf = io.BytesIO()
    with Image.open(io.BytesIO(data)) as image:
        image.save(buf, format="PNG")
    return buf.getvalue(), "image/png"


def data_url(data: bytes) -> str:
    """The image bytes as a ``data:`` URL a browser shows (``showable``)."""
    return _data_url(*showable(data))


def url_length(n_bytes: int, media: str) -> int:
    """The length of a data URL of ``n_bytes`` of ``media`` (base64: 4 characters per 3 bytes)."""
    return len(data_url_prefix(media)) + 4 * -(-n_bytes // 3)


def data_url_length(data: bytes) -> int:
    """``len(data_url(data))`` without encoding: what the image costs of a page's budget."""
    data, media = showable(data)
    return url_length(len(data), media)


class ImageBudget:
    """The bytes of data URLs a page may still embed; every page spends it the same way.

    An image is embedded only if its whole data URL fits what is left; one that does not is
    skipped and a smaller one later may still fit.
    """

    def __init__(self, total: int) -> None:
        self.total = total
        self.spent = 0

    def take(self, size: int) -> bool:
        """Spend ``size`` (``data_url_length``) if it fits; False, spending nothing, if not."""
        if self.spent + size > self.total:
            return False
        self.spent += size
        return True
