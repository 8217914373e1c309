"""Every terminal table of a run, a comparison and harden is readable at 80 columns and at 200.

Each printer runs on real output (runs of the bundled sample, a harden filter of it) and is
rendered twice: at 80 columns (a pipe, a CI log, a default terminal) no figure printed at 200
may go missing, no line may be wider than 80 and no cell may be cut with an ellipsis.
"""

from __future__ import annotations

import pytest

from fakes.widths import assert_readable_at
from mmmu_eval import evaluate
from mmmu_eval.cli.run import print_headline
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.rendering.comparison_terminal import print_comparison
from mmmu_eval.results.comparison import compare_runs
from mmmu_eval.rendering.run_terminal import print_pro_headline, print_results
from mmmu_eval.scoring.headline import pro_headline

LONG_MODEL = "openai:Qwen/Qwen2.5-VL-72B-Instruct-AWQ-served-by-vllm-0.6.3-on-8xH100"


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    """Real runs of the sample: MMMU validation (random, frequent) and MMMU-Pro vision (random)."""
    root = tmp_path_factory.mktemp("widths")
    runs = {}
    for name, extra in (("random", {}), ("frequent", {"model": "frequent"}),
                        ("pro", {"benchmark": "mmmu-pro", "setting": "vision", "split": None})):
        config = {"model": "random", "benchmark": "mmmu", "split": "validation", "data": "sample", **extra}
        config = {k: v for k, v in config.items() if v is not None}
        runs[name] = evaluate(**config, out=str(root / name), display=NullDisplay())
    return runs


@pytest.mark.parametrize("which", ["random", "pro"])
def test_run_summary_keeps_every_figure_at_80_columns(sample_runs, which):
    result = sample_runs[which]
    small, large = assert_readable_at(lambda console: print_headline(result, console))
    assert "Official MMMU layout" in small and "Responses" in small and "Parsing and coverage" in small


def test_a_long_model_name_and_many_image_types_still_fit(sample_runs):
    results = dict(sample_runs["random"].results)
    results["run"] = dict(results["run"], model=LONG_MODEL)
    kinds = ["Diagrams", "Tables", "Plots and Charts", "Chemical Structures", "Photographs", "Paintings",
             "Geometric Shapes", "Sheet Music", "Medical Images", "Pathological Images", "Microscopic Images",
             "MRI, CT scans, and X-rays", "Sketches and Drafts", "Maps", "Technical Blueprints", "Trees and Graphs",
             "Mathematical Notations", "Comics and Cartoons", "Sculpture", "Portraits", "Screenshots", "Other"]
    row = next(iter(results["by_img_type"].values()))
    results["by_img_type"] = {k: dict(row, n=100 + i, correct=37 + i) for i, k in enumerate(kinds)}
    small, _ = assert_readable_at(lambda console: print_results(results, console))
    assert "MRI, CT scans, and X-rays" in small.replace("\n", " ") or "MRI, CT" in small


def test_comparison_tables_keep_every_figure_at_80_columns(sample_runs):
    c = compare_runs(sample_runs["random"].results, sample_runs["frequent"].results,
                     label_a="random", label_b="frequent", allow_different_protocols=True, resamples=50)
    small, _ = assert_readable_at(lambda console: print_comparison(c, console, max_flips=1000))
    assert "By discipline (shared items)" in small and "Items that flip" in small


def test_pro_headline_table_keeps_every_figure_at_80_columns():
    headline = pro_headline({("standard-10", "direct"): 0.4012, ("standard-10", "cot"): 0.5533,
                             ("vision", "direct"): 0.3120, ("vision", "cot"): 0.5011})
    small, _ = assert_readable_at(lambda console: print_pro_headline(headline, console))
    assert "55.3%" in small and "50.1%" in small


def test_harden_tables_keep_every_figure_at_80_columns(tmp_path):
    from mmmu_eval.cli.main import main
    from mmmu_eval.harden.record import Record
    from mmmu_eval.harden.harden_report import print_report

    assert main(["harden", "filter", "--data", "sample", "--out", str(tmp_path / "s"), "--models",
                 "frequent,random,random", "--trials", "2"]) == 0
    record = Record.load(tmp_path / "s")
    small, _ = assert_readable_at(lambda console: print_report(record, console))
    assert "Text-only accuracy" in small and "excluded" in small


def test_the_check_itself_catches_a_cut_figure():
    """The helper fails on what the issue saw: rich cutting a figure to ``70…`` at 80 columns."""
    from rich.table import Table

    def cut(console):
        table = Table()
        for i in range(12):
            table.add_column(f"column {i}", no_wrap=True)
        table.add_row(*[f"{70 + i}.25" for i in range(12)])
        console.print(table)

    with pytest.raises(AssertionError, match="cut at 80 columns|not at 80"):
        assert_readable_at(cut)


def test_a_table_too_wide_even_compact_goes_vertical_with_every_figure():
    from rich.table import Table

    from mmmu_eval.rendering.fit import print_fitted

    def wide(console):
        table = Table(title="wide")
        table.add_column("row")
        for i in range(12):
            table.add_column(f"column {i}", justify="right", no_wrap=True)
        table.add_row("first", *[f"{70 + i}.25" for i in range(12)])
        table.add_row("second", *[f"-{i}.5" for i in range(12)])
        print_fitted(console, table)

    small, large = assert_readable_at(wide)
    assert "column 11" in small and "  column 0  70.25" in small.replace("   ", "  ").replace("   ", "  ")
    assert large.count("70.25") == small.count("70.25") == 1
