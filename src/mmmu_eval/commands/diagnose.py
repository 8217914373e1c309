"""``mmmu-eval doctor``: what in a run could explain why its figure differs from a published one.

The diagnosis is the run's figure with its 95% interval, the causes found in the run
(``doctor.causes``) each with its expected effect and plausible range (``doctor.effects``), the
named failures among its unparsed answers (``doctor.failures``), and, given a published value or
model name: whether that value lies in the interval, the causes outside the run that the
published row's protocol names (``doctor.outside``), every effect combined over the union of its
items, and the remainder of the gap that nothing explains. The worst-case bound of earlier
versions stays (``covered_by``: the causes, largest first, until every item they concern flipping
reaches the gap), labelled as a bound.

One run's diagnosis is built below the pages (``doctor.diagnosis``), so ``report.html`` shows the
very ``Diagnosis`` this command prints; this module reads a run or a suite directory back and
sizes ``best_of`` from a suite's other prompt.

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
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import ConfigError, StoreError
from mmmu_eval.doctor.diagnosis import Diagnosis, SuiteDiagnosis
from mmmu_eval.doctor.examine import _number, diagnose_run, published_value
from mmmu_eval.doctor.effects import combine
from mmmu_eval.published.figures import TABLE1_KEYS, find_published, leaderboard_source, sources, table1_rows
from mmmu_eval.core.manifest import MANIFEST

__all__ = ["diagnose"]

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
        else:  # today's models: the leaderboard's figures of the same columns, where its row gives them
            row["published"] = _leaderboard_row(str(published))
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


def _leaderboard_row(name: str) -> dict[str, Any] | None:
    """A Table 1-shaped row from the MMMU leaderboard (its overall, Standard, Vision and MMMU
    validation figures, where listed), for a model the papers' table lacks; None when not listed."""
    scores: dict[str, float] = {}
    model = None
    for column, key in TABLE1_KEYS.items():
        try:
            found = find_published(name, key)
        except ConfigError:
            continue
        if found.source != leaderboard_source() or (model is not None and found.model != model):
            continue
        model = found.model
        scores[column] = found.percent
    if model is None:
        return None
    return {"model": model, "scores": scores, "source": sources()[leaderboard_source()].title}


def _twin(record: Any, records: Sequence[Any], alone: Mapping[Any, Diagnosis]) -> dict[str, Any] | None:
    """The better of the other prompts' runs of the same benchmark and setting, for ``best_of``."""
    if record.path not in alone or alone[record.path].figure["accuracy"] is None:
        return None  # a run with no score has no figure to set against its twin's
    setting = (record.results or {}).get("setting")
    twins = [r for r in records if r.path != record.path and r.benchmark == record.benchmark
             and (r.results or {}).get("setting") == setting and r.prompt in ("direct", "cot") and r.path in alone
             and alone[r.path].figure["accuracy"] is not None]
    if not twins or record.prompt not in ("direct", "cot"):
        return None
    best = max(twins, key=lambda r: alone[r.path].figure["accuracy"])
    n = alone[record.path].figure["n"]

    def inrun(d: Diagnosis) -> float:
        return float(combine([e for e in d.effects if e.where == "run"], d.figure["n"] or n)["expected"])

    return {"mode": best.prompt, "accuracy": alone[best.path].figure["accuracy"],
            "inrun": inrun(alone[best.path]), "this_inrun": inrun(alone[record.path])}


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
