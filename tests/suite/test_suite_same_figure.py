"""One run, one figure: 1,037 right of 2,000 reads 51.9 in every place the project prints it.

The float nearest 0.5185 lies just below it, so formatting the float printed 51.8 in the run's
own terminal table and page while the suite's Table 1 printed 51.9. The run here is scored by
the real scorer, its results.json goes through JSON, and the suite's study is built from it as
``mmmu-eval suite`` builds it; then the run's terminal report and page, suite.json, the suite's
terminal tables and page are read for the figure.
"""

from __future__ import annotations

import json
import re

from rich.console import Console

from mmmu_eval.dataset.subjects import discipline_of
from mmmu_eval.core.records import Item, Response
from mmmu_eval.rendering.run_page import render_html
from mmmu_eval.core.numbers import pct
from mmmu_eval.results.results_json import build_results
from mmmu_eval.rendering.run_terminal import print_results
from mmmu_eval.scoring.scorer import score_responses
from mmmu_eval.suite.suite_page import render_suite_html
from mmmu_eval.results.finished_run import FinishedRun
from mmmu_eval.suite.study import build_study, runs_summary
from mmmu_eval.suite.suite_terminal import print_suite

RIGHT, ITEMS = 1037, 2000
MODEL = "openai:fake-model"


def _item(i: int, setting: str | None) -> Item:
    subject = "Math"  # one subject, so every breakdown row is the same figure
    return Item(id=f"{'test' if setting else 'validation'}_{subject}_{i + 1}", benchmark="mmmu-pro" if setting else "mmmu",
                split="test" if setting else "validation", setting=setting, subject=subject,
                discipline=discipline_of(subject), question="Which one?", options=("a", "b", "c", "d"), answer="A",
                question_type="multiple-choice", images=(), img_type=("Diagrams",), topic_difficulty="Easy")


def _run(tmp_path, right: int = RIGHT, setting: str | None = None):
    """A run scored by the real scorer: ``right`` of ``ITEMS`` items answered right."""
    items = tuple(_item(i, setting) for i in range(ITEMS))
    responses = {it.id: Response(it.id, "ok", text="(A)" if i < right else "(B)", finish_reason="stop")
                 for i, it in enumerate(items)}
    scoring = score_responses(items, responses)
    manifest = {"config": {"model": MODEL, "benchmark": items[0].benchmark, "split": items[0].split, "setting": setting,
                           "prompt": "direct"}}
    results = build_results(scoring, items, manifest, bootstrap=0, responses=responses)
    results = json.loads(json.dumps(results))  # as results.json holds it
    return items, responses, scoring, manifest, results


def test_the_same_run_prints_the_same_figure_in_terminal_page_and_json(tmp_path):
    items, responses, scoring, manifest, results = _run(tmp_path)
    assert results["overall"]["accuracy"] == 0.5185 and f"{100 * results['overall']['accuracy']:.1f}" == "51.8"
    assert pct(results["overall"]["accuracy"]) == "51.9"

    # The run's own terminal report and page.
    console = Console(record=True, width=200, file=open("/dev/null", "w"))  # noqa: SIM115
    print_results(results, console)
    terminal = console.export_text()
    page = render_html(results, items, responses, scoring, manifest, prompts={}, images=False)
    assert re.search(r"51\.9% \(95% CI \[\d+\.\d, \d+\.\d\], 1037/2000\)", terminal), terminal
    assert re.search(r'id="headline">51\.9%<', page) and re.search(r"95% CI \[\d+\.\d, \d+\.\d\]", page)

    # The suite's JSON, terminal tables and page, built from the same results.json.
    record = FinishedRun(tmp_path / "mmmu-validation-direct", manifest, results, benchmark="mmmu", setting=None,
                         split="validation", prompt="direct")
    summary = {"model": MODEL, "status": "complete", "updated_at": "2026-12-01T00:00:00+00:00",
               "package_version": "test", "config": {}, "planned": [], "runs": runs_summary([record]),
               **build_study([record], model=MODEL, resamples=0), "usage": None}
    summary = json.loads(json.dumps(summary))  # as suite.json holds it
    cell = summary["table1"]["mmmu_val"]
    assert cell["percent"] == 51.9
    assert summary["runs"]["mmmu-validation-direct"]["percent"] == 51.9
    console = Console(record=True, width=200, file=open("/dev/null", "w"))  # noqa: SIM115
    print_suite(summary, console)
    suite_terminal = console.export_text()
    suite_page = render_suite_html(summary, [record], images=False)
    assert re.search(r"▶ openai:fake-model .*│\s+51\.9\s+│", suite_terminal)  # Table 1's MMMU (Val) cell
    assert re.search(r"mmmu-validation-direct\s+│\s+51\.9\s+│", suite_terminal)  # the runs table
    assert "<td class=n>51.9</td>" in suite_page and "MMMU validation 51.9%" in suite_page

    for text in (terminal, page, suite_terminal, suite_page):
        assert not re.search(r"51\.8(?!\d)", text)  # the doctor's two places print -51.85 points


def test_a_table1_delta_is_its_exact_difference_rounded_once(tmp_path):
    # vision 1,000 of 2,000 (0.5) - standard-10 903 of 2,000 (0.4515) is 0.0485 exactly, a tie;
    # in floats it is 0.04849999999999999, whose rounding prints 4.8.
    records = []
    for setting, right in (("standard-10", 903), ("vision", 1000)):
        *_, manifest, results = _run(tmp_path, right, setting)
        records.append(FinishedRun(tmp_path / setting, manifest, results, benchmark="mmmu-pro", setting=setting,
                                   split="test", prompt="direct"))
    study = build_study(records, model=MODEL, resamples=0)
    delta = study["table1"]["delta_2"]
    assert delta["value"] == 0.5 - 0.4515 == 0.04849999999999999 and pct(delta["value"]) == "4.8"
    assert delta["percent"] == 4.9
    assert study["table1"]["overall"]["percent"] == 47.6  # (0.5 + 0.4515) / 2 = 0.47575
