"""``compare``: two finished runs compared item by item, the call behind ``mmmu-eval compare``.

It reads each run back (``results.finished_run``) and hands both results to ``compare_runs``
(``results/comparison.py``), which holds the statistics and the refusals.
"""

from __future__ import annotations

from pathlib import Path

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.results.comparison import Comparison, compare_runs
from mmmu_eval.results.finished_run import FinishedRun
from mmmu_eval.stats.intervals import RESAMPLES

__all__ = ["compare"]


def compare(
    run_a: str | Path | FinishedRun,
    run_b: str | Path | FinishedRun,
    *,
    labels: tuple[str, str] | None = None,
    allow_different_protocols: bool = False,
    allow_different_scoring: bool = False,
    bootstrap: int = RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare two run directories item by item on the items both scored (``mmmu-eval compare``).

    Args:
        run_a: a run directory, or a run ``read_run`` read already (a baseline compared with
            many is read once); results.json is rebuilt, not saved, where it is missing.
        run_b: the run compared with it, the same way.
        labels: the names printed for the runs; None: their paths as given.
        allow_different_protocols: compare runs of different protocols (``compare_runs``).
        allow_different_scoring: compare runs scored differently (``compare_runs``).
        bootstrap: paired bootstrap resamples (also used to rebuild results).
        seed: the bootstrap's seed.

    Returns:
        The difference (A minus B), its paired 95% interval, exact McNemar, flips, warnings.

    Raises:
        StoreError: a path is not a readable run.
        ConfigError: the runs measure different things and that was not allowed, they share no
            scored item, or ``bootstrap`` is below 0.

    ::

        c = mmmu_eval.compare("runs/gpt4o-direct", "runs/gpt4o-cot", allow_different_protocols=True)
        print(c.difference, c.ci95, c.p_value, len(c.flips))
    """
    from mmmu_eval.results.finished_run import read_run

    if bootstrap < 0:
        raise ConfigError("--bootstrap must be 0 or more")
    runs = [r if isinstance(r, FinishedRun) else read_run(r, bootstrap=bootstrap, seed=seed) for r in (run_a, run_b)]
    label_a, label_b = labels or tuple(str(r.path if isinstance(r, FinishedRun) else r) for r in (run_a, run_b))
    return compare_runs(runs[0].results, runs[1].results, label_a=label_a, label_b=label_b,
                        allow_different_protocols=allow_different_protocols,
                        allow_different_scoring=allow_different_scoring, resamples=bootstrap, seed=seed)
