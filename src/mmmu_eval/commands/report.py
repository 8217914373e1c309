"""``report``: a finished run read back, and its report files written through ``run.outputs``.

``mmmu-eval report DIR ...`` is ``report_dirs``: this call per run (a suite's summary rebuilt
for a suite directory, the MMMU-Pro headline over several runs, the figure with an audit's
suspects set aside) and the tables printed from what it returns. The
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

``mmmu_eval.report`` (``report_run`` while ``mmmu_eval.report`` was the rendering package).

>>> from mmmu_eval import evaluate
>>> run = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/reported")
>>> page = report(run.run_dir, html=True, images=False)
>>> page.html.name, page.submission, page.run.results["overall"]["n"]
('report.html', None, 40)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.auditing.exclude import Excluded, excluding, read_set_aside
from mmmu_eval.core.errors import ConfigError, argument
from mmmu_eval.core.manifest import MANIFEST
from mmmu_eval.core.renamed import renamed_keywords
from mmmu_eval.results.finished_run import FinishedRun, read_run
from mmmu_eval.run.outputs import save_results, write_report_page, write_submission
from mmmu_eval.scoring.answers import Answer
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.core.writer_lock import hold_directory, writer_of

__all__ = ["Reports", "RunReport", "SuiteReport", "report", "report_dirs"]


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


@renamed_keywords(seed="bootstrap_seed")
def report(
    run_dir: str | Path,
    *,
    html: bool = False,
    images: bool = True,
    image_budget_mb: int = 64,
    submission: bool = False,
    answers: str | Path | Mapping[str, Answer] | None = None,
    bootstrap: int = 1000,
    bootstrap_seed: int = 0,
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
        bootstrap_seed: the bootstrap's seed when the results are rebuilt.
        published: with ``html``, what the page's doctor section sets the run against: a
            published accuracy as a fraction (``0.586``) or a percent string (``"58.6%"``), or a
            model name; None: the row of exactly the run's model name, if any.

    Returns:
        The run read back and the paths written; when another process is writing the run, its
        figures as they stand, ``writer`` naming that process, and nothing written.

    Raises:
        StoreError: not a readable run directory, or it cannot be written.
        ConfigError: a negative image budget, an unreadable answer dict, a ``published`` number
            above 1, or a ``published`` name matching no published model (report.html is then
            left as it was).

    ::

        page = mmmu_eval.report("runs/test-gpt4o", submission=True)
        print(page.submission, page.submitted, page.left_out)
    """
    from mmmu_eval.doctor.examine import published_percent

    if image_budget_mb < 0:
        raise ConfigError(f"{argument('image_budget_mb')} must be 0 or more")
    published = published_percent(published)
    writer = writer_of(run_dir)
    one = read_run(run_dir, details=html or submission, answers=answers, bootstrap=bootstrap,
                   bootstrap_seed=bootstrap_seed)
    if writer is not None:  # printing is fine; writing would race the run's own outputs
        return RunReport(one, writer=writer)
    with hold_directory(one.path, "report") if one.rebuilt or html or submission else nullcontext():
        return _write(one, html=html, images=images, image_budget_mb=image_budget_mb, submission=submission,
                      answers=answers, published=published)


def _write(one: FinishedRun, *, html: bool, images: bool, image_budget_mb: int, submission: bool,
           answers: object, published: str | float | None) -> RunReport:
    """``report``'s files, written while it holds the run directory."""
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


@dataclass(frozen=True)
class SuiteReport:
    """A suite directory reported: its suite.json and report.html rebuilt from its runs."""

    path: Path
    """The suite directory."""
    summary: dict[str, Any]
    """suite.json as rebuilt (docs/suite-schema.md)."""


@dataclass(frozen=True)
class Reports:
    """What ``mmmu-eval report DIR ...`` reports, for the terminal or as JSON."""

    runs: tuple[RunReport, ...]
    """Each run directory's report, in the order given."""
    suites: tuple[SuiteReport, ...] = ()
    """Each suite directory's rebuilt summary, in the order given."""
    excluding_suspects: dict[str, Excluded | None] | None = None
    """With ``exclude_suspects``: each run's figure with the suspects set aside, by its path
    (None for a run without gold answers: nothing to set aside); None when not asked."""
    pro_headline: dict[str, Any] | None = None
    """The MMMU-Pro headline over the MMMU-Pro runs given (``scoring.headline.pro_headline``);
    None with fewer than two of them."""
    notes: tuple[str, ...] = ()
    """Runs the headline left out, and why (another prompt mode; no score; a second run of one setting)."""

    def to_json(self) -> list[dict[str, Any]]:
        """The JSON documents ``report --json`` prints, one after another: each suite's summary,
        then the runs: one run's results.json as it is, or ``{"runs": {path: results}}`` with
        ``excluding_suspects`` and ``mmmu_pro_headline`` beside it when there are any."""
        documents = [s.summary for s in self.suites]
        if not self.runs:
            return documents
        if len(self.runs) == 1 and self.excluding_suspects is None:
            return [*documents, dict(self.runs[0].results)]
        doc: dict[str, Any] = {"runs": {str(r.run.path): r.results for r in self.runs}}
        if self.excluding_suspects is not None:  # the official results as they are, the audited figure beside them
            doc["excluding_suspects"] = {path: None if figure is None else figure.to_json()
                                         for path, figure in self.excluding_suspects.items()}
        if self.pro_headline is not None:
            doc["mmmu_pro_headline"] = self.pro_headline
        return [*documents, doc]


