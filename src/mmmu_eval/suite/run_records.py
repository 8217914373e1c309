"""The run directories of a suite, read back as the study needs them: results, never re-scored.

A suite directory is a folder of ordinary run directories. The study takes each run's
``results.json`` as the run wrote it (``mmmu-eval score`` rewrites it when a run is re-scored)
and its manifest, and says for each run whether it can stand in Table 1: a run that lacks
answers for some items (errors, items never asked, dataset rows that could not be read) gives no
figure, and the record says how many items it lacks and why.

>>> from mmmu_eval.suite.execute import evaluate_suite
>>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
>>> records = suite_records(Path("suites/frequent"), model="frequent")
>>> [(r.name, r.usable) for r in records]
[('mmmu-validation-direct', True), ('standard-10-direct', True), ('standard-4-direct', True), ('vision-direct', True)]
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.results.results_json import Results, read_results
from mmmu_eval.store.manifest import Manifest
from mmmu_eval.store.rundir import MANIFEST, RunStore
from mmmu_eval.suite.suite_config import SuiteRun

__all__ = ["RunRecord", "read_record", "record_responses", "suite_records"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRecord:
    """One run of a suite as the study sees it."""

    name: str
    """Directory name under the suite."""
    path: Path
    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    setting: str | None
    """MMMU-Pro setting; None for MMMU."""
    split: str
    prompt: str
    """Prompt mode: ``direct``, ``cot``, ``ocr`` ..."""
    results: Results | None
    """results.json; None when the run has none (failed before scoring, or killed)."""
    manifest: dict[str, Any]
    lacking: int = 0
    """Items of the run without a scored answer: errors, never asked, unreadable dataset rows."""
    problem: str | None = None
    """Why the run gives no figure (no results, lacking items, no gold answers); None when it does."""

    @property
    def usable(self) -> bool:
        """The run has results over every one of its items, so it may stand in Table 1."""
        return self.problem is None

    @property
    def label(self) -> str:
        """``standard-10 (cot)``, ``MMMU validation (direct)``."""
        return f"{self.setting or 'MMMU ' + self.split} ({self.prompt})"

    @property
    def key(self) -> tuple[str, str, str]:
        """(benchmark, setting or split, prompt): what the run measured."""
        return self.benchmark, self.setting or self.split, self.prompt


def read_record(path: Path, *, planned: SuiteRun | None = None, failure: str | None = None) -> RunRecord | None:
    """The record of the run directory ``path``; None when it holds no run and none was planned.

    Args:
        path: the run directory.
        planned: the suite's run that should be there: names the record (and says what it would
            have measured) even when the directory holds nothing.
        failure: the error that stopped the run in this session, if any.
    """
    name = planned.name if planned is not None else path.name
    if not (path / MANIFEST).is_file() or failure is not None and not (path / "results.json").is_file():
        if planned is None:
            return None
        config = planned.config
        why = f"failed: {failure}" if failure else "was not run (no run directory)"
        return RunRecord(name, path, config.benchmark, planned.setting, config.resolved_split, config.prompt,
                         None, {}, problem=why)
    try:
        manifest = RunStore.read(path).manifest()
        results = read_results(path)
    except StoreError as exc:
        if planned is None:
            log.warning("%s", exc)
            return None
        config = planned.config
        return RunRecord(name, path, config.benchmark, planned.setting, config.resolved_split, config.prompt,
                         None, {}, problem=f"cannot be read: {exc}")
    config = Manifest.of(manifest, path / MANIFEST).config
    benchmark = str(config.get("benchmark") or "")
    setting = config.get("setting") if benchmark == "mmmu-pro" else None
    split = str(config.get("split") or ("test" if benchmark == "mmmu-pro" else "validation"))
    prompt = str(config.get("prompt") or "direct")
    lacking, problem = _lack(manifest, results)
    return RunRecord(name, path, benchmark, setting, split, prompt, results, manifest, lacking, problem)


def _lack(manifest: Mapping[str, Any], results: Results | None) -> tuple[int, str | None]:
    """(items lacking, why the run gives no figure)."""
    record = Manifest.of(manifest)
    if results is None:
        return len(record.item_ids or ()), "has no results.json (the run did not finish); run the suite again to finish it"
    coverage = results["coverage"]
    config = record.config
    unreadable = 0 if config.get("ids") or config.get("limit") or config.get("sample") else len(record.dataset.get("problems") or ())
    lacking = coverage["errors"] + coverage["missing"] + unreadable
    if not results["gold_available"]:
        return lacking, "has no gold answers (test split): no accuracy"
    if not lacking:
        return 0, None
    parts = [f"{n} {what}" for n, what in ((coverage["errors"], "failed"), (coverage["missing"], "not asked"),
                                           (unreadable, "unreadable dataset rows")) if n]
    return lacking, (
        f"lacks {lacking} of {coverage['items'] + unreadable} items ({', '.join(parts)}); "
        "run the suite again to ask them"
    )


def suite_records(
    suite_dir: Path,
    planned: Sequence[SuiteRun] = (),
    *,
    failures: Mapping[str, str] | None = None,
    model: str | None = None,
) -> list[RunRecord]:
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


def record_responses(record: RunRecord) -> list[Response]:
    """The run's stored responses, the last one per item, for the items it evaluated."""
    if not record.manifest:
        return []
    stored = RunStore.read(record.path).responses()
    ids = Manifest.of(record.manifest).item_ids
    return list(stored.values()) if ids is None else [stored[i] for i in ids if i in stored]
