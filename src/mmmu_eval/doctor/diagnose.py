"""``mmmu-eval doctor``: what in a run could explain why its figure differs from a published one.

The diagnosis is the run's figure with its 95% interval, the causes found in the run
(``report.causes``) each with its expected effect and plausible range (``doctor.effects``), the
named failures among its unparsed answers (``doctor.failures``), and, given a published value or
model name: whether that value lies in the interval, the causes outside the run that the
published row's protocol names (``doctor.outside``), every effect combined over the union of its
items, and the remainder of the gap that nothing explains. The worst-case bound of earlier
versions stays (``covered_by``: the causes, largest first, until every item they concern flipping
reaches the gap), labelled as a bound.

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.doctor.effects import PRIORITY, Effect, combine, run_effects
from mmmu_eval.doctor.failures import failure_kinds
from mmmu_eval.doctor.lines import diagnosis_lines
from mmmu_eval.doctor.outside import compared_line, outside_effects
from mmmu_eval.report.causes import Cause, find_causes
from mmmu_eval.errors import ConfigError, StoreError
from mmmu_eval.report.numbers import fixed, pct, percent, points, rounded
from mmmu_eval.report.published import Published, leaderboard_for, published_for, score_key, sources, table1_rows
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
    effects: tuple[Effect, ...] = ()
    """The expected effect of each cause in the run, then of each cause outside it (``doctor.effects``)."""
    failures: dict[str, Any] = field(default_factory=dict)
    """Named failure kinds among the unparsed answers (``doctor.failures``)."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document (docs/doctor.md)."""
        return {"run": self.run, "figure": dict(self.figure), "causes": [c.to_json() for c in self.causes],
                "effects": [e.to_json() for e in self.effects], "failures": dict(self.failures),
                "published": None if self.published is None else dict(self.published)}

    def lines(self) -> list[str]:
        """The terminal report: the figure, each cause with its expected effect, the published
        comparison, the causes together and the remainder (``doctor.lines``)."""
        return diagnosis_lines(self)


def published_value(value: str | float, benchmark: str, split: str | None, setting: str | None) -> tuple[float, str]:
    """A published figure (percent) and where it is from: a number as given, or a model's published row.

    Raises:
        ConfigError: the name matches no model (or several) published for this benchmark variant.
    """
    number, source, _ = published_row(value, benchmark, split, setting)
    return number, source


def published_row(value: str | float, benchmark: str, split: str | None,
                  setting: str | None) -> tuple[float, str, Published | None]:
    """As ``published_value``, with the published row itself (None for a number as given).

    Raises:
        ConfigError: the name matches no model (or several) published for this benchmark variant.
    """
    number = _number(value)
    if number is not None:
        if not 1.0 < number <= 100.0:
            raise ConfigError(f"--published {value!r}: give the published accuracy in percent (58.6), "
                              "above 1 and at most 100 (a fraction such as 0.586 is read as a mistake)")
        return number, "given", None
    key = score_key(benchmark, split, setting)
    name = _name_key(str(value))
    found: list[Published] = []
    # the papers' tables first; today's leaderboard (its figures as their authors reported them) after
    for rows in (published_for(key), leaderboard_for(key)):
        exact = [r for r in rows if _name_key(r.model) == name]
        found = exact or [r for r in rows if name in _name_key(r.model)]
        if len({r.model for r in found}) > 1 and not exact:
            raise ConfigError(f"--published {value!r} matches several models published for {key}: "
                              + ", ".join(sorted({r.model for r in found})))
        if found:
            break
    if not found:
        known = ", ".join(r.model for r in published_for(key)) or "none"
        others = len(leaderboard_for(key))
        raise ConfigError(f"--published {value!r}: no model of that name is published for {key} (published: {known}"
                          + (f"; and {others} rows of the MMMU leaderboard, none of that name)" if others else ")"))
    row = found[0]
    return row.percent, f"{row.model}, {sources()[row.source].title}", row


def _name_key(name: str) -> str:
    """A model name as matched: case, spaces, hyphens and underscores ignored (``Qwen2.5-VL-72B``
    finds the leaderboard's ``Qwen2.5-VL 72B``); dots kept (``llava1.5`` is not ``llava15``)."""
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


def _against(value: float, source: str, figure: Mapping[str, Any], causes: Sequence[Cause],
             bounds: Mapping[str, float] | None = None) -> dict[str, Any]:
    low, high = figure["ci95"]
    gap = value - figure["accuracy"]
    n = figure["n"] or 1
    items: set[str] = set()
    unscored = 0.0
    covered_by: list[str] = []
    reach = 0.0
    for cause in causes:
        bound = cause.points if gap >= 0 else cause.points_down
        if bounds is not None and cause.cause in bounds:
            bound = min(bound, bounds[cause.cause])  # a token limit that cut nothing can move nothing
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
    # covered_by / coverable / covered are worst-case bounds (every concerned item flipping), not estimates
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
        # eval-only predictions are letters without their items' options: no parser reads them
        "has_options": any(it.options for it in loaded.items or ()),
    }


