"""report.html and the terminal summary: human expert level, cost and usage, loose images."""

from __future__ import annotations

import dataclasses
import io
import json
import re

import pytest
from rich.console import Console

from mmmu_eval.prompt.layout import UNREFERENCED_RULES
from mmmu_eval.core.records import Response
from mmmu_eval.rendering.run_page import render_html
from mmmu_eval.results.results_json import build_results
from mmmu_eval.rendering.run_terminal import print_results


@pytest.fixture
def results(scoring, items, manifest, responses):
    return build_results(scoring, items, manifest, bootstrap=200, seed=0, responses=responses)


def rows_of(page: str) -> list[dict]:
    data = re.search(r'<script type="application/json" id="items-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(data)


def terminal(results) -> str:
    buffer = io.StringIO()
    print_results(results, Console(file=buffer, width=200, highlight=False))
    return buffer.getvalue()


def test_mmmu_validation_is_placed_against_the_human_experts(results, items, responses, scoring, manifest):
    results = dict(results, overall=dict(results["overall"], ci95=[0.40, 0.79]))
    page = render_html(results, items, responses, scoring, manifest, prompts={})
    assert 'id="experts"' in page and "Human Expert (Medium)" in page and "88.6%" in page
    line = ("MMMU validation 57.1% (95% CI [40.0, 79.0]) against human experts (Low 76.2%, Medium 82.6%, "
            "High 88.6%; MMMU leaderboard, 2024-01-31): Low lies within the interval (undecided); below Medium and High.")
    assert line in page
    assert page.count("within the interval: undecided") == 1 and page.count(">not reached<") == 2
    assert line in " ".join(terminal(results).split())


def test_other_splits_and_benchmarks_have_no_expert_figures(results, items, responses, scoring, manifest):
    for changed in (dict(results, split="dev"), dict(results, benchmark="mmmu-pro", split="test", setting="vision")):
        page = render_html(changed, items, responses, scoring, manifest, prompts={})
        assert 'id="experts"' not in page
        assert "human experts" not in terminal(changed)


def test_usage_and_cost_are_in_results_the_terminal_and_the_page(items, responses, scoring, manifest):
    priced = dict(manifest, config=dict(manifest["config"], price_input=2.0, price_output=8.0))
    answered = {k: dataclasses.replace(r, prompt_tokens=1000, completion_tokens=100, latency_s=1.5)
                for k, r in responses.items() if r.status != "error"}
    answered.update({k: r for k, r in responses.items() if r.status == "error"})
    results = build_results(scoring, items, priced, bootstrap=50, responses=answered)
    usage = results["usage"]
    assert (usage["requests"], usage["prompt_tokens"], usage["completion_tokens"]) == (8, 7000, 700)
    assert usage["cost"]["total_usd"] == 7000 * 2.0 / 1e6 + 700 * 8.0 / 1e6
    text = terminal(results)
    assert "Cost and usage" in text and "7,000" in text and "$0.0196" in text
    page = render_html(results, items, answered, scoring, priced, prompts={})
    assert 'id="usage-table"' in page and "$0.0196" in page and "1.50 / 1.50 / 1.50 s" in page


def test_results_without_a_usage_section_still_print(results, items, responses, scoring, manifest):
    older = {k: v for k, v in results.items() if k != "usage"}
    assert "Cost and usage" not in terminal(older)
    assert 'id="usage"' not in render_html(older, items, responses, scoring, manifest, prompts={})


def test_the_browser_marks_images_no_token_refers_to(results, items, responses, scoring, manifest, build):
    loose = build.mc_item("validation_Art_9", "A", images=3, question="Only <image 2> counts.")
    all_items = (*items, loose)
    all_responses = dict(responses, validation_Art_9=Response("validation_Art_9", "ok", text="(A)"))
    all_scoring = build.score(all_items, all_responses)
    for rule, caption in (("official", "not sent to the model"), ("append", "sent after the referenced images")):
        this = dict(manifest, protocol=dict(manifest["protocol"], unreferenced_images=UNREFERENCED_RULES[rule]))
        page = render_html(results, all_items, all_responses, all_scoring, this, prompts={})
        assert '<option value="loose">Images no token refers to (1)</option>' in page
        row = next(r for r in rows_of(page) if r["id"] == "validation_Art_9")
        assert row["loose"] == ["image_1", "image_3"]
        assert [im.get("loose", "").endswith(caption) for im in row["images"]] == [True, False, True]
        assert all(r["loose"] == [] for r in rows_of(page) if r["id"] != "validation_Art_9")
