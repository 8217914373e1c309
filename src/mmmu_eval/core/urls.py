"""A server's URL as it may be shown or recorded: without the credentials it may carry.

``--base-url http://user:password@host/v1`` is a user's way to reach a server behind HTTP
Basic auth. The credentials are sent (``backends/openai_http.py``), never shown: the manifest's
configuration (``config.RunConfig.to_manifest``), the backend's description, every error and
log line name the URL through ``without_credentials``. It sits on the ground floor because the
configuration (which no backend may import) and the backends both need it.

>>> without_credentials("http://me:s3cret@127.0.0.1:8000/v1")
'http://127.0.0.1:8000/v1'
"""

from __future__ import annotations

import base64
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["basic_authorization", "credentials_of", "without_credentials"]


def without_credentials(url: str) -> str:
    """The URL as it may be shown (manifest, errors, logs): any ``user:password@`` taken out."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]  # host[:port], as written (an IPv6 address keeps its brackets)
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def credentials_of(url: str) -> tuple[str, str] | None:
    """The user name and password the URL carries, percent-decoded (``us%40er`` is ``us@er``),
    as HTTP clients read them; None when it carries none."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return None
    return unquote(parts.username or ""), unquote(parts.password or "")


def basic_authorization(user: str, password: str) -> str:
    """The ``Authorization`` header value of HTTP Basic auth (RFC 7617, UTF-8).

    >>> basic_authorization("us@er", "p:w")
    'Basic dXNAZXI6cDp3'
    """
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