def diagnose_run(run_dir: str | Path, *, published: str | float | None = None,
                 other: Mapping[str, Any] | None = None) -> Diagnosis:
    """The diagnosis of one run directory (a run, a suite's run, a ``rescore --out`` directory).

    ``other``: the same setting's run with the other prompt, in a suite (``{"mode", "accuracy",
    "inrun", "this_inrun"}``), which sizes ``best_of``.
    """
    from mmmu_eval.report.loaded_run import load_run

    loaded = load_run(run_dir, details=True)
    figure = _figure(loaded)
    assert loaded.items is not None and loaded.responses is not None and loaded.scoring is not None
    causes = tuple(find_causes(loaded.results, loaded.manifest, loaded.items, loaded.responses, loaded.scoring))
    effects = run_effects(causes, loaded.items, loaded.responses, loaded.scoring, loaded.results)
    failures = failure_kinds(loaded.items, loaded.responses, loaded.scoring, loaded.results)
    against = None
    if published is not None:
        value, source, row = published_row(published, figure["benchmark"], figure["split"], figure["setting"])
        if not figure["gold_available"]:
            against = {"value": value, "source": source, "refused": "the run has no gold answers"}
        else:
            # Asked for by name or number: given, with the scope beside it when it is not the full split.
            against = _against(value, source, figure, causes,
                               {e.cause: e.bound for e in effects if e.where == "run" and e.bound is not None})
            src = sources()[row.source] if row is not None else None
            verdicts = loaded.scoring.verdicts[loaded.scoring.parsers[0]]
            correct = {i: bool(v.correct) for i, v in verdicts.items()}
            effects = effects + outside_effects(figure, loaded.manifest, loaded.items, correct, row, src,
                                                in_run=[c.cause for c in causes], other=other)
            against["compared"] = compared_line(figure, loaded.manifest, row, src)
            against.update(_explained(against["gap"], effects, figure["n"]))
    return Diagnosis(str(run_dir), figure, causes, against, tuple(effects), failures)


def _explained(gap: float, effects: Sequence[Effect], n: int) -> dict[str, Any]:
    """The causes' expected effects together, and the remainder of the gap no cause explains."""
    together = combine(effects, n)
    remainder = gap - together["expected"]
    toward = [e for e in effects if e.expected is not None and e.expected * gap > 0]
    rank = {name: k for k, name in enumerate(PRIORITY)}
    main = max(toward, key=lambda e: (round(abs(e.expected or 0.0), 9), -rank.get(e.cause, len(rank))), default=None)
    return {"explained": {k: (rounded(v, 4) if isinstance(v, float) else v) for k, v in together.items()},
            "remainder": rounded(remainder, 4),
            "main_cause": None if main is None else {"cause": main.cause, "expected": rounded(main.expected or 0.0, 4)}}


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
    records = [r for r in suite_records(suite_dir, model=summary.get("model")) if r.results is not None]
    # each run alone first: its figure and its in-run effects together, to size best_of against its twin
    alone = {r.path: diagnose_run(r.path) for r in records} if published is not None else {}
    runs = []
    for record in records:
        value = published
        if published is not None and not _is_number(published):
            try:
                published_value(published, record.benchmark, record.results.get("split"), record.results.get("setting"))
            except ConfigError:
                value = None  # the model has no published figure for this run's variant
        runs.append(diagnose_run(record.path, published=value, other=_twin(record, records, alone)))
    return SuiteDiagnosis(str(suite_dir), row, tuple(runs))


def _twin(record: Any, records: Sequence[Any], alone: Mapping[Any, Diagnosis]) -> dict[str, Any] | None:
    """The better of the other prompts' runs of the same benchmark and setting, for ``best_of``."""
    if record.path not in alone:
        return None
    setting = (record.results or {}).get("setting")
    twins = [r for r in records if r.path != record.path and r.benchmark == record.benchmark
             and (r.results or {}).get("setting") == setting and r.prompt in ("direct", "cot") and r.path in alone]
    if not twins or record.prompt not in ("direct", "cot"):
        return None
    best = max(twins, key=lambda r: alone[r.path].figure["accuracy"])
    n = alone[record.path].figure["n"]

    def inrun(d: Diagnosis) -> float:
        return float(combine([e for e in d.effects if e.where == "run"], d.figure["n"] or n)["expected"])

    return {"mode": best.prompt, "accuracy": alone[best.path].figure["accuracy"],
            "inrun": inrun(alone[best.path]), "this_inrun": inrun(alone[record.path])}


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