def report_dirs(
    paths: Sequence[str | Path],
    *,
    html: bool = False,
    images: bool = True,
    image_budget_mb: int = 64,
    submission: bool = False,
    answers: str | Path | None = None,
    bootstrap: int = 1000,
    bootstrap_seed: int = 0,
    published: str | float | None = None,
    exclude_suspects: str | Path | None = None,
) -> Reports:
    """Report several run or suite directories at once, as ``mmmu-eval report DIR ...`` does.

    A suite directory (suite.json, no manifest.json) has its suite.json and report.html rebuilt
    from its runs; each run directory is ``report``-ed with the arguments above, every one
    checked readable before the first is written. Given several MMMU-Pro runs, their headline
    is computed too.

    Args:
        paths: run and suite directories.
        exclude_suspects: an audit's ``--json`` file (its flagged suspects) or a list of item ids:
            each run's figure with those items set aside, beside its official figure.
        The others: as ``report`` (``bootstrap`` and ``bootstrap_seed`` also rebuild a suite's intervals).

    Raises:
        StoreError, ConfigError: as ``report``; an unreadable ``exclude_suspects`` file.
    """
    from mmmu_eval.suite.execute import SUITE_FILE, summarize_suite

    if image_budget_mb < 0:
        raise ConfigError(f"{argument('image_budget_mb')} must be 0 or more")
    paths = [Path(p) for p in paths]
    is_suite = {p: (p / SUITE_FILE).is_file() and not (p / MANIFEST).exists() for p in paths}
    suites = tuple(SuiteReport(p, summarize_suite(p, resamples=bootstrap, bootstrap_seed=bootstrap_seed))
                   for p in paths if is_suite[p])
    run_dirs = [p for p in paths if not is_suite[p]]
    for path in run_dirs:  # every directory checked before the first report is written
        read_run(path, rebuild=False)
    if answers is not None:
        from mmmu_eval.scoring.answers import load_answer_dict

        answers = load_answer_dict(answers)  # read once for every run
    aside = read_set_aside(exclude_suspects) if exclude_suspects is not None else None
    runs = tuple(report(path, html=html, images=images, image_budget_mb=image_budget_mb, submission=submission,
                        answers=answers, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed, published=published)
                 for path in run_dirs)
    audited = None if aside is None else {str(r.run.path): excluding(r.results, aside) for r in runs}
    headline, notes = _pro_headline(runs)
    return Reports(runs, suites, audited, headline, notes)


def _pro_headline(reports: Sequence[RunReport]) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The MMMU-Pro headline over several MMMU-Pro runs (direct/cot only), or None; and the runs
    it left out, said."""
    from mmmu_eval.results.caveats import NO_SCORE, void, void_reason
    from mmmu_eval.scoring.headline import pro_headline

    pro = [r for r in reports if r.results["benchmark"] == "mmmu-pro"]
    if len(pro) < 2:
        return None, ()
    notes: list[str] = []
    by_run: dict[tuple[str, str], float] = {}
    for r in pro:
        mode = str(r.results["run"]["prompt_mode"] or "direct")
        if mode not in ("direct", "cot"):
            notes.append(f"{r.run.path}: prompt mode {mode} is not part of the MMMU-Pro headline")
            continue
        if void(r.results):
            notes.append(f"{r.run.path}: {NO_SCORE} ({void_reason(r.results)}); not part of the MMMU-Pro headline")
            continue
        key = (str(r.results["setting"]), mode)
        if key in by_run:
            notes.append(f"two runs of {key[0]} {key[1]}; using {r.run.path}")
        by_run[key] = r.results["overall"]["accuracy"]
    return (pro_headline(by_run) if by_run else None), tuple(notes)
