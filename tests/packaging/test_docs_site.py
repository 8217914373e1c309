"""The documentation site builds with ``mkdocs build --strict``: every internal link and anchor
resolves, every page is in the nav, the API reference renders from the docstrings.

Runs in the package session (``make test-package``), whose venv holds the ``docs`` extra.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakes import required

ROOT = Path(__file__).resolve().parents[2]


def _build(project: Path, site: Path) -> subprocess.CompletedProcess:
    required.module("mkdocs", "the site test builds with MkDocs (pip install -e '.[docs]')")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=project, capture_output=True, text=True, timeout=600,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = _build(ROOT, out)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


def test_every_guide_and_reference_page_is_built(site):
    for page in ("index.html", "install.html", "guides/servers.html", "guides/custom-model.html",
                 "reference/cli.html", "reference/api.html", "results-schema.html", "suite-schema.html",
                 "doctor.html", "design.html", "benchmarks.html", "contributing.html", "changelog.html"):
        assert (site / page).is_file(), page


def test_the_api_reference_is_rendered_from_the_docstrings(site):
    page = (site / "reference" / "api.html").read_text()
    assert "Run one evaluation and return its results" in page   # evaluate's docstring
    assert 'id="mmmu_eval.RunConfig"' in page
    # A docstring's >>> example outside an Examples: section renders as nested block quotes.
    assert "<blockquote>" not in page and "Examples:" in page


def test_the_included_pages_hold_their_files(site):
    """contributing and changelog include CONTRIBUTING.md and CHANGELOG.md (pymdownx.snippets)."""
    assert "What <code>make test</code> runs" in (site / "contributing.html").read_text()
    assert "Keep a Changelog" in (site / "changelog.html").read_text()


def test_a_broken_internal_link_fails_the_strict_build(tmp_path):
    """The strictness is real: the same project with one link to a missing page does not build."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs", project / "docs")
    for name in ("mkdocs.yml", "CONTRIBUTING.md", "CHANGELOG.md"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "src", project / "src")
    index = project / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [the missing page](guides/no-such-page.md).\n")
    done = _build(project, tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stdout + done.stderr
