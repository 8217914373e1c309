"""Terminal tables, printed to a string console."""

import pytest
from rich.console import Console

from mmmu_eval.results.results_json import build_results
from mmmu_eval.rendering.run_terminal import official_rows, official_table_text, print_pro_headline, print_results


@pytest.fixture
def results(scoring, items, manifest, responses):
    return build_results(scoring, items, manifest, bootstrap=200, responses=responses)


def test_official_rows_put_each_discipline_before_its_subjects_and_overall_last(results):
    assert official_rows(results) == [
        ("Overall-Art and Design", 3, round(1 / 3, 3)),
        ("Art", 3, round(1 / 3, 3)),
        ("Overall-Science", 4, round(3 / 4, 3)),
        ("Math", 3, round(2 / 3, 3)),
        ("Physics", 1, 1.0),
        ("Overall", 7, round(4 / 7, 3)),
    ]


def test_official_table_text_is_org_mode_like_print_results(results):
    lines = official_table_text(results).splitlines()
    assert lines[0].split("|")[1:4] == [" Subject                ", " Data Num ", " Acc   "]
    assert set(lines[1]) <= {"|", "-", "+"}
    assert lines[2] == "| Overall-Art and Design |        3 | 0.333 |"
    assert lines[-1] == "| Overall                |        7 | 0.571 |"


def _text(results) -> str:
    console = Console(record=True, width=140, color_system=None, force_terminal=False)
    print_results(results, console)
    return console.export_text()


def test_print_results_shows_headline_interval_tables_and_parse_stats(results):
    out = _text(results)
    low, high = results["overall"]["ci95"]
    assert f"57.1% (95% CI [{100 * low:.1f}, {100 * high:.1f}], 4/7)" in out
    assert "Official MMMU layout" in out and "Overall-Science" in out and "0.750" in out
    assert "random fallbacks (official, seed 42)" in out and "1 (14.3%)" in out
    assert "errors (not scored)" in out and "missing (no response)" in out and "truncated (scored)" in out
    assert "Accuracy by option count" in out and "Accuracy by img_type" in out


def test_print_results_warns_on_void_test_accuracies_and_unofficial_runs(results):
    results = dict(results, gold_available=False, run=dict(results["run"], official=False))
    out = _text(results)
    assert "No gold answers" in out
    assert "did not follow the official protocol" in out


def test_markup_in_a_model_name_is_printed_literally(results):
    results = dict(results, run=dict(results["run"], model="[bold red]evil[/]"))
    assert "[bold red]evil[/]" in _text(results)


def test_pro_headline_prints_the_mean_and_the_mode_used_per_setting():
    from mmmu_eval.scoring.headline import pro_headline

    headline = pro_headline({
        ("standard-10", "direct"): 0.40, ("standard-10", "cot"): 0.55, ("vision", "cot"): 0.50,
    })
    console = Console(record=True, width=120, color_system=None)
    print_pro_headline(headline, console)
    out = console.export_text()
    assert f"MMMU-Pro headline: {100 * (0.55 + 0.50) / 2:.1f}%" in out
    assert "│ standard-10 │ 55.0% │ cot       │  40.0% │ 55.0% │" in out


def test_pro_headline_without_a_vision_run_says_what_is_missing():
    from mmmu_eval.scoring.headline import pro_headline

    console = Console(record=True, width=120, color_system=None)
    print_pro_headline(pro_headline({("standard-10", "direct"): 0.4}), console)
    assert "needs a run of vision" in console.export_text()
