"""``score_run``: a finished run's figures under the scoring asked for, as a view or saved.

``mmmu-eval score RUN_DIR`` is this call and a printout. By default it is a view: the run's
stored responses are scored again (other parsers, another fallback, an official answer dict)
and nothing is written, so the figures a run is remembered by (results.json, the manifest's
scoring record, the report, ``compare``) stay as they were. ``save=True`` makes the scoring the
run's own through ``run.outputs`` (the one writer of a run's files) and keeps what it replaced,
holding the run directory's lock while it writes; a run another process is writing is refused,
naming that process (its manifest and results would race the run's own).

Named ``score_run`` (the name it had when ``mmmu_eval.scoring`` was the scoring package, now ``scoring``).

>>> from mmmu_eval import evaluate
>>> run = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/scored")
>>> view = score_run(run.run_dir, parsers=["official", "strict"])
>>> view.spec.parsers, view.saved, view.scoring.parsers == ("official", "strict")
(('official', 'strict'), False, True)
>>> score_run(run.run_dir, fallback="none", save=True).saved_scoring.recorded
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.core.records import Item, Response
from mmmu_eval.results.results_json import Results
from mmmu_eval.run.outputs import SavedScoring, save_scoring
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.scoring.spec import ScoringSpec
from mmmu_eval.store.rundir import MANIFEST, RunStore
from mmmu_eval.core.writer_lock import hold_directory, refuse_while_written

__all__ = ["RunScore", "score_run"]


@dataclass(frozen=True)
class RunScore:
    """A run scored again: the scoring applied, its figures, and what was saved."""

    run_dir: Path
    """The run directory."""
    spec: ScoringSpec
    """The scoring applied: parsers in order (the first gives the headline), fallback, seed, answers."""
    recorded: ScoringSpec
    """The run's own scoring before this call (manifest.json's record)."""
    scoring: Scoring
    """Every parser's verdicts and tallies, the fallback figures, disagreements."""
    results: Results
    """The results.json this scoring gives (written only with ``save``)."""
    items: tuple[Item, ...]
    """The run's items, with the gold answers scored against."""
    responses: dict[str, Response]
    """The stored responses, by item id."""
    replaced: Results | None = None
    """With ``save``: the results.json that was replaced; None when there was none."""
    saved_scoring: SavedScoring | None = None
    """With ``save``: whether the manifest's record changed, and the files rewritten; else None."""

    @property
    def saved(self) -> bool:
        """True when this scoring was made the run's own."""
        return self.saved_scoring is not None

    @property
    def accuracy(self) -> float | None:
        """The headline parser's accuracy over the graded items; None when none is graded (no gold answers, or every request failed)."""
        overall = self.scoring.aggregates[self.scoring.parsers[0]].overall
        return overall.accuracy if overall.n else None

    def __repr__(self) -> str:
        return (f"RunScore({str(self.run_dir)!r}, {self.spec.describe()!r}, accuracy={self.accuracy!r}, "
                f"saved={self.saved})")


def score_run(
    run_dir: str | Path,
    *,
    parsers: Sequence[str] | None = None,
    fallback: str | None = None,
    seed: int | None = None,
    answers: str | Path | None = None,
    bootstrap: int = 1000,
    save: bool = False,
) -> RunScore:
    """Score a run directory's stored responses again; with ``save``, make that its scoring.

    Args:
        run_dir: the run directory.
        parsers: parser names in order, the first the headline; None: the run's own.
        fallback: ``official`` (seeded random letter for an unparseable answer) or ``none``
            (wrong); None: the run's own.
        seed: seed of the random fallback; None: the run's own.
        answers: an official answer dict (answer_dict_test.json) to score a test run against.
        bootstrap: resamples of the 95% intervals in ``results``.
        save: record this scoring in manifest.json and rewrite predictions.jsonl and
            results.json (report and compare then follow it); False writes nothing.

    Returns:
        The scoring, its results.json as it would be, and with ``save`` what was replaced.

    Raises:
        StoreError: not a readable run directory; with ``save``, another process is writing it
            (named), and nothing was written.
        ConfigError: an unknown parser or fallback, or an unreadable answer dict.
        DataError: the run's items cannot be loaded again.

    ::

        view = mmmu_eval.score_run("runs/pro-vision-cot", parsers=["official", "boxed", "strict"])
        print(view.spec.describe(), view.accuracy, len(view.scoring.disagreements))
    """
    # The run directory and the dataset are read as the report reads them back.
    from mmmu_eval.results.finished_run import read_run, run_items
    from mmmu_eval.results.harness import harness_section
    from mmmu_eval.results.results_json import build_results, read_results
    from mmmu_eval.scoring.spec import MANIFEST_KEY

    if save:  # before the work: a run being written is refused at once
        refuse_while_written(run_dir, "its scoring cannot be saved while it is (score without --save writes nothing)")
    run = read_run(run_dir, rebuild=False)
    manifest = run.manifest
    recorded = ScoringSpec.from_manifest(manifest)
    spec = recorded.replace(parsers=parsers, fallback=fallback, fallback_seed=seed,
                            answers=answers)
    responses = run.read_responses()
    items = spec.gold_items(run_items(manifest, responses, manifest_path=run.path / MANIFEST))
    scoring = spec.score(items, responses)
    harness = harness_section(run.path, manifest, items, scoring, responses)  # rescored runs only
    # The figures as they would be were this the run's scoring (results.json's parse block names it).
    scored_as: Mapping[str, Any] = {**dict(manifest), MANIFEST_KEY: spec.to_manifest()}
    results = build_results(scoring, items, scored_as, bootstrap=bootstrap, responses=responses, harness=harness)
    view = RunScore(run.path, spec, recorded, scoring, results, tuple(items), dict(responses))
    if not save:
        return view
    # The run was read, not opened for writing; derived files go through a writable store on the
    # same directory (write_* never touches responses.jsonl), as the report does, under its lock.
    with hold_directory(run.path, "score --save"):
        replaced = read_results(run.path)
        saved = save_scoring(RunStore(run.path, writable=True), spec, scoring, responses, results)
    return RunScore(view.run_dir, spec, recorded, scoring, results, view.items, view.responses, replaced, saved)
