"""``mmmu-eval audit``: the benchmark's own errors, found from many runs (docs/audit.md).

    sources (runs, suites, harness files -> answers by option text; build data -> original options)
        -> suspects (agreement on one wrong option, against chance)
        -> forms (is the consensus an original option or an added one: gold or augmentation suspects)
        -> added (augmentation failures)
        -> structural (problems on the item's face)  -> stats (difficulty, discrimination, 2PL)
        -> revisions (data that differs between runs)  -> JSON, terminal, page

A user of runs like ``suite`` and ``rescore``: it reads runs through ``results.finished_run`` and
other harnesses' files through ``rescore``, and never changes a run or an official figure. A
suspect is evidence for a person to check, never a verdict.

Over runs of several models (a sketch: the paths are the reader's)::

    result = audit(["runs/gpt4o-pro10", "runs/qwen-pro10", "lmms_eval_samples.jsonl"])
    result.suspects[0].id, result.to_json()["suspects"][0]["score"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmmu_eval.auditing.added import AddedOption, added_option_failures
from mmmu_eval.auditing.revisions import revision_report
from mmmu_eval.auditing.forms import KINDS, classify, original_forms
from mmmu_eval.auditing.sources import RunAnswers, read_inputs
from mmmu_eval.auditing.item_stats import ItemStats, item_stats
from mmmu_eval.auditing.strength import stronger_runs
from mmmu_eval.auditing.structural import Problem, find_problems
from mmmu_eval.auditing.suspects import Agreement, Suspect, find_suspects
from mmmu_eval.core.errors import ConfigError

__all__ = ["Audit", "audit", "audit_runs"]

#: The JSON document's version (docs/audit.md).
SCHEMA = 1


@dataclass(frozen=True)
class Audit:
    """Everything the audit found; ``to_json`` is the ``--json`` document."""

    runs: tuple[RunAnswers, ...]
    """Every run and harness file read, in the order given."""
    strong: dict[str, bool]
    """Run name -> whether it is one of the stronger runs (all but the weakest models')."""
    suspects: tuple[Suspect, ...]
    """Items on whose one wrong option the runs agree, flagged ones first, then by score."""
    agreement: tuple[Agreement, ...]
    """Flagged groups against chance, per option set (setting family)."""
    added: tuple[AddedOption, ...]
    """Options the ten-option augmentation added that draw the runs where four options are answered right."""
    structural: tuple[Problem, ...]
    """Problems items show on their face, whatever the runs answered."""
    stats: ItemStats
    """Difficulty, discrimination and the 2PL fit of every item, over all runs."""
    revisions: dict
    """``read`` (run -> the data revision it read) and ``differences`` (items whose text, options
    or gold differ between runs; docs/audit.md)."""
    build_files: tuple[str, ...] = ()
    """Build data read for the four-option forms (``mix_data.jsonl``): no runs."""

    @property
    def flagged(self) -> tuple[str, ...]:
        """The ids of the flagged suspects (what ``report --exclude-suspects`` sets aside)."""
        return tuple(s.id for s in self.suspects if s.flagged)

    def suspects_of(self, kind: str) -> tuple[Suspect, ...]:
        """One list, ranked as ``suspects``: ``gold`` (the runs contradict the gold), ``augmentation``
        (an option the ten-option augmentation added draws them: the fix is to that option) or
        ``unknown`` (no four-option form read); ``forms.py``."""
        return tuple(s for s in self.suspects if s.kind == kind)

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA,
            "runs": [{
                "name": r.name, "path": r.path, "model": r.model, "setting": r.setting, "prompt": r.prompt,
                "revision": r.revision, "read_as": r.kind, "items": len(r.answers), "accuracy": r.accuracy,
                "stronger": self.strong[r.name],
            } for r in self.runs],
            "agreement": [a.to_json() for a in self.agreement],
            "suspects": [s.to_json() for s in self.suspects],
            "suspect_lists": {kind: [s.id for s in self.suspects_of(kind)] for kind in KINDS},
            "build_data": list(self.build_files),
            "added_options": [a.to_json() for a in self.added],
            "structural": [p.to_json() for p in self.structural],
            "items": self.stats.to_json(),
            "revisions": self.revisions,
        }


def audit(paths: Sequence[str | Path], *, data: str | Path = "hub", format: str = "auto",
          min_models: int = 3, weakest: float = 0.25, irt: bool = True) -> Audit:
    """Audit the benchmark from the runs and files in ``paths`` (see the module and docs/audit.md).

    Args:
        paths: run directories, suite directories and other harnesses' files, in any mix.
        data: the dataset other harnesses' rows are joined to (as for ``rescore``).
        format: the harness files' format (``auto`` recognises each).
        min_models: the fewest models whose stronger runs must agree for an item to be flagged.
        weakest: the share of models, weakest first, whose runs are not counted as stronger.
        irt: fit the 2PL model when there are enough runs.

    Raises:
        ConfigError: no path, or a path nothing recognises.
        DataError / StoreError: an input that cannot be read (the message names it).
    """
    if not paths:
        raise ConfigError("audit needs at least one run directory, suite or harness file")
    inputs = read_inputs(paths, data=data, format=format)
    return audit_runs(inputs.runs, min_models=min_models, weakest=weakest, irt=irt, build=inputs.build,
                      build_files=inputs.build_files)


def audit_runs(runs: Sequence[RunAnswers], *, min_models: int = 3, weakest: float = 0.25, irt: bool = True,
               build: Mapping[str, tuple[str, ...]] | None = None, build_files: Sequence[str] = ()) -> Audit:
    """The audit of runs already read (``read_inputs``); ``build``: item id -> original options from
    build data, beside what the runs hold (``forms.py``)."""
    if not runs:
        raise ConfigError("audit: the paths hold no run" + (f" (only build data: {', '.join(build_files)})"
                                                            if build_files else ""))
    if not 0 <= weakest < 1:
        raise ConfigError(f"--weakest {weakest} must be at least 0 and below 1")
    strong = stronger_runs(runs, weakest=weakest)
    suspects, agreement = find_suspects(runs, strong, min_models=min_models)
    forms = original_forms(runs, build)
    return Audit(
        runs=tuple(runs), strong=strong, suspects=tuple(classify(suspects, runs, forms)), agreement=tuple(agreement),
        added=tuple(added_option_failures(runs)), structural=tuple(find_problems(runs, forms)),
        stats=item_stats(runs, irt=irt), revisions=revision_report(runs), build_files=tuple(build_files),
    )
