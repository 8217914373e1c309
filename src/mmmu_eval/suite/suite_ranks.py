"""``torchrun --nproc-per-node N -m mmmu_eval suite ... --out SUITE``: the study over many processes.

    every rank:  the whole suite on its shard (--shard RANK+1/WORLD_SIZE of every run)
                 -> SUITE/ranks/rank-K-of-N/  (a suite of its own, written only by that rank)
    rank 0:      each run's shards merged into SUITE/<run> as ``run`` merges them (run/launcher_ranks.py)
                 -> the study over the merged runs (suite.json, report.html), as one process writes it

A rerun of the same command resumes every rank's suite, then merges and summarizes again; a rerun
on another number of ranks reuses every answer stored so far, as ``run`` does (``run/rank_answers.py``).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any, Mapping

from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.run.distributed import DEFAULT_TIMEOUT_S, Launch
from mmmu_eval.run.launcher_ranks import finish_merged, pin_vllm_devices, rank_device, rank_dir, run_as_rank
from mmmu_eval.run.rank_answers import earlier_shards, remove_emptied
from mmmu_eval.tracking.log_to import LogToArg

__all__ = ["evaluate_suite_ranks"]

log = logging.getLogger(__name__)


def evaluate_suite_ranks(overrides: Mapping[str, Any], launch: Launch, *, bootstrap: int,
                         timeout: float = DEFAULT_TIMEOUT_S, log_to: LogToArg = None) -> Any:
    """This rank's part of a distributed suite: the SuiteResult on rank 0, None elsewhere;
    ``log_to`` as ``evaluate_suite`` takes it (rank 0 logs the merged suite).

    Raises:
        ConfigError: ``--shard``, or no ``--out`` (every rank must name the same suite).
        RankError: another rank failed or went silent; this rank's runs stay valid.
    """
    from mmmu_eval.suite.suite_config import resolve_suite_config
    from mmmu_eval.suite.execute import evaluate_suite
    from mmmu_eval.suite.suite_progress import SuiteDisplay
    from mmmu_eval.tracking import as_log_to, log_suite

    logging_to = as_log_to(log_to)
    if overrides.get("shard") is not None:
        raise ConfigError(f"--shard does not go with {launch.name} of a launcher: each rank takes shard "
                          "RANK+1/WORLD_SIZE of every run itself; drop --shard")
    if overrides.get("out") is None:
        raise ConfigError("a suite under torchrun / accelerate launch needs --out DIR, the same on every rank")
    config, _ = resolve_suite_config(None, dict(overrides))
    own = rank_dir(config.out, launch.rank, launch.world_size)
    # Each rank's own suite is a means: no study intervals, no pages; the merged suite has them.
    mine = {**overrides, "out": own, "shard": launch.shard, "device": rank_device(config.run, launch), "html": False}
    pin_vllm_devices(config.run, launch)

    def work() -> None:
        evaluate_suite(**mine, bootstrap=0, display=SuiteDisplay(plain=True))

    merged = run_as_rank(launch, own, work, lambda: _merge_suite(config, launch.world_size, bootstrap), timeout=timeout)
    if merged is not None:
        log_suite(logging_to, merged.suite_dir, merged.summary)
    return merged


def _merge_suite(config: Any, world_size: int, bootstrap: int) -> Any:
    """Rank 0: every run's shards into the suite's run directories, then the study over them."""
    from mmmu_eval.suite.execute import SuiteResult, open_suite, summarize

    runs = config.runs()
    open_suite(config, runs)
    results, failures = {}, {}
    for run in runs:
        name = Path(run.config.out).relative_to(config.out)
        shards = [rank_dir(config.out, r, world_size) / name for r in range(world_size)]
        try:
            results[run.name] = finish_merged(dataclasses.replace(run.config, resume=True), shards,
                                              earlier=earlier_shards(config.out, world_size, name))
        except MmmuEvalError as exc:  # a run that failed on some rank: the study says so, as one process's would
            log.warning("%s: %s", run.name, exc)
            failures[run.name] = str(exc)
    remove_emptied(config.out, world_size)  # an earlier launch's rank suites, once every run of theirs is folded in
    summary = summarize(config.out, runs, model=config.run.model, config=config.to_json(), failures=failures,
                        resamples=bootstrap, html=config.run.html)
    return SuiteResult(config.out, summary, results, failures)
