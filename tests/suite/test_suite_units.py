"""One unit in the Python API (fractions, as results.json has them) and one form of interval.

What broke (issue 28): ``RunResult.accuracy`` was a fraction (0.05) but ``SuiteResult`` gave its
overall as a percentage (20.8); the Table 1 effects printed an interval as ``-20.8 +12.6``, with
no separator.
"""

from __future__ import annotations

from rich.console import Console

from mmmu_eval.suite.execute import evaluate_suite
from mmmu_eval.suite.suite_terminal import _effects

from .conftest import quiet


def test_suite_overall_is_a_fraction_like_run_accuracy(tmp_path):
    result = evaluate_suite(model="frequent", data="sample", out=str(tmp_path / "suite"), display=quiet(), bootstrap=20)
    cell = result.table1["overall"]
    assert result.overall == cell["value"] and 0 <= result.overall <= 1
    assert cell["percent"] == round(100 * result.overall, 1)  # the printed figure stays in suite.json
    assert f"overall {cell['percent']:.1f}%" in repr(result)  # the repr prints the figure as the terminal does
    run = next(iter(result.runs.values()))
    assert 0 <= run.accuracy <= 1


def test_an_effects_interval_prints_as_brackets():
    effects = {"vision": {"direct": {"percent": 40.0}, "cot": {"percent": 35.0}, "complete": True, "mcnemar_p": 0.2,
                          "difference": {"percent": -5.0, "ci95_percent": [-20.8, 12.6]},
                          "cot_only_right": 3, "direct_only_right": 5, "shared": 40}}
    console = Console(record=True, width=120, color_system=None)
    console.print(_effects("CoT effect", effects, "cot"))
    row = next(line for line in console.export_text().splitlines() if "vision" in line)
    assert "[-20.8, +12.6]" in row and "-20.8 +12.6" not in row
