"""``evaluate_suite``: the MMMU-Pro study in one call, top to bottom.

    plan the runs -> refuse a changed protocol -> one backend -> every run (evaluate_async)
                  -> read the run directories -> the study -> suite.json, report.html

Each run is ``api.evaluate_async`` with its own RunConfig, exactly what ``mmmu-eval run``
does, so a run of a suite is a run like any other, and the same call again continues every run
where it stopped. The runs of an API model ask at the same time through one backend object, so
their requests share its in-flight limit (``--concurrency`` per endpoint, across all runs):
the server is kept busy across runs and start-up is paid once (``plan.backend_sharing`` says
when a backend is shared, and why local engines run one run after another). Nothing is
re-scored for the study: it reads each run's results.json (``study.py``).

>>> result = evaluate_suite(model="frequent", data="sample", out="suites/frequent-sample")
>>> result.summary["table1"]["overall"]["percent"]    # the paper's Table 1 "Overall", in percent
20.8
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmmu_eval.run.pipeline import RunResult, evaluate_async
from mmmu_eval.backends.registry import make_backend
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.clock import utc_now
from mmmu_eval.core.atomic import remove_leftovers
from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.core.errors import ConfigError, MmmuEvalError, StoreError
from mmmu_eval.run.finished import finished_result
from mmmu_eval.run.resolve import Unpack
from mmmu_eval.run.result import NO_SCORE_STATUS
from mmmu_eval.run.resume import check_run_dir
from mmmu_eval.run.runner import run_together
from mmmu_eval.prompt.protocol import EvalProtocol
from mmmu_eval.stats.intervals import RESAMPLES
from mmmu_eval.core.manifest import MANIFEST, build_manifest
from mmmu_eval.store.rundir import RunStore, holds_more_than_ranks
from mmmu_eval.store.versioned import read_versioned
from mmmu_eval.core.writer_lock import hold_directory
from mmmu_eval.tracking import LogToArg, as_log_to, log_suite
from mmmu_eval.suite.guard import SUITE_FILE, check_suite_data, log_failures, settle_suite_file, suite_file_before
from mmmu_eval.suite.suite_config import SuiteConfig, SuiteConfigArgs, SuiteRun, backend_sharing, resolve_suite_config
from mmmu_eval.suite.suite_progress import SuiteDisplay
from mmmu_eval.results.usage import usage_summary
from mmmu_eval.suite.run_records import record_responses, suite_records
from mmmu_eval.suite.study import build_study, runs_summary
from mmmu_eval.core.version import __version__

__all__ = ["SUITE_FILE", "SuiteInterrupted", "SuiteResult", "evaluate_suite", "evaluate_suite_async", "summarize_suite"]

log = logging.getLogger(__name__)

#: Bumped whenever a key of suite.json is renamed or changes meaning.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class SuiteResult:
    """What a finished ``evaluate_suite`` call hands back."""

    suite_dir: Path
    """The suite directory (suite.json, report.html, one run directory per run)."""
    summary: dict[str, Any]
    """suite.json: table1, cot_effect, ocr_effect, flips, runs (``docs/suite-schema.md``)."""
    runs: dict[str, RunResult] = field(default_factory=dict)
    """The runs that ran to their end in this call, by name."""
    failures: dict[str, str] = field(default_factory=dict)
    """Run name -> the error that stopped it in this call."""

    @property
    def table1(self) -> dict[str, Any]:
        """The model's Table 1 row (cells null where runs are missing or incomplete)."""
        return self.summary["table1"]

    @property
    def overall(self) -> float | None:
        """The MMMU-Pro overall as a fraction in [0, 1], as ``RunResult.accuracy`` and results.json have
        accuracies (suite.json's ``percent`` is the printed figure); None when it has no figure."""
        cell = self.table1.get("overall")
        return None if cell is None else float(cell["value"])

    @property
    def exit_status(self) -> int:
        """0 when every run is complete; ``NO_SCORE_STATUS`` (3) when not one run has a score (every
        request of every run failed); 1 when some failed or lack answers."""
        runs = list(self.summary["runs"].values())
        if runs and all(run["items"] is not None and run["accuracy"] is None for run in runs):
            return NO_SCORE_STATUS
        return 0 if self.summary["status"] == "complete" else 1

    def message(self) -> str | None:
        """What to tell the user when runs failed or lack answers, else None."""
        lines = [f"{name}: {info['problem']}" for name, info in self.summary["runs"].items() if info["problem"]]
        table = self.summary.get("table1") or {}
        mismatched = [f"{key}: {table['reasons'][key]}" for key in table.get("mismatched") or ()]
        if mismatched and not lines:
            return "\n".join(mismatched)
        lines += mismatched
        if not lines:
            return None
        if self.failures and all(name in self.failures for name, info in self.summary["runs"].items() if info["problem"]):
            # Every run with a problem was stopped by an error: the same command meets it again.
            return "\n".join(lines + [f"Fix what is named above, then run the same command again: {self.suite_dir}"])
        return "\n".join(lines + [f"Run the same command again to finish them: {self.suite_dir}"])

    def __repr__(self) -> str:
        """``SuiteResult(suites/x: overall 20.8%, bundled sample: ...; complete)``"""
        from mmmu_eval.results.notebook_view import suite_repr

        return suite_repr(str(self.suite_dir), self.summary)

    def _repr_html_(self) -> str:
        """The suite in a notebook: its Table 1 row, its scope and each run's state."""
        from mmmu_eval.results.notebook_view import suite_html

        return suite_html(str(self.suite_dir), self.summary, self.exit_status)


class SuiteInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped ``evaluate_suite``; every answer so far is stored in its run directories."""

    def __init__(self, suite_dir: Path) -> None:
        self.suite_dir = suite_dir
        super().__init__(f"interrupted: the answers so far are stored under {suite_dir}; "
                         "run the same command again to finish the suite")


def evaluate_suite(
    config: SuiteConfig | None = None,
    /,
    *,
    display: SuiteDisplay | None = None,
    bootstrap: int = RESAMPLES,
    bootstrap_seed: int = 0,
    log_to: LogToArg = None,
    **overrides: Unpack[SuiteConfigArgs],
) -> SuiteResult:
    """Run the MMMU-Pro study for one model; the synchronous face of ``evaluate_suite_async``.

    Args:
        config: a SuiteConfig; None builds one from ``overrides``.
        display: the progress view (a SuiteDisplay; default bars on stderr).
        bootstrap: bootstrap resamples of the study's intervals.
        bootstrap_seed: the seed of those resamples.
        log_to: ``"mlflow"``, ``"wandb"``, a list of them, or a ``tracking.LogTo``: once suite.json
            is written, log the suite there as one logged run (Table 1 and the effects, each run's
            figures under its name, suite.json and every report as files); a failure only warns.
        **overrides: SuiteConfig fields (``settings``, ``prompts``, ``ocr``, ``mmmu``,
            ``mmmu_data``, ``mmmu_revision``, ``out``) and RunConfig fields every run shares
            (``model``, which may be a model object, ``data``, ``base_urls``, ``concurrency``,
            ``max_tokens``, ``limit`` ...); ``SuiteConfigArgs`` types each one, and any other
            name is refused (ConfigError).

    Returns:
        The SuiteResult; ``exit_status`` is 1 while some run failed or lacks answers.

    Raises:
        ConfigError: a wrong setup, found before the first request (or every run failed on it).
        StoreError: a run directory holds a run under another protocol (named).
        SuiteInterrupted: Ctrl-C; what was answered is stored, and the same call resumes.

    Examples:
        >>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
        >>> sorted(suite.summary["runs"])          # one ordinary run directory each, under out
        ['mmmu-validation-direct', 'standard-10-direct', 'standard-4-direct', 'vision-direct']
    """
    suite_dir = Path(str(overrides.get("out") or (config.out if config else "suites")))
    try:
        return run_coroutine(evaluate_suite_async(
            config, display=display, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed, log_to=log_to, **overrides))
    except KeyboardInterrupt as exc:
        if isinstance(exc, SuiteInterrupted):
            raise
        raise SuiteInterrupted(suite_dir) from None


async def evaluate_suite_async(
    config: SuiteConfig | None = None,
    /,
    *,
    display: SuiteDisplay | None = None,
    bootstrap: int = RESAMPLES,
    bootstrap_seed: int = 0,
    log_to: LogToArg = None,
    **overrides: Unpack[SuiteConfigArgs],
) -> SuiteResult:
    """Run the MMMU-Pro study; see ``evaluate_suite`` for the arguments."""
    logging_to = as_log_to(log_to)  # an unknown sink or a missing SDK, before anything runs
    display = display or SuiteDisplay()
    resamples, seed = int(bootstrap), int(bootstrap_seed)
    config, model = resolve_suite_config(config, overrides, named=("display", "bootstrap", "bootstrap_seed", "log_to"))
    with ExitStack() as held:
        try:  # one writer per suite directory, from before the first request (writer_lock.py)
            held.enter_context(hold_directory(config.out, "suite"))
        except BaseException:
            if not isinstance(model, str):
                await model.aclose()
            raise
        result = await _suite_held(config, model, display, resamples, seed)
    log_suite(logging_to, result.suite_dir, result.summary)  # from the written files; a failure warns
    return result


async def _suite_held(config: SuiteConfig, model: Any, display: SuiteDisplay, resamples: int, seed: int) -> SuiteResult:
    """``evaluate_suite_async`` once it holds the suite directory."""
    runs = config.runs()
    finished = finished_suite(config, runs, resamples=resamples, seed=seed)
    if finished is not None:  # every run complete and the study written after them: nothing to do
        log.info("%s: finished already (%d runs); nothing to ask", config.out, len(runs))
        if not isinstance(model, str):
            await model.aclose()
        return finished
    check_suite_data(config, runs)  # a bad --data or --mmmu-data, named once, before any request
    before = suite_file_before(config.out)
    open_suite(config, runs)  # refuses a changed protocol in any run before a model loads
    sharing = backend_sharing(model)
    shared = None if sharing == "per-run" else make_backend(model, backend_settings(config.run))
    log.info("%s: %d runs of %s (%s)", config.out, len(runs), config.run.model, sharing)
    results: dict[str, RunResult] = {}
    failures: dict[str, MmmuEvalError] = {}

    async def one(run: SuiteRun) -> None:
        try:
            results[run.name] = await evaluate_async(
                run.config, model=shared if shared is not None else run.config.model,
                display=display.run(run.name), keep_backend=shared is not None,
            )
        except MmmuEvalError as exc:
            failures[run.name] = exc  # said once per cause, after the runs (_log_failures)

    display.open([run.name for run in runs])
    try:
        if sharing == "sequential":
            for run in runs:
                await one(run)
        else:
            await run_together([one(run) for run in runs])
    except BaseException:
        settle_suite_file(config.out, before, status="interrupted")
        raise
    finally:
        display.close()
        if shared is not None:
            await shared.aclose()
    if failures and not results and all(isinstance(e, ConfigError) for e in failures.values()) \
            and len({str(e) for e in failures.values()}) == 1:
        # A setup problem every run met (an unreachable server, a refused key): said once, in
        # one line, and the suite directory is left as it was before this call.
        settle_suite_file(config.out, before, status=None)
        raise next(iter(failures.values()))
    log_failures(failures)
    summary = summarize(config.out, runs, model=config.run.model, config=config.to_json(),
                        failures={k: str(v) for k, v in failures.items()}, resamples=resamples, seed=seed,
                        html=config.run.html)
    return SuiteResult(config.out, summary, results, {k: str(v) for k, v in failures.items()})


# -- the suite directory ----------------------------------------------------------------------

def finished_suite(config: SuiteConfig, runs: list[SuiteRun], *, resamples: int, seed: int) -> SuiteResult | None:
    """The stored result of a suite that is finished exactly as ``config`` asks; None otherwise.

    Finished: suite.json says ``complete`` under the same configuration, package version and
    intervals, every run is finished as ``finished.finished_result`` tells it, and suite.json
    (and report.html, when asked for) were written after every run's results. Then the study
    would come out the same, so it is not built again (seconds for a full suite).
    """
    try:
        old = read_summary(config.out)
    except StoreError:
        return None
    if not old or old.get("status") != "complete" or old.get("config") != config.to_json():
        return None
    interval = old.get("interval") or {}
    if old.get("package_version") != __version__ or \
            (interval.get("resamples"), interval.get("seed")) != (max(resamples, 0), seed):
        return None
    if [r.to_json() for r in runs] != old.get("planned"):
        return None
    results: dict[str, RunResult] = {}
    for run in runs:
        done = finished_result(dataclasses.replace(run.config, resume=True))
        if done is None:
            return None
        results[run.name] = done
    written = [config.out / SUITE_FILE] + ([config.out / "report.html"] if config.run.html else [])
    newest_run = max((r.run_dir / "results.json").stat().st_mtime_ns for r in results.values())
    if any(not f.is_file() or f.stat().st_mtime_ns < newest_run for f in written):
        return None
    return SuiteResult(config.out, old, results, {})


def open_suite(config: SuiteConfig, runs: list[SuiteRun]) -> None:
    """Check every run directory as ``run`` would, then create the suite and its suite.json.

    A run directory that holds a run of another protocol, model or benchmark is refused here,
    naming it, before any backend is made (the data revision is checked when the run starts).

    Raises:
        StoreError: a refused run directory, or a suite path that is not a suite.
    """
    out = config.out
    if out.exists() and not out.is_dir():
        raise StoreError("is a file, not a suite directory; choose another --out", out)
    if (out / MANIFEST).exists():
        raise StoreError("is a run directory, not a suite; choose another --out", out)
    if not (out / SUITE_FILE).exists() and holds_more_than_ranks(out):  # a distributed suite's ranks: suite/suite_ranks.py
        raise StoreError(f"is a non-empty directory without a {SUITE_FILE}; choose a new --out", out)
    for run in runs:
        partial = build_manifest(config=run.config.to_manifest(), protocol=EvalProtocol.from_config(run.config).describe())
        check_run_dir(run.config, partial)  # as `run` refuses it, with the hint for a run of the old image rule
    try:
        out.mkdir(parents=True, exist_ok=True)
        remove_leftovers(out)  # of a suite killed while writing its first suite.json
    except OSError as exc:
        raise StoreError(f"cannot be created ({exc.strerror or exc}); choose a writable --out", out) from exc
    old = read_summary(out) or {}
    document = {
        **_header(config.run.model, config.to_json(), runs, started_at=old.get("started_at")),
        **{k: old[k] for k in ("runs", "table1", "cot_effect", "ocr_effect", "flips", "interval") if k in old},
        "status": "running",
    }
    RunStore(out, writable=True).write_json(SUITE_FILE, document)


def summarize(
    suite_dir: Path,
    runs: list[SuiteRun],
    *,
    model: str,
    config: Mapping[str, Any],
    failures: Mapping[str, str] | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    html: bool = True,
) -> dict[str, Any]:
    """Read the suite's run directories, build the study, write suite.json and report.html."""
    from mmmu_eval.suite.suite_page import render_suite_html

    records = suite_records(suite_dir, runs, failures=failures, model=model)
    old = read_summary(suite_dir) or {}
    study = build_study(records, model=model, resamples=resamples, seed=seed)
    prices = config.get("run") or {}
    document = {
        **_header(model, config, runs, started_at=old.get("started_at")),
        # Runs over different items (--limit changed between calls) leave cells refused: not whole.
        "status": "complete" if records and all(r.usable for r in records) and not study["table1"]["mismatched"]
        else "incomplete",
        "runs": runs_summary(records),
        **study,
        "usage": usage_summary([r for record in records for r in record_responses(record)],
                               price_input=prices.get("price_input"), price_output=prices.get("price_output"),
                               preflight=[(record.manifest or {}).get("preflight") for record in records]),
    }
    store = RunStore(suite_dir, writable=True)
    store.write_json(SUITE_FILE, document)
    if html:
        store.write_text("report.html", render_suite_html(document, records))
    return document


