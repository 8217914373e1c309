"""``mmmu-eval doctor``: what in a run could explain why its figure differs from a published one.

The diagnosis is the run's figure with its 95% interval, the causes found in the run
(``report.causes``), and, given a published value or model name, whether that value lies in the
interval and which causes together could cover the gap. "Could cover" is a bound: the causes,
largest first, are added until the items they concern (each counted once) reach the gap.

The random baseline on the bundled sample against a published 58.6: the gap is far outside the
interval, and the subset alone (40 of the 900 validation items) could account for it:

>>> from mmmu_eval import evaluate
>>> run = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/random-val")
>>> diagnosis = diagnose(run.run_dir, published=58.6)
>>> [(c.cause, c.points) for c in diagnosis.causes]
[('coverage', 86.0), ('unparsed', 0.0)]
>>> diagnosis.published["inside_interval"], diagnosis.published["covered_by"]
(False, ['coverage'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.report.causes import Cause, cause_line, find_causes
from mmmu_eval.errors import ConfigError, StoreError
from mmmu_eval.report.numbers import fixed, pct, percent, points, rounded
from mmmu_eval.report.published import published_for, score_key, sources, table1_rows
from mmmu_eval.report.scope import scope_of_results
from mmmu_eval.store.manifest import MANIFEST

if TYPE_CHECKING:
    from mmmu_eval.report.loaded_run import LoadedRun

__all__ = ["Diagnosis", "SuiteDiagnosis", "diagnose", "published_value"]


@dataclass(frozen=True)
class Diagnosis:
    """One run's figure, its causes (largest first) and its place against a published value."""

    run: str
    figure: dict[str, Any]
    causes: tuple[Cause, ...]
    published: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document (docs/doctor.md)."""
        return {"run": self.run, "figure": dict(self.figure), "causes": [c.to_json() for c in self.causes],
                "published": None if self.published is None else dict(self.published)}

    def lines(self) -> list[str]:
        """The terminal report: the figure, one line per cause, then the published comparison."""
        f = self.figure
        where = f"{f['benchmark']}/{f['setting'] or f['split']}"
        # The accuracy from its count, rounded once (the stored figure is already rounded to 4 places).
        accuracy = pct(Fraction(f["correct"], f["n"]), 2) if f["n"] else fixed(f["accuracy"], 2)
        scope = f.get("scope") or {}
        if f.get("gold_available") is False:
            out = [f"{self.run}: {f['model']} on {where}: no gold answers, no figure to diagnose; "
                   f"{scope.get('text', '')}"]
            if self.published is not None:
                out.append(f"published figure not set beside this run: {self.published.get('refused')}")
            return out
        out = [f"{self.run}: {f['model']} on {where}: {accuracy}% ({f['correct']}/{f['n']}), "
               f"95% CI [{fixed(f['ci95'][0], 2)}, {fixed(f['ci95'][1], 2)}]" + (f"; {scope['text']}" if scope else "")]
        if not self.causes:
            out.append("no cause found in the run that could move the figure")
        for c in self.causes:
            out.append(f"  {c.cause:<10} {c.items:>5} items  up to {fixed(c.points, 2, signed=True)} points  {cause_line(c)}")
            if c.examples:
                out.append(f"  {'':<10} e.g. {', '.join(c.examples)}")
        if self.published is not None and self.published.get("refused"):
            out.append(f"published figure not set beside this run: {self.published['refused']}")
        elif self.published is not None:
            p = self.published
            if scope.get("kind") == "sample":
                out.append("not like for like: the run is on the bundled sample, synthetic items, not the benchmark; "
                           "the comparison below shows the method only")
            elif scope and scope.get("kind") != "full":
                out.append(f"not like for like: this run is on a {scope['text']}; published figures are on the "
                           f"full {scope.get('split', 'split')}")
            inside = "inside" if p["inside_interval"] else "outside"
            out.append(f"published {fixed(p['value'], 2)}% ({p['source']}): {inside} the run's 95% interval; "
                       f"gap {fixed(p['gap'], 2, signed=True)} points")
            if p["covered_by"]:
                names = p["covered_by"][0] + " alone" if len(p["covered_by"]) == 1 else ", ".join(p["covered_by"]) + " together"
                verb = "could cover" if p["covered"] else f"cover at most {fixed(p['coverable'], 2)} points of"
                out.append(f"  {names} {verb} the gap (the items they concern, each counted once)")
            elif abs(p["gap"]) > 0:
                out.append("  no cause in the run could move the figure toward it")
        return out


def published_value(value: str | float, benchmark: str, split: str | None, setting: str | None) -> tuple[float, str]:
    """A published figure (percent) and where it is from: a number as given, or a model's published row.

    Raises:
        ConfigError: the name matches no model (or several) published for this benchmark variant.
    """
    number = _number(value)
    if number is not None:
        if not 1.0 < number <= 100.0:
            raise ConfigError(f"--published {value!r}: give the published accuracy in percent (58.6), "
                              "above 1 and at most 100 (a fraction such as 0.586 is read as a mistake)")
        return number, "given"
    key = score_key(benchmark, split, setting)
    rows = published_for(key)
    name = str(value).strip().lower()
    exact = [r for r in rows if r.model.lower() == name]
    found = exact or [r for r in rows if name in r.model.lower()]
    if len({r.model for r in found}) > 1 and not exact:
        raise ConfigError(f"--published {value!r} matches several models published for {key}: "
                          + ", ".join(sorted({r.model for r in found})))
    if not found:
        known = ", ".join(r.model for r in rows) or "none"
        raise ConfigError(f"--published {value!r}: no model of that name is published for {key} (published: {known})")
    row = found[0]
    return row.percent, f"{row.model}, {sources()[row.source].title}"


def _against(value: float, source: str, figure: Mapping[str, Any], causes: Sequence[Cause]) -> dict[str, Any]:
    low, high = figure["ci95"]
    gap = value - figure["accuracy"]
    n = figure["n"] or 1
    items: set[str] = set()
    unscored = 0.0
    covered_by: list[str] = []
    reach = 0.0
    for cause in causes:
        bound = cause.points if gap >= 0 else cause.points_down
        if abs(gap) < 1e-9 or bound <= 0:
            continue
        covered_by.append(cause.cause)
        concerned = cause.wrong if gap >= 0 else cause.right
        if concerned:
            items |= concerned  # an item two causes share is counted once
        else:
            unscored += bound
        reach = 100.0 * len(items) / n + unscored
        if reach >= abs(gap) - 1e-9:
            break
    return {"value": value, "source": source, "inside_interval": low - 1e-9 <= value <= high + 1e-9,
            "gap": rounded(points(value, figure["accuracy"]), 4), "covered_by": covered_by, "coverable": rounded(reach, 4),
            "covered": reach >= abs(gap) - 1e-9}


def _figure(loaded: LoadedRun) -> dict[str, Any]:
    results = loaded.results
    overall = results["overall"]
    return {
        "benchmark": results["benchmark"], "split": results.get("split"), "setting": results.get("setting"),
        "model": results["run"].get("model"), "accuracy": percent(overall["accuracy"], 4),
        "correct": overall["correct"], "n": overall["n"],
        "ci95": [percent(x, 4) for x in overall["ci95"]],
        "official_protocol": results["run"].get("official"), "rescored_from": results["run"].get("rescored_from"),
        "gold_available": results.get("gold_available", True),
        "scope": scope_of_results(results, loaded.manifest).to_json(),
    }


def diagnose_run(run_dir: str | Path, *, published: str | float | None = None) -> Diagnosis:
    """The diagnosis of one run directory (a run, a suite's run, a ``rescore --out`` directory)."""
    from mmmu_eval.report.loaded_run import load_run

    loaded = load_run(run_dir, details=True)
    figure = _figure(loaded)
    assert loaded.items is not None and loaded.responses is not None and loaded.scoring is not None
    causes = tuple(find_causes(loaded.results, loaded.manifest, loaded.items, loaded.responses, loaded.scoring))
    against = None
    if published is not None:
        value, source = published_value(published, figure["benchmark"], figure["split"], figure["setting"])
        if not figure["gold_available"]:
            against = {"value": value, "source": source, "refused": "the run has no gold answers"}
        else:
            # Asked for by name or number: given, with the scope beside it when it is not the full split.
            against = _against(value, source, figure, causes)
    return Diagnosis(str(run_dir), figure, causes, against)


@dataclass(frozen=True)
class SuiteDiagnosis:
    """A suite: its Table 1 row beside the published one, and one diagnosis per run."""

    suite: str
    table1: dict[str, Any]
    runs: tuple[Diagnosis, ...]

    def to_json(self) -> dict[str, Any]:
        return {"suite": self.suite, "table1": dict(self.table1), "runs": [r.to_json() for r in self.runs]}

    def lines(self) -> list[str]:
        row = self.table1
        cells = ", ".join(f"{k} {fixed(v)}" if v is not None else f"{k} -" for k, v in row["ours"].items())
        out = [f"{self.suite}: Table 1 row {cells}"]
        if row.get("published") is not None:
            theirs = ", ".join(f"{k} {fixed(v)}" for k, v in row["published"]["scores"].items())
            out.append(f"published ({row['published']['model']}): {theirs}")
        for run in self.runs:
            out.append("")
            out.extend(run.lines())
        return out


def _suite(suite_dir: Path, published: str | float | None) -> SuiteDiagnosis:
    from mmmu_eval.suite.execute import read_summary
    from mmmu_eval.suite.run_records import suite_records

    summary = read_summary(suite_dir)
    assert summary is not None
    table1 = summary.get("table1") or {}
    ours = {k: (table1.get(k) or {}).get("percent") for k in ("standard_4", "standard_10", "vision", "overall", "mmmu_val")}
    row: dict[str, Any] = {"ours": ours, "published": None}
    if published is not None and not _is_number(published):
        name = str(published).strip().lower()
        rows = [r for r in table1_rows() if name == r.model.lower()] or [r for r in table1_rows() if name in r.model.lower()]
        if rows:
            row["published"] = {"model": rows[0].model, "scores": rows[0].scores}
    runs = []
    for record in suite_records(suite_dir, model=summary.get("model")):
        if record.results is None:
            continue
        value = published
        if published is not None and not _is_number(published):
            try:
                published_value(published, record.benchmark, record.results.get("split"), record.results.get("setting"))
            except ConfigError:
                value = None  # the model has no published figure for this run's variant
        runs.append(diagnose_run(record.path, published=value))
    return SuiteDiagnosis(str(suite_dir), row, tuple(runs))


def _number(value: object) -> float | None:
    """``58.6``, ``"58.6"`` or ``"58.6%"`` as a float; None for a model name."""
    try:
        return float(str(value).strip().rstrip("%"))
    except ValueError:
        return None


def _is_number(value: object) -> bool:
    return _number(value) is not None


def diagnose(run_dir: str | Path, *, published: str | float | None = None) -> Diagnosis | SuiteDiagnosis:
    """What in a run (or each run of a suite) could move its figure, and against a published one.

    Args:
        run_dir: a run directory, a ``rescore --out`` directory, or a suite directory.
        published: a published accuracy in percent (``58.6``), or a model name looked up in the
            published results shipped with the package (MMMU-Pro Table 1, the MMMU leaderboard).

    Raises:
        StoreError: the directory is not a run or a suite.
        ConfigError: a model name with no published figure for the run's benchmark variant.
    """
    path = Path(run_dir)
    if (path / "suite.json").is_file():
        return _suite(path, published)
    if not (path / MANIFEST).is_file():
        raise StoreError("is neither a run directory (no manifest.json) nor a suite (no suite.json)", path)
    return diagnose_run(path, published=published)
