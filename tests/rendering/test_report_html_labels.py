"""The run report's chart labels: each figure once, and every interval with its numbers.

The expert chart once wrote each tier twice ("88.6%  88.6"), and the run's bar in the expert and
published charts said "95% CI" with no interval; a breakdown with many image types spans its
grid row instead of spilling past a quarter-width card.
"""

from __future__ import annotations

import re

from mmmu_eval.rendering.run_page import render_html
from mmmu_eval.results.results_json import build_results


def _page(scoring, items, manifest, responses, **changes) -> tuple[dict, str]:
    results = dict(build_results(scoring, items, manifest, bootstrap=200, responses=responses), **changes)
    return results, render_html(results, items, responses, scoring, manifest, prompts={})


def _section(page: str, anchor: str) -> str:
    start = page.index(f'<section id="{anchor}">')
    return page[start:page.index("</section>", start)]


def test_each_tier_value_is_printed_once_and_the_runs_interval_has_its_numbers(scoring, items, manifest, responses):
    results, page = _page(scoring, items, manifest, responses)
    low, high = results["overall"]["ci95"]
    interval = f"95% CI [{100 * low:.1f}, {100 * high:.1f}]"
    experts, published = _section(page, "experts"), _section(page, "published")
    for tier in ("76.2", "82.6", "88.6"):
        assert not re.search(rf"{tier}%\s+{tier}\b", experts), tier
    for chart in (experts, published):
        assert interval in chart
        assert not re.search(r"95% CI</text>", chart)


def test_a_crowded_breakdown_spans_its_row_and_a_short_one_keeps_its_card(scoring, items, manifest, responses):
    results, page = _page(scoring, items, manifest, responses)
    cards = re.findall(r'<div class="panel( wide)?"><h3>([^<]+)</h3>', _section(page, "breakdowns"))
    assert ("", "Image type") in cards and ("", "Question type") in cards
    row = next(iter(results["by_img_type"].values()))
    many = {f"['Kind {i}', 'Plots and Charts']": row for i in range(3)}
    _, page = _page(scoring, items, manifest, responses, by_img_type=many)
    cards = re.findall(r'<div class="panel( wide)?"><h3>([^<]+)</h3>', _section(page, "breakdowns"))
    assert (" wide", "Image type") in cards and ("", "Question type") in cards
