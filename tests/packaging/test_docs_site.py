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


def test_the_built_site_loads_nothing_from_the_network(site):
    """No page fetches a script, style or font from elsewhere: the offline plugin's Worker polyfill
    would come from unpkg.com and the theme's fonts from Google; ours are in the site."""
    import re

    for page in site.rglob("*.html"):
        fetched = re.findall(r'<(?:script|link)[^>]*(?:src|href)="(https?://[^"]+)"', page.read_text())
        assert not fetched, f"{page.relative_to(site)} fetches {fetched}"


def test_search_works_on_the_site_opened_from_the_disk_with_no_network(site, tmp_path):
    """The search index is inlined (search/search_index.js, Material's offline plugin) and the
    search Worker runs through docs/assets/javascripts/iframe-worker.js: Chromium opens a page
    from file://, with every network request sent to a dead proxy, and the search the page's
    ``?q=`` opens lists the pages that hold the word."""
    import re

    assert (site / "search" / "search_index.js").read_text().startswith("var __index = ")
    chromium = required.executable("chromium", "the offline search is checked in headless Chromium")
    page = (site / "reference" / "cli.html").as_uri() + "?q=concurrency"
    done = subprocess.run(
        [str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         f"--user-data-dir={tmp_path / 'profile'}", "--proxy-server=http://127.0.0.1:9",
         "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=15000", "--dump-dom", page],
        capture_output=True, text=True, timeout=120,
    )
    found = re.search(r'class="md-search-result__meta">\s*(\d+) matching documents', done.stdout)
    assert found and int(found.group(1)) >= 3, done.stdout[-2000:] or done.stderr[-2000:]
    assert "Python API reference" in done.stdout  # a result: the API page, which has the field


def _text(fragment: str) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_signatures_are_wrapped_to_the_page(site):
    """mkdocstrings formats a signature only with ruff or black installed (the docs extra holds
    ruff); unformatted, RunConfig's 46 fields were one line running off the page."""
    import re

    page = (site / "reference" / "api.html").read_text()
    blocks = re.findall(r'<div class="doc-signature highlight"><pre>(.*?)</pre>', page, flags=re.S)
    assert len(blocks) > 100
    longest = max((line for block in blocks for line in _text(block).splitlines()), key=len)
    assert len(longest) <= 88, longest[:200]


def test_every_field_of_the_run_configuration_and_the_plugin_settings_is_on_the_api_page(site):
    from dataclasses import fields

    from mmmu_eval.backends.settings import CustomSettings, HFSettings, OpenAISettings
    from mmmu_eval.core.config import RunConfig

    page = (site / "reference" / "api.html").read_text()
    for record, path in ((RunConfig, "mmmu_eval.RunConfig"), (CustomSettings, "mmmu_eval.backends.settings.CustomSettings"),
                         (OpenAISettings, "mmmu_eval.backends.settings.OpenAISettings"),
                         (HFSettings, "mmmu_eval.backends.settings.HFSettings")):
        for f in fields(record):
            assert f'id="{path}.{f.name}"' in page, f"{path}.{f.name} is not on the API page"
    assert "Unit: seconds. Default: None, meaning 600." in _text(page)  # request_timeout's text, rendered


def test_no_base_class_is_shown_without_its_own_documentation(site):
    """``RunConfigArgs`` showed "Bases: RunTemplateArgs", a class the page does not document. A base
    shown is now one of Python's own (TypedDict, Protocol, a built-in exception such as
    KeyboardInterrupt) or linked to its entry."""
    import builtins
    import re

    page = (site / "reference" / "api.html").read_text()
    for bases in re.findall(r"Bases: (.*?)</p>", page, flags=re.S):
        for base in re.findall(r"<code>(.*?)</code>", bases, flags=re.S):
            name = _text(base)
            if name in ("TypedDict", "Protocol", "Generic") or isinstance(getattr(builtins, name, None), type):
                continue
            anchor = re.search(r'href="#([^"]+)"', base)
            assert anchor and f'id="{anchor.group(1)}"' in page, f"Bases: {_text(base)} is not documented on the page"


def test_the_cli_reference_shows_its_placeholders_as_text(site):
    """``<image N>`` and the directory patterns were read as HTML tags and dropped from the page."""
    text = _text((site / "reference" / "cli.html").read_text())
    for shown in ("images no <image N> token refers to", "runs/<benchmark>-<split or setting>-<model>-<time>",
                  "suites/<model>[-<data>]"):
        assert shown in text, shown
