"""The run directories of a suite, read back as the study needs them: results, never re-scored.

A suite directory is a folder of ordinary run directories, each read by the one reader of a
finished run (``results.finished_run.read_run`` with ``rebuild=False``): the study takes each
run's ``results.json`` as the run wrote it (``mmmu-eval score`` rewrites it when a run is
re-scored) and its manifest, and each ``FinishedRun`` says whether it can stand in Table 1: a
run that lacks answers for some items (errors, items never asked, dataset rows that could not be
read) gives no figure, and the record says how many items it lacks and why. A planned run that
left nothing to read is a ``FinishedRun.missing`` saying why.

>>> from mmmu_eval.suite.execute import evaluate_suite
>>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
>>> records = suite_records(Path("suites/frequent"), model="frequent")
>>> [(r.name, r.usable) for r in records]
[('mmmu-validation-direct', True), ('standard-10-direct', True), ('standard-4-direct', True), ('vision-direct', True)]
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.manifest import MANIFEST, Manifest
from mmmu_eval.core.records import Response
from mmmu_eval.results.finished_run import FinishedRun, read_run
from mmmu_eval.suite.suite_config import SuiteRun

__all__ = ["read_record", "record_responses", "suite_records"]

log = logging.getLogger(__name__)

#: What the suite asks of a run that gives no figure, after the reader's reason.
_AGAIN = {"has no results.json (the run did not finish)": "; run the suite again to finish it"}


def read_record(path: Path, *, planned: SuiteRun | None = None, failure: str | None = None) -> FinishedRun | None:
    """The run directory ``path`` read back; None when it holds no run and none was planned.

    Args:
        path: the run directory.
        planned: the suite's run that should be there: says what it would have measured even
            when the directory holds nothing.
        failure: the error that stopped the run in this session, if any.
    """
    if not (path / MANIFEST).is_file() or failure is not None and not (path / "results.json").is_file():
        if planned is None:
            return None
        why = f"failed: {failure}" if failure else "was not run (no run directory)"
        return FinishedRun.missing(path, _planned(planned), why)
    try:
        run = read_run(path, rebuild=False)
    except StoreError as exc:
        if planned is None:
            log.warning("%s", exc)
            return None
        return FinishedRun.missing(path, _planned(planned), f"cannot be read: {exc}")
    if run.problem is None or run.results is not None and not run.results["gold_available"]:
        return run
    return replace(run, problem=run.problem + _AGAIN.get(run.problem, "; run the suite again to ask them"))


def _planned(run: SuiteRun) -> dict:
    """What a planned run would have measured, as a run's configuration says it."""
    config = run.config
    return {"benchmark": config.benchmark, "setting": run.setting, "split": config.resolved_split,
            "prompt": config.prompt}


def suite_records(
    suite_dir: Path,
    planned: Sequence[SuiteRun] = (),
    *,
    failures: Mapping[str, str] | None = None,
    model: str | None = None,
) -> list[FinishedRun]:
    """Every run of a suite: the planned ones in order, then any other run directory in it.

    Args:
        suite_dir: the suite directory.
        planned: the runs this suite asked for; each gets a record, even when it failed before
            writing anything (its record then says why).
        failures: run name -> the error that stopped it in this session.
        model: when given, run directories of another model are left out (with a warning).
    """
    failures = failures or {}
    records = [
        record for run in planned
        if (record := read_record(suite_dir / run.name, planned=run, failure=failures.get(run.name))) is not None
    ]
    names = {run.name for run in planned}
    others = sorted(p for p in suite_dir.iterdir() if p.is_dir() and p.name not in names) if suite_dir.is_dir() else []
    for path in others:
        record = read_record(path)
        if record is None or not record.benchmark:
            continue
        run_model = Manifest.of(record.manifest).config.get("model")
        if model is not None and run_model != model:
            log.warning("%s is a run of %s, not %s; left out of the suite", path, run_model, model)
            continue
        records.append(record)
    return records


def record_responses(record: FinishedRun) -> list[Response]:
    """The run's stored responses, the last one per item, for the items it evaluated."""
    if not record.manifest:
        return []
    stored = record.read_responses()
    ids = Manifest.of(record.manifest).item_ids
    return list(stored.values()) if ids is None else [stored[i] for i in ids if i in stored]
