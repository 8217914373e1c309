"""A finished run's or suite's ``Record``, built from the files it wrote.

Read after the outputs are written, from the directory alone: what is logged is exactly what
the run left on disk, and a logging failure cannot touch the run. A file that is not there
(no report.html under ``--no-html``) is not logged, and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import StoreError
from mmmu_eval.results.finished_run import read_run
from mmmu_eval.store.rundir import MANIFEST
from mmmu_eval.tracking.metrics import run_figures, run_params, run_tags, suite_figures
from mmmu_eval.tracking.items import item_table
from mmmu_eval.tracking.log_record import TAG_CHARS, Param, Record, Table, bounded, flat_params, param_value
from mmmu_eval.tracking.log_to import LogTo

__all__ = ["RUN_FILES", "run_record", "suite_record"]

#: A run directory's files that are logged, when present.
RUN_FILES = ("results.json", MANIFEST, "report.html")


def run_record(run_dir: str | Path, log_to: LogTo, *, kind: str = "run") -> Record:
    """The record of one finished run directory (``kind``: ``run`` or ``rescore``).

    Raises:
        StoreError: the directory has no manifest.json or results.json this version reads.
    """
    run_dir = Path(run_dir)
    manifest, results = _read_run(run_dir)
    figures = run_figures(results)
    tags = {"mmmu_eval.kind": kind, **run_tags(manifest, results), "mmmu_eval.run_dir": str(run_dir.resolve())}
    tables = {"items": item_table(run_dir, log_to.answer_chars)} if log_to.items else {}
    return _record(run_dir.name, kind, run_params(manifest, results), figures.metrics, tags,
                   _present(run_dir, ""), tables, figures.not_logged)


def suite_record(suite_dir: str | Path, summary: Mapping[str, Any], log_to: LogTo) -> Record:
    """The record of a finished suite: suite.json's study, then each run's figures under its name.

    ``summary`` is suite.json as the suite wrote it (``SuiteResult.summary``). A run that wrote
    no results is left out and said.
    """
    suite_dir = Path(suite_dir)
    figures = suite_figures(summary)
    config = summary.get("config") or {}
    params = flat_params("suite", config, skip=("run",))
    params.update(flat_params("run", config.get("run") or {}))
    params["package_version"] = param_value(summary.get("package_version"))
    files = _present(suite_dir, "", names=("suite.json", "report.html"))
    tables: dict[str, Table] = {}
    for name, run in (summary.get("runs") or {}).items():
        run_dir = suite_dir / str(run.get("path") or name)
        try:
            manifest, results = _read_run(run_dir)
        except StoreError as exc:
            figures.not_logged.append(f"{name}: every figure, as the run has none ({exc})")
            continue
        of_run = run_figures(results, within=name)
        figures.metrics.update(of_run.metrics)
        figures.not_logged.extend(of_run.not_logged)
        protocol = manifest.get("protocol") or {}
        dataset = manifest.get("dataset") or {}
        for key, value in (("protocol.fingerprint", protocol.get("fingerprint")), ("protocol.official", protocol.get("official")),
                           ("dataset.revision", dataset.get("revision")), ("dataset.digest", dataset.get("digest"))):
            if value is not None:
                params[f"{name}.{key}"] = param_value(value)
        files += _present(run_dir, f"runs/{name}")
        if log_to.items:
            tables[f"items/{name}"] = item_table(run_dir, log_to.answer_chars)
    scope = summary.get("scope") or {}
    kind = str(scope.get("kind") or "unscoped")
    tags = {
        "mmmu_eval.kind": "suite",
        "mmmu_eval.scope": kind,
        "mmmu_eval.scope_text": str(scope.get("text") or "no scope recorded"),
        "mmmu_eval.model": str(summary.get("model")),
        "mmmu_eval.status": str(summary.get("status")),
        "mmmu_eval.suite_dir": str(suite_dir.resolve()),
    }
    return _record(suite_dir.name, "suite", params, figures.metrics, tags, files, tables, figures.not_logged)


def _read_run(run_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    run = read_run(run_dir, rebuild=False)
    if run.results is None:
        raise StoreError("has no results.json: the run was not scored, so there is nothing to log", run_dir)
    return dict(run.manifest), dict(run.results)


def _present(directory: Path, folder: str, *, names: tuple[str, ...] = RUN_FILES) -> tuple[tuple[Path, str], ...]:
    return tuple((directory / name, folder) for name in names if (directory / name).is_file())


def _record(name: str, kind: str, params: dict[str, Param], metrics: dict[str, float], tags: dict[str, str],
            files: tuple[tuple[Path, str], ...], tables: dict[str, Table], not_logged: list[str]) -> Record:
    if not_logged:
        shown = "; ".join(not_logged[:5]) + (f"; and {len(not_logged) - 5} more" if len(not_logged) > 5 else "")
        tags["mmmu_eval.not_logged"] = bounded(shown, TAG_CHARS)
    return Record(name, kind, params, metrics, tags, files, tables, tuple(not_logged))
