"""Item statistics across runs: difficulty, discrimination, the items no run or every run gets right.

- ``p_right``: the share of the runs holding the item that answered it right (classical
  difficulty: low is hard);
- ``point_biserial``: the correlation, over runs, between answering this item right and the
  run's accuracy on the OTHER items (the rest score, so the item does not correlate with itself);
  near zero or negative is an item that stronger runs do not get right more often: a suspect
  label, an ambiguous question or pure guessing. None with fewer than 3 runs or no variation;
- ``irt_a`` / ``irt_b``: the 2PL discrimination and difficulty (``stats/irt.py``), from ``MIN_RUNS`` runs;
- ``responses``: each run's answers, one character per item in the order of the sorted ids
  (``1`` right, ``0`` wrong, ``.`` not held): what ``run --sample K --sample-audit`` draws its
  strata, its 2PL and its hold-one-model-out check from.

Runs of every setting count together here: an item's statistics describe the item as the runs
met it, whichever setting each ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mmmu_eval.stats.irt import MIN_RUNS, fit_2pl
from mmmu_eval.auditing.sources import RunAnswers


@dataclass(frozen=True)
class ItemStats:
    """Each item's statistics over the runs (see the module); arrays are runs x items, in ``ids`` order."""

    ids: tuple[str, ...]
    """The items, sorted."""
    runs: tuple[str, ...]
    """The runs' names, in ``Audit.runs`` order."""
    right: np.ndarray
    """runs x items, 1 where right."""
    seen: np.ndarray
    """runs x items, 1 where the run holds the item."""
    p_right: np.ndarray
    """Per item, the share of the runs holding it that answered it right (0 to 1; low is hard)."""
    point_biserial: list[float | None]
    """Per item, the correlation over runs between answering it right and the rest score; None
    with fewer than 3 runs or no variation."""
    irt_a: np.ndarray | None
    """Per item, the 2PL discrimination; None when the model was not fitted (``irt_note``)."""
    irt_b: np.ndarray | None
    """Per item, the 2PL difficulty; None when the model was not fitted."""
    irt_note: str
    """How the 2PL model was fitted, or why it was not."""

    def to_json(self) -> dict:
        n_seen = self.seen.sum(axis=0)
        n_right = (self.right * self.seen).sum(axis=0)
        per_item = {}
        for j, item_id in enumerate(self.ids):
            per_item[item_id] = {
                "runs": int(n_seen[j]), "right": int(n_right[j]), "p_right": round(float(self.p_right[j]), 4),
                "point_biserial": None if self.point_biserial[j] is None else round(self.point_biserial[j], 4),
                "irt_a": None if self.irt_a is None else round(float(self.irt_a[j]), 4),
                "irt_b": None if self.irt_b is None else round(float(self.irt_b[j]), 4),
            }
        return {
            "runs": len(self.runs),
            "irt": self.irt_note,
            "none_right": [i for j, i in enumerate(self.ids) if n_seen[j] and n_right[j] == 0],
            "all_right": [i for j, i in enumerate(self.ids) if n_seen[j] and n_right[j] == n_seen[j]],
            "negative_discrimination": [i for j, i in enumerate(self.ids)
                                        if self.point_biserial[j] is not None and self.point_biserial[j] < 0],
            "per_item": per_item,
            "responses": {run: "".join("." if not self.seen[k, j] else "1" if self.right[k, j] else "0"
                                       for j in range(len(self.ids)))
                          for k, run in enumerate(self.runs)},
        }


def item_stats(runs: Sequence[RunAnswers], *, irt: bool = True) -> ItemStats:
    """Statistics of every item any run answered (an item with no gold among its options aside)."""
    ids = sorted({i for r in runs for i in r.answers})
    column = {item_id: j for j, item_id in enumerate(ids)}
    right = np.zeros((len(runs), len(ids)))
    seen = np.zeros((len(runs), len(ids)))
    for k, run in enumerate(runs):
        for item_id, answer in run.answers.items():
            seen[k, column[item_id]] = 1
            right[k, column[item_id]] = float(answer.correct)
    p_right = (right * seen).sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    totals = (right * seen).sum(axis=1)
    held = seen.sum(axis=1)
    biserial: list[float | None] = []
    for j in range(len(ids)):
        rows = seen[:, j] > 0
        if rows.sum() < 3:
            biserial.append(None)
            continue
        x = right[rows, j]
        rest = (totals[rows] - x) / np.maximum(held[rows] - 1, 1)
        biserial.append(_correlation(x, rest))
    irt_a = irt_b = None
    if not irt:
        note = "not fitted (asked not to)"
    elif len(runs) < MIN_RUNS:
        note = f"not fitted: {len(runs)} runs, the 2PL model needs {MIN_RUNS} or more"
    else:
        model = fit_2pl(right, seen)
        irt_a, irt_b = model.discrimination, model.difficulty
        state = "converged" if model.converged else "stopped before converging"
        note = (f"2PL fitted on {len(runs)} runs x {len(ids)} items (numpy, joint MAP with normal priors; "
                f"{state} after {model.iterations} steps)")
    return ItemStats(tuple(ids), tuple(r.name for r in runs), right, seen, p_right, biserial, irt_a, irt_b, note)


def _correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])
