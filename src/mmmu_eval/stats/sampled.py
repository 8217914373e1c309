"""A sampled run (``run --sample K``): what its score says about the full set's, with an exact interval.

With ``--sample-audit`` the section also holds the audit's hold-one-model-out check and the
estimates it offers (``estimates``): the stratified estimate with its design-based interval and
the 2PL estimate with an interval as wide as the check's 95th-percentile error. Each is an
estimate of the full set's score from the sample, never the official figure; ``sample_lines``
words them for the terminal.

K items drawn without replacement from N: the number right in the sample follows a
hypergeometric law given the number right in the full set. The exact 95% interval for the full
set's score holds every full-set count M that does not make the observed count too unlikely in
either tail (2.5% each: the hypergeometric analogue of Clopper-Pearson). It accounts for the
finite population, so at K = N it shrinks to the observed score itself. Computed with exact
log-probabilities (``math.lgamma``) and a bisection over M, since each tail moves one way in M.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from mmmu_eval.stats.irt import map_ability
from mmmu_eval.core.numbers import interval, pct
from mmmu_eval.stats.sample_check import Z95, stratified_estimate
from mmmu_eval.stats.sample_design import checked

#: Two-sided coverage of the interval.
LEVEL = 0.95


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _cdf(x: int, population: int, successes: int, draws: int) -> float:
    """P(X <= x) for X hypergeometric: ``draws`` of ``population`` holding ``successes``."""
    low = max(0, draws - (population - successes))
    high = min(draws, successes, x)
    if high < low:
        return 0.0
    total = _log_comb(population, draws)
    return min(1.0, sum(math.exp(_log_comb(successes, i) + _log_comb(population - successes, draws - i) - total)
                        for i in range(low, high + 1)))


def exact_interval(correct: int, drawn: int, population: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact interval for the full set's accuracy (see the module), as fractions of ``population``."""
    if not 0 <= correct <= drawn <= population or population == 0:
        raise ValueError(f"need 0 <= correct ({correct}) <= drawn ({drawn}) <= population ({population}), population > 0")
    tail = (1 - level) / 2
    # Lower bound: the smallest M with P(X >= correct | M) > tail; P(X >= c) grows with M.
    lo, hi = correct, population - (drawn - correct)
    while lo < hi:
        mid = (lo + hi) // 2
        upper_tail = 1.0 - _cdf(correct - 1, population, mid, drawn) if correct > 0 else 1.0
        if upper_tail > tail:
            hi = mid
        else:
            lo = mid + 1
    lower = lo
    # Upper bound: the largest M with P(X <= correct | M) > tail; P(X <= c) falls with M.
    lo, hi = correct, population - (drawn - correct)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _cdf(correct, population, mid, drawn) > tail:
            lo = mid
        else:
            hi = mid - 1
    return lower / population, lo / population


