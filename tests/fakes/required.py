"""Checks that CI must run: the strongest evidence may skip on a laptop, never under ``CI=true``.

The browser test of report.html, the parity tests on ``../shared/fidelity`` and the tests against a
real ``transformers serve`` each need something outside the package (Chromium, the shared data, the
serve extra). Locally a missing piece is a skip with a reason; when ``CI`` is set (``.ci/run``
exports ``CI=true``, as GitHub Actions does) it is a failure, so a green CI always means these ran.

    chromium = required.executable("chromium", "the report's browser test needs headless Chromium")
    sync_api = required.module("playwright.sync_api", "the browser test drives Chromium with Playwright")
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """True when the ``CI`` environment variable says a CI run (``true``, ``1`` or ``yes``)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing(reason: str) -> NoReturn:
    """Skip the test with ``reason``; under CI, fail it with the same reason instead."""
    if in_ci():
        pytest.fail(f"CI is set, so this check must run, but {reason}", pytrace=False)
    pytest.skip(reason)


def module(name: str, reason: str) -> ModuleType:
    """Import ``name``, or ``missing`` when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{reason}: {exc}")


def executable(name: str, reason: str) -> Path:
    """The program ``name`` on PATH (found as ``command -v`` finds it), or ``missing``."""
    found = shutil.which(name)
    if found is None:
        missing(f"{reason}: {name} is not on PATH")
    return Path(found)


def path(where: Path, reason: str) -> Path:
    """``where`` when it exists, or ``missing``."""
    if not where.exists():
        missing(f"{reason}: {where} does not exist")
    return where
