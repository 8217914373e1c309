"""The hold-one-model-out check that decides which estimators of a sampled run's full score are offered.

An estimator that beats uniform sampling on one benchmark's runs need not beat it on the user's,
so none is offered on faith. For the runs of an audit (``mmmu-eval audit --json``), each model in
turn is held out: the item statistics (difficulty, and the 2PL) are computed from the OTHER
models' runs, and each of the held-out model's runs (a "held-out set", the items it answered)
is sampled ``DRAWS`` times at the run's K. Each estimator's mean absolute error against that
set's full score, over every held-out set and draw, is set beside uniform sampling's:

- ``uniform``: K items drawn uniformly, the sample's accuracy;
- ``stratified``: K items drawn from difficulty strata in proportion to their sizes, the strata's
  accuracies weighted by their sizes;
- ``2pl``: on the draw the run will use (stratified when that beats uniform, else uniform), the
  answers seen plus the 2PL's predictions for the items not drawn, at the ability those answers
  give (``irt.map_ability``).

An estimator is offered only when its error is below uniform's. The check also records how far
its errors reach (the 95th percentile), how often the stratified interval held the full score,
and the 2PL estimate's interval calibrated on each held-out model with its measured coverage
(``irt_coverage.py``).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mmmu_eval.stats.irt import MIN_RUNS, fit_2pl, map_ability
from mmmu_eval.stats.irt_coverage import IrtCoverage, irt_coverage

#: Draws of K items per held-out set and estimator.
DRAWS = 20

#: The most difficulty strata, and the fewest items each stratum should get on average.
MAX_STRATA = 10
PER_STRATUM = 10

#: Two-sided 95% normal quantile, for the stratified interval.
Z95 = 1.959963984540054


def strata_count(k: int) -> int:
    """How many difficulty strata a sample of ``k`` gets: about ``PER_STRATUM`` items each, at most
    ``MAX_STRATA``; below 2 (K under 20) there is no stratification."""
    return min(MAX_STRATA, k // PER_STRATUM)


def tie_keys(ids: Sequence[str]) -> np.ndarray:
    """A fixed order among items of equal difficulty (a checksum of the id, not the seed), so that
    the strata depend on the audit alone."""
    return np.array([zlib.crc32(i.encode("utf-8")) for i in ids], dtype=np.int64)


def strata_labels(p_right: np.ndarray, ties: np.ndarray, count: int) -> np.ndarray:
    """Each item's stratum: the items with a difficulty (``p_right`` not NaN) sorted from hardest to
    easiest and cut into ``count`` groups of equal size; items without one form stratum ``count``."""
    labels = np.full(len(p_right), count, dtype=int)
    known = np.flatnonzero(~np.isnan(p_right))
    order = known[np.lexsort((ties[known], p_right[known]))]
    for h, group in enumerate(np.array_split(order, count)):
        labels[group] = h
    return labels


def allocate(sizes: np.ndarray, k: int) -> np.ndarray:
    """Items to draw per stratum, in proportion to ``sizes`` (largest remainders), at least one from
    every non-empty stratum when ``k`` allows."""
    sizes = np.asarray(sizes, dtype=int)
    k = min(k, int(sizes.sum()))
    raw = sizes * k / max(int(sizes.sum()), 1)
    drawn = np.floor(raw).astype(int)
    if k >= int((sizes > 0).sum()):
        drawn = np.maximum(drawn, (sizes > 0).astype(int))
    while drawn.sum() > k:  # the minimum of one pushed past K: take back where most above its share
        spare = np.flatnonzero(drawn > 1)
        drawn[spare[np.argmax((drawn - raw)[spare])]] -= 1
    for h in np.argsort(-(raw - drawn), kind="stable"):
        if drawn.sum() >= k:
            break
        if drawn[h] < sizes[h]:
            drawn[h] += 1
    return np.minimum(drawn, sizes)


def stratified_estimate(right: np.ndarray, drawn: np.ndarray, sizes: np.ndarray) -> tuple[float, float]:
    """The stratified estimate of the full score and its standard error, from ``right`` (answers
    right per stratum), ``drawn`` (answers per stratum) and ``sizes`` (items per stratum).

    Strata with no answer take the estimate of the rest (their weight is spread); the variance of
    each stratum uses its share moved half an answer towards one half ((x + 1) / (n + 2)), so a
    stratum of all-right answers still counts its uncertainty, with the finite population
    correction (1 - n / N).
    """
    right, drawn, sizes = (np.asarray(v, dtype=float) for v in (right, drawn, sizes))
    answered = drawn > 0
    weights = np.where(answered, sizes, 0.0)
    weights = weights / weights.sum()
    share = np.where(answered, right / np.maximum(drawn, 1), 0.0)
    smooth = (right + 1) / (drawn + 2)
    variance = weights**2 * (1 - drawn / np.maximum(sizes, 1)) * smooth * (1 - smooth) / np.maximum(drawn, 1)
    return float((weights * share).sum()), float(np.sqrt(variance.sum()))


@dataclass(frozen=True)
class Check:
    """The check's outcome at one K (``to_json`` is the manifest's ``sample.check``)."""

    k: int
    models: int
    held_out_sets: int
    draws: int
    mae: dict[str, float]
    """Estimator -> mean absolute error (a fraction of the full score)."""
    q95: dict[str, float]
    """Estimator -> 95th percentile of the absolute errors."""
    offered: tuple[str, ...]
    """The estimators whose error is below uniform's."""
    design: str
    """``stratified`` or ``uniform``: the draw the run uses (and the 2PL was checked on)."""
    stratified_coverage: float | None = None
    """How often the stratified 95% interval held the full score in the check."""
    notes: tuple[str, ...] = field(default=())
    """Why an estimator was not checked (too few models, runs or items)."""
    irt_coverage: IrtCoverage | None = None
    """The 2PL interval's margin, calibrated on each held-out model, and how often it held
    (``irt_coverage.py``); None without a 2PL, or in a check recorded before it was kept."""

    def to_json(self) -> dict:
        return {"k": self.k, "models": self.models, "held_out_sets": self.held_out_sets, "draws": self.draws,
                "mae": self.mae, "q95": self.q95, "offered": list(self.offered), "design": self.design,
                "stratified_coverage": self.stratified_coverage, "notes": list(self.notes),
                "irt_coverage": None if self.irt_coverage is None else self.irt_coverage.to_json()}


