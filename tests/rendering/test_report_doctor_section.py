"""report.html's doctor section is the doctor's own diagnosis, and today's models are found by name.

On the official repository's paper-era MMMU-Pro outputs (../shared/fidelity/mmmu-pro-2024/,
rescored unconverted) and the Qwen-VL-7B-Chat MMMU validation outputs: the page shows each cause's
expected effect, plausible range and worst case (labelled a bound), the named failures, and against
the published figure the causes outside the run, the union total, the main cause and the remainder
sentence, every sentence the same as ``mmmu-eval doctor`` prints. The MMMU leaderboard's rows
(2025-2026 models) are listed in the published section and found by ``--published NAME``.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from mmmu_eval import diagnose
from mmmu_eval.cli.main import main

FIDELITY = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity"
STEM = "InternVL2-Llama3-76B_direct_Standard(10opts)"


def _section(page: str) -> str:
    section = page[page.index('<section id="doctor"'):]
    return section[: section.index("</section>")]


def _text(fragment: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", fragment))


def _by_id(section: str, element_id: str) -> str:
    found = re.search(rf'<p[^>]* id="{element_id}">(.*?)</p>', section)
    assert found, f"no #{element_id} in the section"
    return _text(found.group(1))


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory):
    from fakes import required

    folder = required.path(FIDELITY / "mmmu-pro-2024", "the paper-era outputs are in ../shared/fidelity/mmmu-pro-2024")
    out = tmp_path_factory.mktemp("paper") / STEM
    assert main(["rescore", str(folder / f"{STEM}.jsonl"), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def qwen_run(tmp_path_factory):
    from fakes import required

    folder = required.path(FIDELITY / "mmmu" / "qwen_vl", "the Qwen-VL outputs are in ../shared/fidelity/mmmu")
    out = tmp_path_factory.mktemp("qwen") / "qwen"
    assert main(["rescore", str(folder), "--out", str(out), "--no-html"]) == 0
    return out


def test_the_page_shows_the_doctors_diagnosis_of_a_paper_era_file(paper_run):
    """The run is matched to Table 1 by its own model name; every sentence is the command's."""
    section = _section((paper_run / "report.html").read_text(encoding="utf-8"))
    d = diagnose(paper_run, published="InternVL2-Llama3-76B")
    printed = "\n".join(d.lines())
    # the cause in the run: expected effect with its range, and the worst case labelled a bound
    row = re.search(r'<tr data-cause="unparsed">(.*?)</tr>', section).group(1)
    assert "expected +0.34 points (plausible -0.06 to +0.81)" in row and "+4.97 (a bound)" in row
    assert "expected +0.34 points (plausible -0.06 to +0.81); worst case +4.97 (a bound)" in printed
    # the failures, with how many of them had several images
    assert "empty 100, 96 of them with several images" in _text(section)
    # against Table 1: the column, the cause outside the run, the union, the main cause, the remainder
    outside = re.search(r'<table class="t" id="doctor-outside">(.*?)</table>', section).group(1)
    assert "<td>best_of</td><td>expected +4.45 points</td>" in outside
    assert "direct 653, CoT 730 of 1730" in outside
    for element_id, sentence in (
        ("doctor-published", "published 41.90% (InternVL2-Llama3-76B, MMMU-Pro: A More Robust"),
        ("doctor-together", "together, each item counted once (100 items): expected +4.79 points"),
        ("doctor-main", "main cause: best_of, expected +4.45 of the +4.56-point gap"),
        ("doctor-remainder", "the causes' expected effects exceed the 4.56-point gap by 0.23 points"),
        ("doctor-worst", "worst case (a bound, not an estimate): unparsed could reach the gap"),
        ("doctor-row", "protocol: the official MMMU-Pro prompts, direct and chain of thought"),
    ):
        shown = _by_id(section, element_id)
        assert sentence in shown
        assert shown in printed  # one owner: the page prints the doctor's sentence, not one of its own
    assert "compared (InternVL2-Llama3-76B) with the standard-10 column" in _by_id(section, "doctor-compared")


