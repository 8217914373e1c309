"""The suite page's (and terminal's) labels say what was compared: the chosen prompt, the intervals, the footnote.

A suite that ran only the direct prompt must not claim "the better of direct and CoT"; one that
ran both marks the prompt Table 1 took as chosen, in its cell and in the CoT chart (highlighted,
"chosen for Table 1"), and never the other. The expert chart prints each tier's value once and
the run's interval with its numbers.
"""

from __future__ import annotations

import re

import pytest

from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet


def _page(tmp_path, name, **extra) -> tuple[dict, str]:
    result = evaluate_suite(model="random", data="sample", out=str(tmp_path / name), display=quiet(), bootstrap=100, **extra)
    return result.summary, (tmp_path / name / "report.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return _page(tmp_path_factory.mktemp("both"), "both")


def test_a_direct_only_suite_says_its_figures_come_from_the_direct_run(tmp_path):
    summary, page = _page(tmp_path, "direct", prompts="direct")
    note = re.search(r"This suite's row: (.*?)</p>", page).group(1)
    assert note.startswith("each setting from its direct run, the only prompt run (nothing to choose between)")
    assert "better of" not in note
    assert "direct only" in page and "(chosen)" not in page
    from fakes.widths import render
    from mmmu_eval.suite.suite_terminal import print_suite

    text = " ".join(render(lambda console: print_suite(summary, console), 200).split())
    assert "This model's row: each setting from its direct run, the only prompt run" in text
    assert "prompt chosen" not in text


def test_the_chosen_prompt_is_marked_chosen_in_table1_and_only_its_bar_is_highlighted(both):
    summary, page = both
    note = re.search(r"This suite's row: (.*?)</p>", page).group(1)
    assert note.startswith("each setting the better of direct and CoT (the chosen prompt is named under each figure)")
    cot = page[page.index('<section id="cot">'):page.index('<section id="ocr">')]
    for key, setting in (("standard_4", "standard-4"), ("standard_10", "standard-10"), ("vision", "vision")):
        chosen = summary["table1"][key]["mode"]
        other = "cot" if chosen == "direct" else "direct"
        assert f"{chosen} (chosen)" in page
        # The chosen bar's label is bold and its note says so; the other's is neither.
        assert re.search(rf'font-weight="600" xml:space="preserve">{setting} · {chosen}</text>', cot)
        assert not re.search(rf'font-weight="600" xml:space="preserve">{setting} · {other}</text>', cot)
    assert cot.count("chosen for Table 1") == 3
    from fakes.widths import render
    from mmmu_eval.suite.suite_terminal import print_suite

    text = " ".join(render(lambda console: print_suite(summary, console), 200).split())
    assert "This model's row: each setting the better of direct and CoT" in text and "prompt chosen" in text


def test_intervals_print_as_brackets_and_the_sample_has_no_expert_chart(both):
    """The run report's expert chart (tests/rendering/test_report_html_labels.py) is left out for the
    synthetic sample; each Table 1 cell's interval prints ``[low, high]``."""
    summary, page = both
    assert '<section id="experts">' not in page
    low, high = summary["table1"]["mmmu_val"]["ci95_percent"]
    assert f'<div class="src">[{low:.1f}, {high:.1f}]</div>' in page


def test_the_updated_time_reads_as_date_and_time(both):
    summary, page = both
    day, time = summary["updated_at"][:10], summary["updated_at"][11:19]
    assert f"<dt>Updated</dt><dd>{day} {time} UTC</dd>" in page