def hold_out_check(right: np.ndarray, seen: np.ndarray, models: Sequence[str], ids: Sequence[str], k: int, *,
                   seed: int = 0, stratify: bool = True, draws: int = DRAWS) -> Check:
    """Hold out each model in turn (see the module); ``right`` and ``seen`` are runs x items 0/1 arrays."""
    right = np.asarray(right, dtype=float)
    seen = np.asarray(seen, dtype=float) > 0
    models_arr = np.asarray(models)
    names = sorted(set(models))
    ties = tie_keys(ids)
    count = strata_count(k) if stratify else 0
    notes: list[str] = []
    if count < 2 and stratify:
        notes.append(f"no difficulty strata at K = {k}: they need K of {2 * PER_STRATUM} or more")
    fit_irt = all(int((models_arr != m).sum()) >= MIN_RUNS for m in names)
    if not fit_irt:
        notes.append(f"no 2PL: holding out a model must leave {MIN_RUNS} runs or more to fit it on")
    errors: dict[str, list[float]] = {"uniform": [], "stratified": [], "2pl": [], "2pl_uniform": []}
    owners: list[str] = []  # the held-out model of each 2PL error
    covered: list[bool] = []
    sets = 0
    rng = np.random.default_rng(seed)
    if len(names) < 2:
        notes.append("no check: holding out one model needs runs of two models or more")
        names = []
    for model in names:
        train = models_arr != model
        held = np.flatnonzero(~train)
        n_train = seen[train].sum(axis=0)
        p_right = np.where(n_train > 0, (right[train] * seen[train]).sum(axis=0) / np.maximum(n_train, 1), np.nan)
        irt = fit_2pl(right[train], seen[train]) if fit_irt else None
        for r in held:
            population = np.flatnonzero(seen[r])
            if len(population) <= 1:
                continue
            sets += 1
            y = right[r, population]
            full = float(y.mean())
            kk = min(k, len(population))
            labels = strata_labels(p_right[population], ties[population], count) if count >= 2 else None
            if labels is not None:
                sizes = np.bincount(labels, minlength=count + 1)
                per_stratum = allocate(sizes, kk)
                members = [np.flatnonzero(labels == h) for h in range(len(sizes))]
            for _ in range(draws):
                uniform = rng.choice(len(population), kk, replace=False)
                errors["uniform"].append(abs(float(y[uniform].mean()) - full))
                chosen = uniform
                if labels is not None:
                    chosen = np.concatenate([rng.choice(m, n, replace=False) for m, n in zip(members, per_stratum) if n])
                    got = np.bincount(labels[chosen], weights=y[chosen], minlength=len(sizes))
                    estimate, error = stratified_estimate(got, per_stratum, sizes)
                    errors["stratified"].append(abs(estimate - full))
                    covered.append(abs(estimate - full) <= Z95 * error)
                if irt is not None:
                    owners.append(model)
                    a, b = irt.discrimination[population], irt.difficulty[population]
                    for name, pick in (("2pl", chosen), ("2pl_uniform", uniform)):
                        errors[name].append(abs(_irt_estimate(y, pick, a, b) - full))
    mae = {name: float(np.mean(v)) for name, v in errors.items() if v}
    q95 = {name: float(np.quantile(v, 0.95)) for name, v in errors.items() if v}
    design = "stratified" if "stratified" in mae and mae["stratified"] < mae["uniform"] else "uniform"
    coverage = irt_coverage(errors["2pl" if design == "stratified" else "2pl_uniform"], owners)
    if design == "uniform":  # the 2PL is used on the draw the run makes
        for table in (mae, q95):
            if "2pl_uniform" in table:
                table["2pl"] = table["2pl_uniform"]
    for table in (mae, q95):
        table.pop("2pl_uniform", None)
    offered = tuple(name for name in ("stratified", "2pl") if name in mae and mae[name] < mae.get("uniform", 0.0))
    return Check(k=k, models=len(names), held_out_sets=sets, draws=draws, mae=mae, q95=q95, offered=offered,
                 design=design, stratified_coverage=float(np.mean(covered)) if covered else None, notes=tuple(notes),
                 irt_coverage=coverage)


def _irt_estimate(y: np.ndarray, drawn: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The drawn answers plus the 2PL's expected answers on the rest, over the whole set."""
    theta = float(map_ability(y[drawn], a[drawn], b[drawn])[0])
    rest = np.ones(len(y), dtype=bool)
    rest[drawn] = False
    predicted = 1.0 / (1.0 + np.exp(-a[rest] * (theta - b[rest])))
    return float((y[drawn].sum() + predicted.sum()) / len(y))
