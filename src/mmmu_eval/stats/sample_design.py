"""``run --sample K --sample-audit AUDIT.json``: a sample stratified by difficulty, and the estimators
of the full score that a hold-one-model-out check on the audit's runs finds better than uniform.

The audit's JSON (``mmmu-eval audit --json``) carries each run's answers right and wrong
(``items.responses``). From the runs of the run's benchmark it takes:

- each item's difficulty (the share of those runs right on it) and cuts the population into
  difficulty strata of equal size (``sample_check.strata_labels``; items the audit lacks form a
  stratum of their own);
- the check (``sample_check.hold_out_check``) at this K: the draw is stratified only when the
  stratified estimate beats uniform sampling there, and the 2PL estimate is offered only when it
  does too;
- for the 2PL estimate, the items' parameters fitted on all those runs: kept in the manifest for
  the drawn items, and for the others as the expected number right over a grid of abilities (so
  that the report needs no audit file and the manifest stays small).

Everything the report needs lands in the manifest's ``sample`` block (docs/audit.md, "Quick
evaluation"); ``stats.sampled`` turns it and the run's verdicts into the estimates. Pure: the
audit's file is read, and each audit's check and fit kept for the process, by
``run/sample_audit.py``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mmmu_eval.stats.irt import MIN_RUNS
from mmmu_eval.stats.sample_check import Check, allocate, strata_count, strata_labels, tie_keys
from mmmu_eval.stats.irt_coverage import IrtCoverage

#: The abilities at which the expected number right on the items not drawn is recorded.
THETA_GRID = tuple(round(-5 + 0.1 * i, 1) for i in range(101))


@dataclass(frozen=True)
class AuditAnswers:
    """The answers of an audit's runs of one benchmark, as runs x items 0/1 arrays."""

    path: str
    sha256: str
    ids: tuple[str, ...]
    runs: tuple[str, ...]
    models: tuple[str, ...]
    right: np.ndarray
    seen: np.ndarray


@dataclass(frozen=True)
class Design:
    """The sample a run draws, and what its manifest records about it."""

    drawn: tuple[int, ...]
    """Indices into the population, ascending."""
    record: dict[str, Any]
    """The manifest's ``sample`` block without ``k``, ``seed``, ``population`` and ``drawn``."""


def design_from(answers: AuditAnswers, check: Check, population: Sequence[str], k: int, seed: int,
                model: Any = None) -> Design:
    """Draw ``k`` of the ``population`` ids as ``check`` (the hold-one-model-out check of the
    audit's ``answers`` at this K) says: stratified by difficulty or uniform, and with the 2PL
    record when the check offers it (``model``: ``irt.fit_2pl`` on all the answers, then needed)."""
    column = {item_id: j for j, item_id in enumerate(answers.ids)}
    kk = min(k, len(population))
    index = np.array([column.get(i, -1) for i in population])
    held = answers.seen.sum(axis=0)
    p_all = np.where(held > 0, (answers.right * answers.seen).sum(axis=0) / np.maximum(held, 1), np.nan)
    p_right = np.array([p_all[j] if j >= 0 else np.nan for j in index])
    record: dict[str, Any] = {
        "audit": {"path": answers.path, "sha256": answers.sha256, "runs": len(answers.runs),
                  "models": len(set(answers.models))},
        "check": check.to_json(),
    }
    rng = random.Random(seed)
    if check.design == "stratified":
        count = strata_count(k)
        labels = strata_labels(p_right, tie_keys(population), count)
        sizes = np.bincount(labels, minlength=count + 1)
        per_stratum = allocate(sizes, kk)
        strata, drawn = [], []
        for h, n in enumerate(per_stratum):
            members = np.flatnonzero(labels == h)
            if not len(members):
                continue
            picked = sorted(int(members[i]) for i in rng.sample(range(len(members)), int(n)))
            drawn.extend(picked)
            known = p_right[members][~np.isnan(p_right[members])]
            strata.append({"p_right": [round(float(known.min()), 4), round(float(known.max()), 4)] if len(known) else None,
                           "population": int(len(members)), "drawn": int(n), "ids": [population[i] for i in picked]})
        record["method"] = (f"stratified by difficulty: {count} strata of equal size by the share of the audit's runs "
                            "right on each item (items the audit lacks apart), drawn in proportion to their sizes with "
                            "random.Random(seed).sample in each, in stratum order")
        record["strata"] = strata
        chosen = tuple(sorted(drawn))
    else:
        chosen = tuple(sorted(rng.sample(range(len(population)), kk)))
        record["method"] = ("uniform without replacement, random.Random(seed).sample over the items in dataset order "
                            "(the audit's check found no gain in stratifying at this K)")
    if "2pl" in check.offered:
        if model is None:
            raise ValueError("the check offers the 2PL estimate: pass its fit (irt.fit_2pl) as model")
        record["irt"] = _irt_record(answers, model, population, index, chosen)
    return Design(chosen, record)


def _irt_record(answers: AuditAnswers, model: Any, population: Sequence[str], index: np.ndarray,
                chosen: Sequence[int]) -> dict[str, Any]:
    """The 2PL of the audit's runs, for the report: the drawn items' (a, b), and the expected number
    right on the others at each ability of ``THETA_GRID``. Items the audit lacks take the prior's
    a = 1, b = 0 (what the fit gives an item no run answered)."""
    a = np.array([model.discrimination[j] if j >= 0 else 1.0 for j in index])
    b = np.array([model.difficulty[j] if j >= 0 else 0.0 for j in index])
    rest = np.ones(len(population), dtype=bool)
    rest[list(chosen)] = False
    grid = np.array(THETA_GRID)
    expected = (1.0 / (1.0 + np.exp(-a[rest][None, :] * (grid[:, None] - b[rest][None, :])))).sum(axis=1)
    return {
        "fit": (f"2PL on {len(answers.runs)} runs x {len(answers.ids)} items (stats/irt.py; "
                f"{'converged' if model.converged else 'stopped before converging'} after {model.iterations} steps)"),
        "drawn": {population[i]: [round(float(a[i]), 4), round(float(b[i]), 4)] for i in chosen},
        "theta": list(THETA_GRID),
        "rest_expected_right": [round(float(x), 4) for x in expected],
    }


def checked(record: Mapping[str, Any]) -> Check | None:
    """The check a manifest's ``sample`` block holds; None for a uniform sample without an audit."""
    value = record.get("check")
    if not isinstance(value, Mapping):
        return None
    return Check(k=int(value.get("k") or 0), models=int(value.get("models") or 0),
                 held_out_sets=int(value.get("held_out_sets") or 0), draws=int(value.get("draws") or 0),
                 mae=dict(value.get("mae") or {}), q95=dict(value.get("q95") or {}),
                 offered=tuple(value.get("offered") or ()), design=str(value.get("design") or "uniform"),
                 stratified_coverage=value.get("stratified_coverage"), notes=tuple(value.get("notes") or ()),
                 irt_coverage=IrtCoverage.from_json(value.get("irt_coverage")))


__all__ = ["MIN_RUNS", "AuditAnswers", "Design", "THETA_GRID", "checked", "design_from"]