def sample_section(manifest: Mapping[str, Any], correct: int, scored: int,
                   verdicts: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """results.json's ``sample`` section for a sampled run; None for a run of every item.

    ``verdicts`` (results.json's, item id -> ``{"correct"}``) feed the estimates of a sample drawn
    with an audit; without them only the uniform interval is given.
    """
    record = manifest.get("sample")
    if not isinstance(record, Mapping) or not scored:
        return None
    population = int(record.get("population") or 0)
    drawn = int(record.get("drawn") or 0)
    if population < scored:
        return None
    low, high = exact_interval(correct, scored, population)
    section: dict[str, Any] = {
        "k": record.get("k"), "seed": record.get("seed"), "population": population, "drawn": drawn,
        "scored": scored, "correct": correct, "accuracy": correct / scored,
        "full_set_interval95": [low, high],
        "method": "exact hypergeometric interval for the full set's accuracy (sampling without replacement), 95%",
        "complete": scored == drawn,
    }
    check = checked(record)
    if check is not None:
        section["design"] = check.design
        section["check"] = check.to_json()
        section["audit"] = dict(record.get("audit") or {})
        bounds = (correct / population, (correct + population - scored) / population)
        section["estimates"] = _estimates(record, check, verdicts or {}, population, bounds)
    return section


#: What every estimate says it is.
ESTIMATE_NOTE = "an estimate of the full set's score from a sample, not the official figure"


def _estimates(record: Mapping[str, Any], check: Any, verdicts: Mapping[str, Mapping[str, Any]], population: int,
               bounds: tuple[float, float]) -> list[dict[str, Any]]:
    """The offered estimators' estimates, each clipped to what the unscored items allow."""
    right = {i: bool(v.get("correct")) for i, v in verdicts.items() if isinstance(v, Mapping)}
    out = []
    strata = record.get("strata")
    if "stratified" in check.offered and isinstance(strata, list) and strata:
        got = [sum(right[i] for i in s.get("ids", ()) if i in right) for s in strata]
        answered = [sum(1 for i in s.get("ids", ()) if i in right) for s in strata]
        if sum(answered):
            value, error = stratified_estimate(np.array(got), np.array(answered),
                                               np.array([int(s.get("population") or 0) for s in strata]))
            out.append(_estimate("stratified", value, (value - Z95 * error, value + Z95 * error), bounds,
                                 f"design-based: the strata's variances with the finite population correction, "
                                 f"normal 95% (it held the full score in {pct(check.stratified_coverage or 0)}% of "
                                 "the check's draws)", coverage=check.stratified_coverage, nominal=LEVEL))
    irt = record.get("irt")
    if "2pl" in check.offered and isinstance(irt, Mapping) and isinstance(irt.get("drawn"), Mapping):
        drawn = {i: v for i, v in irt["drawn"].items() if isinstance(v, list) and len(v) == 2}
        seen = [i for i in drawn if i in right]
        if seen:
            a = np.array([drawn[i][0] for i in seen], dtype=float)
            b = np.array([drawn[i][1] for i in seen], dtype=float)
            theta = float(map_ability(np.array([right[i] for i in seen], dtype=float), a, b)[0])
            rest = float(np.interp(theta, irt.get("theta") or [0.0], irt.get("rest_expected_right") or [0.0]))
            unscored = [drawn[i] for i in drawn if i not in right]  # drawn, but no verdict: predicted too
            rest += sum(1.0 / (1.0 + math.exp(-ab[0] * (theta - ab[1]))) for ab in unscored)
            value = (sum(right[i] for i in seen) + rest) / population
            coverage = check.irt_coverage
            margin = coverage.margin if coverage is not None else float(check.q95.get("2pl", 0.0))
            label = (coverage.label() if coverage is not None else
                     "the interval is the check's 95th-percentile absolute error at this K, over every held-out "
                     "model's draws (its coverage for the models the 2PL fits worst was not measured)")
            out.append(_estimate("2pl", value, (value - margin, value + margin), bounds,
                                 f"the answers seen plus the 2PL's predictions for the rest at ability {theta:.2f}; "
                                 + label, coverage=None if coverage is None else coverage.held_out, nominal=None))
    return out


def _estimate(name: str, value: float, around: tuple[float, float], bounds: tuple[float, float],
              method: str, *, coverage: float | None, nominal: float | None) -> dict[str, Any]:
    """One estimate: ``coverage`` is how often its interval held the full score in the check (None:
    not measured), ``nominal`` its level by construction (None: none, as for the 2PL's calibrated
    interval, which is named by its measured coverage instead)."""
    low, high = bounds
    clip = lambda x: min(max(x, low), high)  # noqa: E731
    return {"estimator": name, "estimate": clip(value), "interval95": [clip(around[0]), clip(around[1])],
            "interval_method": method, "coverage": coverage, "nominal": nominal, "what": ESTIMATE_NOTE}


#: How each estimator is named in print.
ESTIMATOR_NAMES = {"uniform": "uniform", "stratified": "stratified by difficulty", "2pl": "2PL item response"}


def sample_lines(section: Mapping[str, Any]) -> list[str]:
    """The terminal's lines for a sampled run, after the headline: the uniform exact interval,
    then (with an audit) the check and each offered estimate with its interval; none for no section."""
    if not section:
        return []
    low, high = section["full_set_interval95"]
    design = section.get("design")
    lines = [
        f"sampled {section['scored']} of {section['population']} items (seed {section['seed']}"
        + (", stratified by difficulty" if design == "stratified" else "") + "): "
        f"{pct(section['accuracy'])}% on the sample; the full set's score lies in {interval((low, high))} "
        "(95%, exact: hypergeometric, sampling without replacement"
        + ("; exact for a uniform draw, and a proportional stratified draw is as precise or more" if design == "stratified"
           else "") + ")"
        + ("" if section.get("complete", True) else "; not every drawn item was scored")]
    check = section.get("check")
    if not isinstance(check, Mapping):
        return lines
    mae = check.get("mae") or {}
    errors = ", ".join(f"{ESTIMATOR_NAMES.get(n, n)} {pct(v, 2)}" for n, v in mae.items())
    offered = [ESTIMATOR_NAMES.get(n, n) for n in check.get("offered") or ()]
    lines.append(
        f"check, holding out one model at a time ({check.get('models')} models, {check.get('held_out_sets')} held-out "
        f"sets of the audit's runs, {check.get('draws')} draws each at K = {check.get('k')}): mean absolute error "
        f"against the full score, in points: {errors or 'none measured'}; offered: "
        + (", ".join(offered) if offered else "none beats uniform")
        + "".join(f"; {note}" for note in check.get("notes") or ()))
    for estimate in section.get("estimates") or ():
        lines.append(
            f"{ESTIMATOR_NAMES.get(estimate['estimator'], estimate['estimator'])} estimate: "
            f"{pct(estimate['estimate'])}%, {_level(estimate)} {interval(estimate['interval95'])} "
            f"({estimate['interval_method']}): {estimate['what']}")
    return lines


def _level(estimate: Mapping[str, Any]) -> str:
    """How an estimate's interval is named: "95% interval" where it is one by construction (or was
    recorded before the level was kept); otherwise "interval", its measured coverage in its method."""
    return "95% interval" if estimate.get("nominal", LEVEL) == LEVEL else "interval"
