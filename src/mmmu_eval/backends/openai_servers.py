"""The servers an OpenAI-compatible run talks to: their URLs, how they are shown, and whose key.

``--base-url`` (each flag, commas too), else ``OPENAI_BASE_URL``, else OpenAI's API; a bare
server address means its ``/v1`` API. A URL is shown (in the manifest, in an error) without the
credentials it may carry. A server on loopback needs no key: local vLLM and ``transformers
serve`` ignore it, so a placeholder is sent when none is set; any other server needs one, and
the error names the variable to set. A URL that carries ``user:password@`` needs no key either:
its credentials go as HTTP Basic auth (``openai_http.request_headers``) in the one
``Authorization`` header a request has, as the ``openai`` SDK (httpx) sends them, and the key
is not sent to it. ``OpenAIBackend.from_settings`` and ``plan_run`` (which counts what a run
would send) read the same URLs from here.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Sequence
from urllib.parse import urlsplit

from mmmu_eval.backends.settings import OpenAISettings
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.urls import credentials_of, without_credentials

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_KEY_ENV", "LOCAL_PLACEHOLDER_KEY", "api_key", "endpoint_urls", "is_loopback", "normalise_url",
           "without_credentials"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The variable the key is read from when ``--api-key-env`` names none.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: Sent as the key to loopback servers when no key is set; they do not check it.
LOCAL_PLACEHOLDER_KEY = "EMPTY"


def api_key(name: str, settings: OpenAISettings, urls: Sequence[str]) -> tuple[str, str | None]:
    """The key to send to ``urls`` for ``openai:NAME``, and the variable it came from (None: none was set).

    Raises:
        ConfigError: no key for a server that is not on loopback, naming the variable to set.
    """
    env = settings.api_key_env or DEFAULT_KEY_ENV
    key = os.environ.get(env, "")
    if not key:
        if settings.api_key_env is None and all(is_loopback(u) or credentials_of(u) for u in urls):
            key = LOCAL_PLACEHOLDER_KEY
        elif settings.api_key_env is None:
            raise ConfigError(
                f"OPENAI_API_KEY is not set (needed by openai:{name}); "
                "set it or pass --api-key-env NAME"
            )
        else:
            raise ConfigError(f"{env} is not set (needed by openai:{name}, named by --api-key-env); set it")
    return key, env if os.environ.get(env) else None  # None: a loopback server, no key


def endpoint_urls(settings: OpenAISettings) -> tuple[str, ...]:
    """The base URLs a run sends to: ``--base-url`` (each flag, commas too), else OPENAI_BASE_URL, else OpenAI's."""
    urls = _split_urls(settings.base_urls) or _split_urls((os.environ.get("OPENAI_BASE_URL", ""),))
    return urls or (DEFAULT_BASE_URL,)


def _split_urls(values: Sequence[str] | None) -> tuple[str, ...]:
    """Base URLs from flags or the environment; commas also separate, for ``OPENAI_BASE_URL``."""
    out: list[str] = []
    for value in values or ():
        out.extend(u.strip() for u in value.split(",") if u.strip())
    return tuple(out)


def normalise_url(url: str) -> str:
    """``http://host:8000`` -> ``http://host:8000/v1``: a bare server address means its /v1 API."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--base-url {without_credentials(url)!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    if parts.path in ("", "/"):
        url = url + "/v1"
    return url


def is_loopback(url: str) -> bool:
    """Whether the URL's host is this machine (``localhost``, 127.0.0.0/8, ``::1``): such a server needs no key."""
    host = urlsplit(url if "//" in url else f"http://{url}").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
