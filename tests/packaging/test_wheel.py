"""The package as a user gets it: built into an sdist and a wheel, checked as PyPI checks them,
installed from the wheel into a fresh venv, and run there away from the source tree.

What this catches that the editable installs of the other sessions cannot: a file the package
reads at run time (the bundled sample, the report's assets, the published results) that is not
declared as package data, a metadata field PyPI would refuse, a build backend that no longer reads
``pyproject.toml`` as written. The wheel is built from the sdist (``python -m build``'s default),
so a file missing from the sdist is missing here too.

These tests need ``build``, ``twine`` and PyPI (the wheel's dependencies install into the fresh
venv); ``make test`` runs them in a side session of their own (``make test-package``, with
``MMMU_EVAL_PACKAGE_TESTS=1``), see tests/packaging/conftest.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakes import required

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)


def _clean_env() -> dict[str, str]:
    """The environment without anything that would let the fresh venv import the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["HF_HUB_OFFLINE"] = env["HF_DATASETS_OFFLINE"] = "1"
    return env


def _source_copy(where: Path) -> Path:
    """The files git would commit (tracked, and new ones not ignored), copied to ``where``.

    Building from a copy keeps the build's egg-info and build/ out of the checkout, where the
    other sessions' editable installs write theirs, and builds what a fresh clone holds rather
    than whatever lies around here (a venv, an earlier build)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / name)
    return where


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` of the repository: the sdist, then the wheel built from it."""
    required.module("build", "the package tests build the wheel with `build` (pip install build)")
    tree = _source_copy(tmp_path_factory.mktemp("tree"))
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
                          capture_output=True, text=True, env=_clean_env(), timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh venv (no system site-packages) with only the wheel and its dependencies."""
    where = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    (wheel,) = dist.glob("*.whl")
    # --no-compile: the runs below write the bytecode of what they import (about 270 of the 4,700
    # files installed); pip would compile them all (12 s of CPU here, of the install's 27 s).
    done = subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", str(wheel)],
                          capture_output=True, text=True, env=_clean_env(), timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return where


def test_the_build_makes_one_sdist_and_one_wheel_of_this_version(dist):
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"mmmu_eval-{VERSION}-py3-none-any.whl", f"mmmu_eval-{VERSION}.tar.gz"]


def test_twine_check_strict_passes(dist):
    required.module("twine", "the package tests check the distributions with twine (pip install twine)")
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_declares_the_spdx_license_and_ships_its_text(dist):
    import zipfile

    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read(f"mmmu_eval-{VERSION}.dist-info/METADATA").decode()
        license_text = zf.read(f"mmmu_eval-{VERSION}.dist-info/licenses/LICENSE").decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text


def test_the_installed_command_prints_the_version(venv, tmp_path):
    done = subprocess.run([str(venv / "bin" / "mmmu-eval"), "--version"], capture_output=True, text=True,
                          cwd=tmp_path, env=_clean_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mmmu-eval {VERSION}"


def test_the_package_imports_from_the_venv_not_the_source_tree(venv, tmp_path):
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import mmmu_eval; print(mmmu_eval.__file__)"],
                          capture_output=True, text=True, cwd=tmp_path, env=_clean_env(), check=True)
    assert Path(done.stdout.strip()).is_relative_to(venv)


@pytest.mark.parametrize("benchmark", [["--benchmark", "mmmu", "--split", "validation"],
                                       ["--benchmark", "mmmu-pro", "--setting", "vision"]])
def test_the_sample_evaluation_runs_from_the_installed_wheel(venv, tmp_path, benchmark):
    """`make demo`'s two runs, from the wheel: the bundled sample, the scorer's tables and the
    report's assets all come from the installed package."""
    out = tmp_path / "run"
    done = subprocess.run([str(venv / "bin" / "mmmu-eval"), "run", *benchmark, "--data", "sample",
                           "--model", "random", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, env=_clean_env(), timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert results["coverage"]["errors"] == 0 and results["coverage"]["scored"] == results["coverage"]["items"] > 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["package_version"] == VERSION
    page = (out / "report.html").read_text()
    assert "<html" in page and len(page) > 10_000
