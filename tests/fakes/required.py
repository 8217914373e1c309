"""Checks that CI must run: the strongest evidence may skip on a laptop, never under ``CI=true``.

The browser test of report.html, the parity tests on ``../shared/fidelity`` and the tests against a
real ``transformers serve`` each need something outside the package (Chromium, the shared data, the
serve extra). Locally a missing piece is a skip with a reason; when ``CI`` is set (``.ci/run``
exports ``CI=true``, as GitHub Actions does) it is a failure, so a green CI always means these ran.

One exception holds even under CI: a venv made without some packages on purpose names them in
``MMMU_EVAL_TESTS_WITHOUT`` (space- or comma-separated import names). ``make test-py3.10`` and
``make test-py3.13`` install the package without verifiers (it needs Python 3.11+, or is a
large install that the 3.11 run already covers), so there its tests skip, saying why.

A skip called at module level would stop pytest's whole collection ("Interrupted: 1 error during
collection"); call these from a fixture or the test. They pass ``allow_module_level`` anyway, so
a module-level call skips that one module and never stops the others from running.

    chromium = required.executable("chromium", "the report's browser test needs headless Chromium")
    sync_api = required.module("playwright.sync_api", "the browser test drives Chromium with Playwright")
"""

from __future__ import annotations

import importlib
import os
import re
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
    pytest.skip(reason, allow_module_level=True)


def module(name: str, reason: str) -> ModuleType:
    """Import ``name``, or ``missing`` when it is not installed.

    A module left out of this venv on purpose (``MMMU_EVAL_TESTS_WITHOUT``) skips even under CI.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if name.split(".")[0] in left_out():
            pytest.skip(f"{reason}: {name.split('.')[0]} is left out of this venv on purpose "
                        f"(MMMU_EVAL_TESTS_WITHOUT={os.environ.get('MMMU_EVAL_TESTS_WITHOUT', '')})", allow_module_level=True)
        missing(f"{reason}: {exc}")


def left_out() -> set[str]:
    """The import names in ``MMMU_EVAL_TESTS_WITHOUT``."""
    return set(re.split(r"[\s,]+", os.environ.get("MMMU_EVAL_TESTS_WITHOUT", "").strip())) - {""}


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