def test_report_published_sets_the_page_against_a_figure_or_refuses_a_name(paper_run, capsys):
    page = paper_run / "report.html"
    assert main(["report", str(paper_run), "--html", "--no-images", "--published", "50"]) == 0
    section = _section(page.read_text(encoding="utf-8"))
    assert "published 50.00% (given)" in _by_id(section, "doctor-published")
    assert _by_id(section, "doctor-remainder") == remainder_of(paper_run, 50)
    before = page.read_bytes()
    assert main(["report", str(paper_run), "--html", "--published", "No Such Model 9"]) == 2
    assert "no model of that name is published for mmmu-pro/standard-10" in capsys.readouterr().err
    assert page.read_bytes() == before  # the page asked for is refused whole; the last one stays


def remainder_of(run: Path, value: float) -> str:
    d = diagnose(run, published=value)
    return next(line.strip() for line in d.lines() if "explained by anything recorded" in line)


def test_a_2025_model_is_found_by_name_with_its_source(qwen_run, capsys):
    """Claude Opus 4.5 (2025-11-24): on the official leaderboard only, MMMU validation 80.7 reported by its author."""
    d = diagnose(qwen_run, published="claude opus 4.5")
    assert d.published["value"] == 80.7 and "mmmu-benchmark.github.io" in d.published["source"]
    assert d.published["row"]["reported_by"] == {"mmmu/validation": "author", "mmmu-pro": "author"}
    assert main(["doctor", str(qwen_run), "--published", "Claude-Opus-4.5"]) == 0
    out = capsys.readouterr().out
    assert "source of Claude Opus 4.5: MMMU leaderboard data" in " ".join(out.split())
    assert "reported by author (mmmu/validation)" in " ".join(out.split())
    # a model the leaderboard lists for another figure only: the error says which it has
    assert main(["doctor", str(qwen_run), "--published", "GPT-5.4 Thinking w/o tools"]) == 2
    assert "has no published figure for mmmu/validation; it has one for mmmu-pro/overall" in capsys.readouterr().err
    # the report page lists the leaderboard's rows, and sets the run against the one named
    assert main(["report", str(qwen_run), "--html", "--no-images", "--published", "Claude Opus 4.5"]) == 0
    page = (qwen_run / "report.html").read_text(encoding="utf-8")
    table = page[page.index('id="leaderboard-table"'):]
    table = table[: table.index("</table>")]
    assert re.search(r'data-name="claude opus 4\.5"><td><a href="https://www\.anthropic\.com/news/claude-opus-4-5"'
                     r' rel="noreferrer">Claude Opus 4\.5</a></td><td class="n">80\.7</td><td>2025-11-24</td>'
                     r"<td>proprietary</td><td>author</td>", table)
    assert table.count("<tr") - 1 == sum(1 for _ in _leaderboard("mmmu/validation"))
    section = _section(page)
    assert "published 80.70% (Claude Opus 4.5, MMMU leaderboard data" in _by_id(section, "doctor-published")
    assert "reported by author (mmmu/validation)" in _by_id(section, "doctor-row")


def _leaderboard(key: str):
    from mmmu_eval.published.figures import leaderboard_for

    return leaderboard_for(key)


def test_a_run_named_as_a_leaderboard_row_is_marked_and_set_against_it(qwen_run):
    """A run whose model is exactly a published name (case, spaces and hyphens ignored) is set against it
    on its page without being asked; a part of a name is not enough."""
    from mmmu_eval.rendering.run_page import render_html
    from mmmu_eval.results.finished_run import read_run

    loaded = read_run(qwen_run, details=True)
    for model, expected in (("openai:claude-opus-4.5", "Claude Opus 4.5"), ("openai:opus-4.5", None)):
        results = dict(loaded.results, run=dict(loaded.results["run"], model=model))
        page = render_html(results, loaded.items, loaded.responses, loaded.scoring, loaded.manifest, prompts={},
                           images=False)
        section = _section(page)
        if expected is None:
            assert 'id="doctor-published"' not in section and "no published row carries" in section
            assert '<tr class="me"' not in page
        else:
            assert f"({expected}, MMMU leaderboard data" in _by_id(section, "doctor-published")
            assert re.search(r'<tr class="me" data-name="claude opus 4\.5">', page)
