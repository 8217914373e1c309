"""Small rules of the study: the paper's rounding, where the suite's row goes among the published ones."""

import pytest

from mmmu_eval.published.figures import table1_rows
from mmmu_eval.suite.study import percent
from mmmu_eval.suite.table1_layout import published_cells, table1_position


@pytest.mark.parametrize("value, printed", [
    (211 / 1730, 12.2),   # 12.197: rounded, not cut
    (0.5185, 51.9),       # half up, as the paper's 51.85 -> 51.9
    (0.4625, 46.3),
    (-0.1075, -10.8),     # half away from zero for a negative Δ
    (0.0, 0.0),
    (None, None),
])
def test_percent_rounds_half_up_to_one_decimal(value, printed):
    assert percent(value) == printed


def test_published_deltas_are_differences_of_the_printed_figures():
    gpt4o = next(r for r in table1_rows() if r.model == "GPT-4o (0513)")
    cells = published_cells(gpt4o.scores)
    assert cells["delta_1"] == round(54.0 - 64.7, 1) and cells["delta_2"] == round(49.7 - 54.0, 1)
    assert cells["delta_3"] == round(51.9 - 69.1, 1) and cells["overall"] == 51.9


def test_the_suites_row_sits_among_the_published_rows():
    rows = [(r.model, r.baseline, r.scores.get("overall")) for r in table1_rows()]
    names = [r[0] for r in rows]
    assert names[table1_position(rows, "frequent", 12.1) - 1] == "Frequent Choice"
    assert names[table1_position(rows, "random", 12.6) - 1] == "Random Choice"
    assert names[table1_position(rows, "openai:m", 52.0)] == "GPT-4o (0513)"  # above the best published model
    assert names[table1_position(rows, "openai:m", 30.6)] == "Qwen2-VL-7B"  # above the first model it beats
    assert table1_position(rows, "openai:m", 1.0) == len(rows)
    assert names[table1_position(rows, "openai:m", None)] == "GPT-4o (0513)"  # no overall: right under the baselines