def summarize_suite(suite_dir: str | Path, *, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """Rebuild suite.json and report.html of an existing suite from its run directories.

    For after a run of it was re-scored (``mmmu-eval score``) or merged; asks no model.

    Raises:
        StoreError: ``suite_dir`` has no readable suite.json.
    """
    suite_dir = Path(suite_dir)
    old = read_summary(suite_dir)
    if old is None:
        raise StoreError(f"is not a suite directory (no {SUITE_FILE})", suite_dir)
    runs = [SuiteRun.planned(entry, old["model"], suite_dir) for entry in old.get("planned", [])]
    return summarize(suite_dir, runs, model=old["model"], config=old.get("config", {}), resamples=resamples, seed=seed)


def read_summary(suite_dir: Path) -> dict[str, Any] | None:
    """suite.json of a suite directory; None when there is none.

    Raises:
        StoreError: it exists but cannot be read, or is of another schema version.
    """
    return read_versioned(
        Path(suite_dir) / SUITE_FILE, SCHEMA_VERSION, required=("model",),
        unreadable="cannot be read ({error}); delete it and run the suite command again",
        other_version=f"is not a suite.json of schema version {SCHEMA_VERSION}; delete it and run the suite "
                      "command again (the run directories are kept)",
    )


def _header(model: str, config: Mapping[str, Any], runs: list[SuiteRun], *, started_at: str | None) -> dict[str, Any]:
    now = utc_now()
    return {
        "schema_version": SCHEMA_VERSION,
        "model": model,
        "package_version": __version__,
        "started_at": started_at or now,
        "updated_at": now,
        "config": dict(config),
        "planned": [run.to_json() for run in runs],
    }
