"""``report_run``: a finished run read back, and its report files written through ``run.outputs``.

``mmmu-eval report RUN_DIR`` is this call per run and the tables printed from its results. The
results come from results.json, or are rebuilt from the stored responses when it is missing or
was scored otherwise than the manifest records; a rebuilt results.json is saved under the one
rule of ``run.outputs`` (the recorded scoring's figures only: never those of a one-off answer
dict). ``html`` writes report.html and ``submission`` the EvalAI file of an MMMU test run, with
the same code that writes them at the end of a run.

One writer per directory, also for a reader that writes: a run being written by another process
(its lock held, ``writer_lock.writer_of``) is read and its figures returned as they stand, with
the writer named in ``RunReport.writer``, and nothing is written; otherwise the files are written
under the directory's lock, so a run started meanwhile waits its turn (is refused) instead of
racing the report.

Named ``report_run`` (the name it had when ``mmmu_eval.rendering`` was a package; no package takes ``report`` now).

>>> from mmmu_eval import evaluate
>>> run = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/reported")
>>> page = report_run(run.run_dir, html=True, images=False)
>>> page.html.name, page.submission, page.run.results["overall"]["n"]
('report.html', None, 40)
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.results.finished_run import FinishedRun, read_run
from mmmu_eval.run.outputs import save_results, write_report_page, write_submission
from mmmu_eval.scoring.answers import Answer
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.core.writer_lock import hold_directory, writer_of

__all__ = ["RunReport", "report_run"]


@dataclass(frozen=True)
class RunReport:
    """A run read back for its report, and the files written."""

    run: FinishedRun
    """The run: its manifest and results (and with ``html`` or ``submission`` its items,
    responses and scoring)."""
    saved_results: Path | None = None
    """results.json when it was rebuilt and saved now; None when it was read, or not saved."""
    html: Path | None = None
    """report.html when asked for."""
    submission: Path | None = None
    """submission.json when asked for and the run is an MMMU test run; None otherwise."""
    submitted: int = 0
    """Predictions in submission.json; the run's other items count as wrong on EvalAI."""
    writer: str | None = None
    """The process writing the run now (``process 1234 (mmmu-eval run on host, since ...)``), when
    one was: the figures are the run's as it stood, and nothing was written."""

    @property
    def results(self) -> Mapping:
        """The run's results.json (as read or rebuilt)."""
        return self.run.results

    @property
    def left_out(self) -> int:
        """Items without a prediction in submission.json (0 when none was written)."""
        if self.submission is None or self.run.items is None:
            return 0
        return len(self.run.items) - self.submitted

    def __repr__(self) -> str:
        written = [p.name for p in (self.saved_results, self.html, self.submission) if p is not None]
        return f"RunReport({str(self.run.path)!r}, written={written})"


def report_run(
    run_dir: str | Path,
    *,
    html: bool = False,
    images: bool = True,
    image_budget_mb: int = 64,
    submission: bool = False,
    answers: str | Path | Mapping[str, Answer] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    published: str | float | None = None,
) -> RunReport:
    """Read a run's results (rebuilt and saved when missing) and write its report files.

    Args:
        run_dir: the run directory.
        html: write report.html into it.
        images: with ``html``, embed the items' images.
        image_budget_mb: with ``html``, the most MiB of embedded images (wrong answers get theirs first).
        submission: write submission.json (EvalAI format) when the run is an MMMU test run.
        answers: an official answer dict (a path, or one ``load_answer_dict`` read) to score a
            test run against for this call; its figures are shown, never saved as results.json.
        bootstrap: bootstrap resamples of the intervals when the results are rebuilt.
        seed: the bootstrap's seed when the results are rebuilt.
        published: with ``html``, the published figure (percent) or model name the page's doctor
            section sets the run against; None: the row of exactly the run's model name, if any.

    Returns:
        The run read back and the paths written; when another process is writing the run, its
        figures as they stand, ``writer`` naming that process, and nothing written.

    Raises:
        StoreError: not a readable run directory, or it cannot be written.
        ConfigError: a negative image budget, an unreadable answer dict, or a ``published`` name
            matching no published model (report.html is then left as it was).

    ::

        page = mmmu_eval.report_run("runs/test-gpt4o", submission=True)
        print(page.submission, page.submitted, page.left_out)
    """
    if image_budget_mb < 0:
        raise ConfigError("--image-budget-mb must be 0 or more")
    writer = writer_of(run_dir)
    one = read_run(run_dir, details=html or submission, answers=answers, bootstrap=bootstrap, seed=seed)
    if writer is not None:  # printing is fine; writing would race the run's own outputs
        return RunReport(one, writer=writer)
    with hold_directory(one.path, "report") if one.rebuilt or html or submission else nullcontext():
        return _write(one, html=html, images=images, image_budget_mb=image_budget_mb, submission=submission,
                      answers=answers, published=published)


def _write(one: FinishedRun, *, html: bool, images: bool, image_budget_mb: int, submission: bool,
           answers: object, published: str | float | None) -> RunReport:
    """``report_run``'s files, written while it holds the run directory."""
    from mmmu_eval.scoring.spec import ScoringSpec

    # Derived files go through a store constructed writable on the same directory: RunStore.read
    # is read-only, and RunStore.open(resume=True) would count a new run session in the manifest.
    out = RunStore(one.path, writable=True)
    saved = None
    if one.rebuilt:
        saved = save_results(out, one.results, None if answers else ScoringSpec.from_manifest(one.manifest))
    page = sub = None
    submitted = 0
    if html:
        assert one.items is not None and one.responses is not None and one.scoring is not None
        page = write_report_page(out, one.results, one.items, one.responses, one.scoring, one.manifest,
                                 images=images, image_budget=image_budget_mb * 1024 * 1024, published=published)
    if submission:
        assert one.scoring is not None and one.items is not None
        written = write_submission(out, one.results, one.scoring, one.items)
        if written is not None:
            sub, submitted = written
    return RunReport(one, saved, page, sub, submitted)
