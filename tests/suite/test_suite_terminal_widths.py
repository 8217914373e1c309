"""The suite's terminal summary at 80 columns and at 200: Table 1 and its deltas stay whole.

At 80 columns rich used to cut the model's own cells (``70…``, ``-25…``); the summary of a real
suite of the bundled sample (Random Choice, every run, OCR included) is rendered at both widths
and must print every figure it prints at 200, on lines no wider than 80, with no cut cell.
"""

from __future__ import annotations

import copy

import pytest

from fakes.widths import assert_readable_at
from mmmu_eval.suite.execute import evaluate_suite
from mmmu_eval.suite.suite_terminal import print_suite
from .conftest import quiet


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    out = tmp_path_factory.mktemp("suite") / "random"
    return evaluate_suite(model="random", data="sample", out=str(out), ocr=True, bootstrap=200, display=quiet()).summary


def test_suite_summary_keeps_every_figure_at_80_columns(summary):
    small, large = assert_readable_at(lambda console: print_suite(summary, console))
    ours = next(line for line in small.splitlines() if line.startswith("▶ random"))
    cells = ours.split()[2:]
    assert len(cells) == 8, ours  # the row stays one line: all eight Table 1 figures beside the name
    assert "OCR effect (section 3.3)" in small and "Flips (section 3.5)" in small and "Cost and usage" in small


def test_a_long_model_name_folds_and_the_figures_stay_on_its_row(summary):
    long = copy.deepcopy(summary)
    long["model"] = "openai:Qwen/Qwen2.5-VL-72B-Instruct-AWQ-served-by-vllm-0.6.3-on-8xH100"
    small, _ = assert_readable_at(lambda console: print_suite(long, console))
    first = next(line for line in small.splitlines() if line.startswith("▶ openai:"))
    assert len(first.split()) == 2 + 8, first
