"""The MMMU-Pro study of one model, from its runs' results: Table 1, the CoT and OCR effects, the flips.

What the paper reports (Yue et al., ACL 2025, arXiv:2409.02813) and how each figure is made here:

- **Table 1**: standard with 4 options, standard with 10 options and vision, each the better of
  the direct and CoT runs (ties go to direct; ``scoring.headline.pro_headline``); overall = mean
  of standard-10 and vision; MMMU validation (direct); Δ1 = standard-10 − standard-4,
  Δ2 = vision − standard-10, Δ3 = overall − MMMU validation. Percentages rounded half up to one
  decimal as the paper prints them (``core.numbers``, as every other table of the project),
  computed from the exact values (so a Δ may differ by 0.1 from the difference of two printed
  cells). The MMMU validation cell is also placed against the MMMU human experts
  (``published.figures.expert_levels``). A setting's interval is its run's own (results.json,
  stratified by subject); the overall's and the Δs' are ``stats.combination_ci``: items resampled
  within subjects, one draw per benchmark per replicate, so figures over the same items are
  paired and MMMU-Pro and MMMU are independent samples.
- **CoT effect** (section 3.4), per setting, and **OCR effect** (section 3.3), vision: CoT (or
  OCR) minus direct on the items both runs scored, with the paired bootstrap interval and the
  exact McNemar test (``results.comparison.compare_runs``).
- **Flips** (section 3.5): the items right with 4 options but wrong with 10, and right in
  standard-10 but wrong in vision, between the two runs Table 1 uses, with counts per discipline.

Nothing is re-scored: every number comes from a run's results.json. A cell whose runs are
missing or lack answers is null, and ``reasons`` says which run and how many items it lacks.

>>> from mmmu_eval.suite.execute import evaluate_suite
>>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
>>> from pathlib import Path
>>> from mmmu_eval.suite.run_records import suite_records
>>> study = build_study(suite_records(Path("suites/frequent")), model="frequent")
>>> study["table1"]["overall"]["percent"], study["table1"]["reasons"]
(20.8, {})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from mmmu_eval.dataset.subjects import DISCIPLINES
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.results.comparison import Comparison, compare_runs, discipline_or_other
from mmmu_eval.core.numbers import Number, exact, percent, points
from mmmu_eval.published.figures import expert_levels, expert_line
from mmmu_eval.results.caveats import void
from mmmu_eval.results.results_json import LEVEL
from mmmu_eval.results.scope import combined_scope, scope_of_results
from mmmu_eval.stats.intervals import RESAMPLES, Term, combination_ci
from mmmu_eval.scoring.headline import pro_headline
from mmmu_eval.suite.suite_config import PROMPTS, SETTINGS
from mmmu_eval.results.finished_run import FinishedRun

__all__ = ["COLUMNS", "build_study", "percent", "runs_summary"]

#: Table 1's columns in the paper's order: suite.json key -> printed heading.
COLUMNS: dict[str, str] = {
    "standard_4": "Standard (4 opts)",
    "standard_10": "Standard (10 opts)",
    "vision": "Vision",
    "overall": "Overall",
    "mmmu_val": "MMMU (Val)",
    "delta_1": "Δ1",
    "delta_2": "Δ2",
    "delta_3": "Δ3",
}
_SETTING_KEYS = {"standard-4": "standard_4", "standard-10": "standard_10", "vision": "vision"}
#: How each combined figure is made: (weight, Table 1 key) terms.
_COMBINATIONS: dict[str, tuple[tuple[float, str], ...]] = {
    "overall": ((0.5, "standard_10"), (0.5, "vision")),
    "delta_1": ((1.0, "standard_10"), (-1.0, "standard_4")),
    "delta_2": ((1.0, "vision"), (-1.0, "standard_10")),
    "delta_3": ((0.5, "standard_10"), (0.5, "vision"), (-1.0, "mmmu_val")),
}
_FLIPS = {
    "right_4_wrong_10": ("standard_4", "standard_10", "right with 4 options, wrong with 10"),
    "right_standard_wrong_vision": ("standard_10", "vision", "right in standard-10, wrong in vision"),
}


def _figure(value: float, ci: Sequence[float], *, exactly: Number | None = None, **extra: Any) -> dict[str, Any]:
    """A cell: ``value`` as stored, its percent rounded once from ``exactly`` (the exact value a
    combination or difference of accuracies stands for) or, for one accuracy, from ``value``."""
    low, high = float(ci[0]), float(ci[1])
    return {"percent": percent(value if exactly is None else exactly), "value": value, "ci95": [low, high],
            "ci95_percent": [percent(low), percent(high)], **extra}


def _combined(terms: Sequence[tuple[float, Number]]) -> Fraction:
    """The exact ``sum(weight * accuracy)`` of a Table 1 combination, for its percent to round once."""
    return sum((exact(w) * exact(v) for w, v in terms), Fraction(0))


def _index(records: Sequence[FinishedRun]) -> dict[tuple[str, str, str], FinishedRun]:
    """The first record for each (benchmark, setting or split, prompt); planned runs come first."""
    out: dict[tuple[str, str, str], FinishedRun] = {}
    for record in records:
        out.setdefault(record.key, record)
    return out


def _expected(record: FinishedRun) -> tuple[float, Fraction]:
    """Random Choice's expected accuracy on the run's scored items, each item worth 1/options:
    (as stored, summed in floats; exactly, for its percent to round once)."""
    results = record.results
    assert results is not None
    n = results["overall"]["n"]
    rows = [(row["n"], int(k)) for k, row in results["by_option_count"].items() if k.isdigit()]
    worth = sum(count / options for count, options in rows)
    exactly = sum((Fraction(count, options) for count, options in rows), Fraction(0))
    return (worth / n, exactly / n) if n else (0.0, Fraction(0))


def _term(weight: float, record: FinishedRun) -> Term:
    verdicts = record.results["verdicts"] if record.results else {}
    return Term(weight, record.benchmark, {i: v["correct"] for i, v in verdicts.items()},
                {i: v["subject"] for i, v in verdicts.items()})


def differing_items(a: FinishedRun, b: FinishedRun) -> str | None:
    """How the scored items of two runs differ, said for a reader; None when they are the same.

    The one rule for every pairing of two runs (the better of direct and cot, an effect, a
    flip count): a figure that compares them holds only over the same items, so a difference
    is refused or said, never silent.
    """
    ia = set((a.results or {}).get("verdicts") or {})
    ib = set((b.results or {}).get("verdicts") or {})
    if ia == ib:
        return None
    parts = []
    for run, only in ((a, sorted(ia - ib)), (b, sorted(ib - ia))):
        if only:
            parts.append(f"{len(only)} only in {run.name} ({', '.join(only[:3])}{', ...' if len(only) > 3 else ''})")
    return (f"{a.name} and {b.name} scored different items ({len(ia)} and {len(ib)}: {'; '.join(parts)}); "
            "run both over the same items (the same --limit, --ids, --subjects, --shard and data)")


# -- Table 1 ----------------------------------------------------------------------------------

def _setting_cell(index: Mapping, setting: str) -> tuple[dict | None, str | None, FinishedRun | None]:
    present = [r for m in PROMPTS if (r := index.get(("mmmu-pro", setting, m))) is not None]
    if not present:
        return None, f"no {setting} run in this suite (add {setting} to --settings)", None
    unusable = [r for r in present if not r.usable]
    if unusable:
        return None, "; ".join(f"{r.name} {r.problem}" for r in unusable), None
    if len(present) == 2:
        differ = differing_items(*present)
        if differ:  # the better of two runs means something only over the same questions
            return None, f"the better of direct and cot is read over the same items, and {differ}", None
    headline = pro_headline({(setting, r.prompt): r.results["overall"]["accuracy"] for r in present})
    mode = headline["settings"][setting]["mode"]
    chosen = next(r for r in present if r.prompt == mode)
    overall = chosen.results["overall"]
    by_mode = {r.prompt: {"value": r.results["overall"]["accuracy"], "percent": percent(r.results["overall"]["accuracy"]),
                          "run": r.name} for r in present}
    return _figure(overall["accuracy"], overall["ci95"], mode=mode, run=chosen.name, n=overall["n"],
                   correct=overall["correct"], by_mode=by_mode), None, chosen


def _mmmu_cell(index: Mapping) -> tuple[dict | None, str | None, FinishedRun | None]:
    record = index.get(("mmmu", "validation", "direct"))
    if record is None:
        return None, "no MMMU validation run in this suite (it is left out with --no-mmmu)", None
    if not record.usable:
        return None, f"{record.name} {record.problem}", None
    overall = record.results["overall"]
    ci = (overall["ci95"][0], overall["ci95"][1])
    # The experts' tiers are on all 900 items: never set beside the synthetic sample, and beside
    # a subset only with its scope (results/scope.py).
    scope = scope_of_results(record.results, record.manifest)
    if scope.kind == "sample":
        experts, line = None, None
    else:
        experts, line = expert_levels(overall["accuracy"], ci), expert_line(overall["accuracy"], ci)
        if not scope.full:
            line += f" Not like for like: {scope.caveat}."
    return _figure(overall["accuracy"], overall["ci95"], mode="direct", run=record.name, n=overall["n"],
                   correct=overall["correct"], experts=experts, expert_line=line), None, record


def _table1(index: Mapping, *, random_baseline: bool, resamples: int, seed: int) -> tuple[dict, dict[str, FinishedRun]]:
    table: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    chosen: dict[str, FinishedRun] = {}
    for setting, key in _SETTING_KEYS.items():
        table[key], reason, record = _setting_cell(index, setting)
        if reason:
            reasons[key] = reason
        if record:
            chosen[key] = record
    table["mmmu_val"], reason, record = _mmmu_cell(index)
    if reason:
        reasons["mmmu_val"] = reason
    if record:
        chosen["mmmu_val"] = record
    for key, terms in _COMBINATIONS.items():
        needed = [k for _, k in terms]
        absent = [k for k in needed if k not in chosen]
        if absent:
            table[key] = None
            reasons[key] = f"needs {' and '.join(COLUMNS[k] for k in needed)}; " + "; ".join(
                f"{COLUMNS[k]}: {reasons[k]}" for k in absent)
            continue
        value = sum(w * chosen[k].results["overall"]["accuracy"] for w, k in terms)
        ci = combination_ci([_term(w, chosen[k]) for w, k in terms], resamples=resamples, seed=seed)
        groups = {chosen[k].benchmark for _, k in terms}
        ids = {frozenset(chosen[k].results["verdicts"]) for _, k in terms}
        table[key] = _figure(value, ci, exactly=_combined([(w, chosen[k].results["overall"]["accuracy"]) for w, k in terms]),
                             of=needed, paired=len(groups) == 1 and len(ids) == 1)
    if random_baseline:
        both = {k: _expected(r) for k, r in chosen.items()}
        expected = {k: v for k, (v, _) in both.items()}
        exactly = {k: e for k, (_, e) in both.items()}
        for key, terms in _COMBINATIONS.items():
            if all(k in expected for _, k in terms):
                expected[key] = sum(w * expected[k] for w, k in terms)
                exactly[key] = _combined([(w, exactly[k]) for w, k in terms])
        for key, value in expected.items():
            table[key]["expected"] = value
            table[key]["expected_percent"] = percent(exactly[key])
    table["reasons"] = reasons
    table["mismatched"] = sorted(k for k in _SETTING_KEYS.values() if "scored different items" in reasons.get(k, ""))
    table["columns"] = dict(COLUMNS)
    table["rule"] = ("each setting the better of direct and cot (ties: direct); overall = mean of standard-10 "
                     "and vision; Δ1 = standard-10 − standard-4, Δ2 = vision − standard-10, Δ3 = overall − MMMU (Val)")
    return table, chosen


# -- effects and flips ------------------------------------------------------------------------

def _compare(a: FinishedRun, b: FinishedRun, *, resamples: int, seed: int) -> Comparison:
    assert a.results is not None and b.results is not None
    return compare_runs(a.results, b.results, label_a=a.name, label_b=b.name, paired_by_design=True,
                        resamples=resamples, seed=seed)


def _effect(treatment: FinishedRun, baseline: FinishedRun, *, resamples: int, seed: int) -> dict[str, Any]:
    """``treatment`` (cot, ocr) minus ``baseline`` (direct) on the items both scored."""
    c = _compare(treatment, baseline, resamples=resamples, seed=seed)
    t, b = treatment.prompt, baseline.prompt
    lacking = [f"{r.name} {r.problem}" for r in (treatment, baseline) if not r.usable]
    differ = differing_items(treatment, baseline)
    if differ and not lacking:
        lacking.append(differ)
    return {
        b: {"value": c.acc_b, "percent": percent(c.acc_b), "run": baseline.name},
        t: {"value": c.acc_a, "percent": percent(c.acc_a), "run": treatment.name},
        "difference": _figure(c.difference, c.ci95, exactly=points(c.acc_a, c.acc_b)),
        "mcnemar_p": c.p_value,
        f"{t}_only_right": c.a_only_right,
        f"{b}_only_right": c.b_only_right,
        "shared": c.shared,
        "complete": not lacking,
        "note": ("on the items both runs scored; " + "; ".join(lacking)) if lacking else None,
        "warnings": list(c.warnings),
    }


def _effects(index: Mapping, settings: Sequence[str], mode: str, *, resamples: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for setting in settings:
        key = _SETTING_KEYS[setting]
        direct, other = index.get(("mmmu-pro", setting, "direct")), index.get(("mmmu-pro", setting, mode))
        missing = [f"no {setting} {m} run" for m, r in (("direct", direct), (mode, other)) if r is None]
        missing += [f"{r.name} {r.problem}" for r in (direct, other) if r is not None and r.results is None]
        if missing:
            out[key] = None
            hint = "--ocr" if mode == "ocr" else f"--prompts direct,{mode}"
            reasons[key] = "; ".join(missing) + (f" (run the suite with {hint})" if any(r is None for r in (direct, other)) else "")
            continue
        try:
            out[key] = _effect(other, direct, resamples=resamples, seed=seed)
        except ConfigError as exc:  # no shared item: say so, do not sink the study
            out[key] = None
            reasons[key] = str(exc)
    out["reasons"] = reasons
    return out


def _flip_entry(a: FinishedRun, b: FinishedRun, what: str) -> dict[str, Any]:
    c = _compare(a, b, resamples=0, seed=0)
    lost = [f for f in c.flips if f.a_correct]
    counts = Counter(discipline_or_other(f.subject) for f in lost)
    order = [*DISCIPLINES, "Other"]
    differ = differing_items(a, b)
    return {
        "what": what,
        "a": {"setting": a.setting, "mode": a.prompt, "run": a.name},
        "b": {"setting": b.setting, "mode": b.prompt, "run": b.name},
        "shared": c.shared,
        "note": f"counted on the {c.shared} items both runs scored; {differ}" if differ else None,
        "count": len(lost),
        "reverse_count": len(c.flips) - len(lost),
        "by_discipline": {
            d: {"count": counts.get(d, 0), "shared": c.by_discipline[d].n}
            for d in sorted(c.by_discipline, key=order.index)
        },
        "items": [{"id": f.id, "subject": f.subject, "discipline": discipline_or_other(f.subject),
                   "pred_a": f.pred_a, "pred_b": f.pred_b} for f in lost],
    }


def _flips(chosen: Mapping[str, FinishedRun], table_reasons: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for key, (a_key, b_key, what) in _FLIPS.items():
        if a_key in chosen and b_key in chosen:
            out[key] = _flip_entry(chosen[a_key], chosen[b_key], what)
        else:
            out[key] = None
            reasons[key] = "; ".join(f"{COLUMNS[k]}: {table_reasons[k]}" for k in (a_key, b_key) if k not in chosen)
    out["reasons"] = reasons
    return out


# -- the whole study --------------------------------------------------------------------------

def build_study(
    records: Sequence[FinishedRun], *, model: str | None, resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, Any]:
    """Table 1, the CoT and OCR effects and the flips from a suite's run records.

    Args:
        records: the suite's runs (``run_records.suite_records``); the first record of each
            setting and prompt is used.
        model: the model spec; ``random`` adds each figure's expected value beside the draw.
        resamples, seed: bootstrap settings of the combined figures and the effects.

    Returns:
        ``{"scope", "table1", "cot_effect", "ocr_effect", "flips", "interval"}`` as in docs/suite-schema.md.
    """
    index = _index(records)
    table1, chosen = _table1(index, random_baseline=model == "random", resamples=resamples, seed=seed)
    return {
        "scope": combined_scope({r.name: scope_of_results(r.results, r.manifest) for r in records if r.results}),
        "table1": table1,
        "cot_effect": _effects(index, SETTINGS, "cot", resamples=resamples, seed=seed),
        "ocr_effect": _effects(index, ("vision",), "ocr", resamples=resamples, seed=seed),
        "flips": _flips(chosen, table1["reasons"]),
        "interval": {
            "method": "bootstrap over items, stratified by subject; one draw per benchmark per replicate",
            "level": LEVEL,
            "resamples": max(resamples, 0),
            "seed": seed,
        },
    }


def runs_summary(records: Sequence[FinishedRun]) -> dict[str, dict[str, Any]]:
    """The ``runs`` entry of suite.json: each run's place, status and headline."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        overall = r.results["overall"] if r.results and not void(r.results) else None  # older files: 0.0 for no figure
        coverage = r.results["coverage"] if r.results else None
        out[r.name] = {
            "path": r.name,
            "benchmark": r.benchmark or None,
            "setting": r.setting,
            "split": r.split or None,
            "prompt": r.prompt or None,
            "complete": r.usable,
            "problem": r.problem,
            "lacking": r.lacking,
            "items": coverage["items"] if coverage else None,
            "scored": coverage["scored"] if coverage else None,
            "accuracy": overall["accuracy"] if overall else None,
            "percent": percent(overall["accuracy"]) if overall else None,
            "ci95": overall["ci95"] if overall else None,
            "scope": scope_of_results(r.results, r.manifest).text if r.results else None,
            "official": r.results["run"]["official"] if r.results else None,
            "usage": (r.results or {}).get("usage"),
            "protocol_fingerprint": r.results["run"]["protocol_fingerprint"] if r.results else None,
        }
    return out
