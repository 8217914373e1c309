"""``merge``: the run directories of ``--shard K/N`` runs joined into one run, then scored.

``mmmu-eval merge`` is this call and a printout. The join refuses runs that are not the
complete, disjoint shards of one evaluation (``run/merge_shards.py``); the merged run is then scored
as ``score_run(..., save=True)`` scores it, so its results.json, predictions.jsonl and the
manifest's scoring record come from the one writer (``run/outputs.py``).

>>> from mmmu_eval import evaluate
>>> for k in (1, 2):
...     _ = evaluate(model="random", benchmark="mmmu", split="dev", data="sample", shard=(k, 2), out=f"runs/s{k}")
>>> merged = merge(["runs/s1", "runs/s2"], "runs/merged")
>>> merged.shards, merged.complete, merged.score.saved
(2, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mmmu_eval.run.merge_shards import merge_runs
from mmmu_eval.commands.score import RunScore, score_run
from mmmu_eval.results.finished_run import read_run

__all__ = ["MergedRun", "merge"]


@dataclass(frozen=True)
class MergedRun:
    """The merged run directory and what the join found."""

    run_dir: Path
    """The merged run directory."""
    shards: int
    """How many shard directories were joined."""
    warnings: tuple[str, ...]
    """Differences between the shards that did not stop the join (dataset revision...)."""
    failed: tuple[str, ...]
    """Items whose stored response is an error: not scored; rerun their shard, then merge again."""
    score: RunScore | None = None
    """The merged run's scoring, saved as its own; None with ``score=False``."""

    @property
    def complete(self) -> bool:
        """True when no item failed (a merged run with failed items is not finished)."""
        return not self.failed


def merge(shards: Sequence[str | Path], out: str | Path, *, score: bool = True) -> MergedRun:
    """Join the shards' run directories into ``out``, in dataset order, and score it.

    Args:
        shards: the shards' run directories, in any order.
        out: the merged run directory: new, or empty.
        score: score the merged run and save that as its scoring (results.json,
            predictions.jsonl); False only joins the responses (``score_run(out, save=True)`` later).

    Returns:
        The merged run, the join's warnings, the failed items and, with ``score``, the scoring.

    Raises:
        StoreError: the runs are not the complete, disjoint shards of one evaluation, or ``out``
            holds something already.

    ::

        merged = mmmu_eval.merge(["runs/m-1", "runs/m-2"], "runs/m")
        print(merged.score.accuracy, merged.failed)
    """
    run_dir = merge_runs(shards, out)
    joined = read_run(run_dir, rebuild=False)
    warnings = tuple(str(w) for w in joined.manifest.get("merge_warnings", []))
    failed = tuple(item_id for item_id, r in joined.read_responses().items() if r.status == "error")
    scored = score_run(run_dir, save=True) if score else None
    return MergedRun(Path(run_dir), len(shards), warnings, failed, scored)
