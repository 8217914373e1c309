"""How Table 1 is laid out in print: the paper's published rows beside the suite's own row, in the terminal and on the page.

``study.py`` computes the suite's figures; this module holds what both printers of Table 1
(``terminal.py``, ``html_study.py``) need to set them among the paper's rows, kept in one place
so the two show the same table: a published row's cells with its Δs as a reader of the paper
computes them from the printed figures, where the suite's row goes among them, and the sentence
that says what each of the suite's figures was chosen from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mmmu_eval.core.numbers import half_up, points
from mmmu_eval.suite.study import COLUMNS

__all__ = ["chosen_note", "published_cells", "table1_position"]


def chosen_note(table1: Mapping[str, Any]) -> str:
    """What each setting's figure was chosen from: the better of the prompts that ran, or the one that did."""
    compared = {key: list((table1.get(key) or {}).get("by_mode") or {}) for key in ("standard_4", "standard_10", "vision")}
    compared = {k: v for k, v in compared.items() if v}
    if not compared:
        return "no setting has a figure"

    def what(modes: list[str]) -> str:
        names = [{"cot": "CoT"}.get(m, m) for m in modes]
        if len(names) == 1:
            return f"from its {names[0]} run, the only prompt run (nothing to choose between)"
        return "the better of " + " and ".join(names) + " (the chosen prompt is named under each figure)"

    if len({tuple(v) for v in compared.values()}) == 1:
        return "each setting " + what(next(iter(compared.values())))
    return "; ".join(f"{COLUMNS[k]} {what(v)}" for k, v in compared.items())


def published_cells(scores: Mapping[str, float]) -> dict[str, float | None]:
    """A published Table 1 row's cells in ``COLUMNS`` order; its Δs are differences of the
    printed figures (Δ3 = the printed overall − MMMU (Val)), as a reader of the paper gets them."""
    cells: dict[str, float | None] = {key: scores.get(key) for key in COLUMNS}
    for key, (a, b) in (("delta_1", ("standard_10", "standard_4")), ("delta_2", ("vision", "standard_10")),
                        ("delta_3", ("overall", "mmmu_val"))):
        if cells[a] is not None and cells[b] is not None:
            cells[key] = float(half_up(points(cells[a], cells[b]), 1))
    return cells


def table1_position(models: Sequence[tuple[str, bool, float | None]], model: str, overall: float | None) -> int:
    """Where the suite's row goes among the published rows (``(model, baseline, overall %)``).

    A baseline suite sits under its published twin (Random Choice, Frequent Choice); a model
    above the first published model it beats on the overall, as the paper roughly orders them;
    one without an overall right under the baselines.
    """
    twin = {"random": "Random Choice", "frequent": "Frequent Choice"}.get(model)
    if twin is not None:
        return next((i + 1 for i, (name, _, _) in enumerate(models) if name == twin), len(models))
    if overall is not None:
        for i, (_, baseline, published) in enumerate(models):
            if not baseline and published is not None and published < overall:
                return i
        return len(models)
    return next((i for i, (_, baseline, _) in enumerate(models) if not baseline), len(models))
