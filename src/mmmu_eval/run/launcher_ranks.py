"""One run over many processes: ``torchrun --nproc-per-node N -m mmmu_eval run ... --out DIR``.

    every rank:  its shard (--shard RANK+1/WORLD_SIZE) -> DIR/ranks/rank-K-of-N/  (its own run)
                 -> posts done -> waits for every rank (distributed.RankGroup)
    rank 0:      merge the shards into DIR (run/merge_shards.py) -> score -> DIR's outputs (run/outputs.py)

Each rank's shard is an ordinary run directory that only that rank writes, so a rerun of the same
command resumes every shard (only failed and missing items are asked) and merges again; DIR ends
up as the unsharded run would have left it. A rank's device is ``cuda:LOCAL_RANK`` when torch
sees GPUs (``--device cpu`` keeps it on the CPU); a ``vllm:`` rank gets its own group of
``tensor x pipeline parallel`` GPUs through ``CUDA_VISIBLE_DEVICES``.

In a rank's process (a sketch: it needs the launcher's environment)::

    result = evaluate_ranks({"model": "hf:/models/m", "out": Path("runs/m")}, Launch.from_env())
"""

from __future__ import annotations

import _thread
import os
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, TypeVar

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, MmmuEvalError, StoreError
from mmmu_eval.run.distributed import DEFAULT_TIMEOUT_S, Launch, RankError, RankGroup
from mmmu_eval.run.progress import ProgressDisplay
from mmmu_eval.run.resolve import resolve_config
from mmmu_eval.run.result import RunResult
from mmmu_eval.store.rundir import MANIFEST, RANKS
from mmmu_eval.tracking.log_to import LogToArg

__all__ = ["RankDisplay", "all_done", "evaluate_ranks", "finish_merged", "pin_vllm_devices", "rank_device", "rank_dir",
           "rank_session", "run_as_rank"]

T = TypeVar("T")

# What the launcher sets per rank; a vLLM engine started inside a rank must not take them for
# its own world (its ranks are the GPUs of one engine).
_LAUNCHER_RANK_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                            "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE")


def rank_dir(out: Path, rank: int, world_size: int) -> Path:
    """The directory rank ``rank`` (0-based) owns: ``DIR/ranks/rank-K-of-N``, K = rank + 1 as in ``--shard K/N``."""
    return Path(out) / RANKS / f"rank-{rank + 1}-of-{world_size}"


def evaluate_ranks(overrides: Mapping[str, Any], launch: Launch, *, timeout: float = DEFAULT_TIMEOUT_S,
                   log_to: LogToArg = None) -> RunResult | None:
    """This rank's part of a distributed run; the merged run's result on rank 0, None elsewhere.

    Args:
        overrides: the RunConfig fields of the command (the same on every rank); ``out`` is required.
        launch: this process's rank (``Launch.from_env()``).
        timeout: seconds a silent rank is waited for before the others stop.
        log_to: as ``evaluate`` takes it; rank 0 logs the merged run (every rank checks it first).

    Raises:
        ConfigError: ``--shard`` or no ``--out`` (the ranks must agree on one directory).
        RankError: another rank failed or went silent; this rank's shard stays valid.
        Whatever this rank's own run raises, after telling the other ranks.
    """
    from mmmu_eval.run.pipeline import evaluate
    from mmmu_eval.tracking import as_log_to, log_run

    logging_to = as_log_to(log_to)
    config = _checked(overrides, launch)
    out = Path(config.out)  # type: ignore[arg-type]  # checked: out is set
    own = rank_dir(out, launch.rank, launch.world_size)
    # A shard is scored and written like any run, but its report page is left to the merged run.
    shard_overrides = {**overrides, "shard": launch.shard, "out": own, "device": rank_device(config, launch), "html": False}
    if (own / MANIFEST).exists() and overrides.get("resume") is not False:
        shard_overrides["resume"] = True
    pin_vllm_devices(config, launch)
    shards = [rank_dir(out, r, launch.world_size) for r in range(launch.world_size)]
    merged = run_as_rank(launch, own, lambda: evaluate(**shard_overrides, display=RankDisplay(launch)),
                         lambda: finish_merged(config, shards), timeout=timeout)
    if merged is not None:
        log_run(logging_to, merged.run_dir)
    return merged


def run_as_rank(launch: Launch, own: Path, work: Callable[[], object], finish: Callable[[], T], *,
                timeout: float = DEFAULT_TIMEOUT_S) -> T | None:
    """Do this rank's ``work`` (writing only under ``own``) among the other ranks; on rank 0,
    once every rank is done, ``finish`` (the merge) and return what it returns; None elsewhere.

    Raises:
        RankError: another rank failed or went silent (while this one worked, or at the barrier).
        Whatever ``work`` raises, after telling the other ranks.
    """
    with rank_session(launch, own, timeout=timeout) as group:
        work()
        all_done(group, own)
        return finish() if launch.rank == 0 else None


@contextmanager
def rank_session(launch: Launch, own: Path, *, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[RankGroup]:
    """This rank among the others, for a block that works (writing only under ``own``) and then
    calls ``all_done``: the rank beats meanwhile, is interrupted (as Ctrl-C) when another rank
    fails or goes silent, and tells the others when it fails itself.

    ``run_as_rank`` is the plain case; a step whose rank 0 prepares something the others wait for
    (``harden filter``: ``RankGroup.announce`` / ``wait_for``) orders the same pieces itself.

    Raises:
        RankError: another rank failed or went silent (naming it, and where this rank's work is kept).
        Whatever the block raises, after telling the other ranks (unless it had posted ``done``).
    """
    group = RankGroup.join(launch, timeout=timeout)
    group.watch(_thread.interrupt_main)
    previous = signal.signal(signal.SIGTERM, _terminated)  # the launcher stopping a rank: as Ctrl-C
    try:
        yield group
    except KeyboardInterrupt:
        if group.problem is None:
            if group.posted is None:
                group.post("failed", "interrupted (Ctrl-C, or the launcher stopped it)")
            raise
        if group.posted is None:
            group.post("failed", f"stopped because {group.problem}")
        raise RankError(f"{launch.name} stopped because {group.problem}. {_kept(own)}") from None
    except RankError:
        raise  # from all_done or wait_for: the other rank is named, nothing to tell
    except BaseException as exc:
        if group.posted is None:
            group.post("failed", str(exc) if isinstance(exc, MmmuEvalError) else f"{type(exc).__name__}: {exc}")
        raise
    finally:
        group.leave()
        group.close()
        signal.signal(signal.SIGTERM, previous)


def all_done(group: RankGroup, own: Path) -> None:
    """Post this rank's ``done`` and wait for every other rank's (``RankGroup.wait_for_all``).

    Raises:
        RankError: another rank failed or went silent, naming it and where this rank's work is kept.
    """
    group.post("done")
    try:
        group.wait_for_all()
    except RankError as exc:
        raise RankError(f"{exc}. {_kept(own)}") from None


def finish_merged(config: RunConfig, shards: list[Path]) -> RunResult:
    """Rank 0's end: join the shards into ``config.out`` and write its outputs as a whole run would.

    The merge appends only the answers ``config.out`` lacks (``merge_runs(update=True)``), then
    the whole run's manifest, scoring and outputs go through the same stages ``evaluate`` ends with.
    """
    from mmmu_eval.run.merge_shards import merge_runs
    from mmmu_eval.run.pipeline import report, stored_responses
    from mmmu_eval.run.prepare import prepare_run
    from mmmu_eval.store.rundir import RunStore

    prepared = prepare_run(config)
    out = Path(config.out)  # type: ignore[arg-type]
    merge_runs(shards, out, expected_ids=[it.id for it in prepared.items], update=True)
    backend = RunStore.read(out).manifest_record().backend  # the shards' backend; none is made here
    store = RunStore.open(out, {**prepared.manifest, "backend": backend}, resume=True)
    items = prepared.scoring.gold_items(prepared.items)
    responses = stored_responses(store, items)
    scoring = prepared.scoring.score(items, responses)
    return report(store, config, prepared.protocol, items, responses, scoring)


class RankDisplay(ProgressDisplay):
    """Plain progress lines (several ranks share one terminal), each saying whose they are."""

    def __init__(self, launch: Launch) -> None:
        super().__init__(plain=True, label=f"rank {launch.rank}")
        self._who = f"rank {launch.rank}/{launch.world_size}"

    def status_line(self) -> str:
        return f"{self._who}: {super().status_line()}"


# -- small helpers ----------------------------------------------------------------------------

def _checked(overrides: Mapping[str, Any], launch: Launch) -> RunConfig:
    """The whole run's configuration, refusing what cannot be split over ranks."""
    if overrides.get("shard") is not None:
        raise ConfigError(f"--shard does not go with {launch.name} of a launcher: each rank takes shard "
                          "RANK+1/WORLD_SIZE itself; drop --shard")
    if overrides.get("out") is None:
        raise ConfigError("a run under torchrun / accelerate launch needs --out DIR, the same on every rank "
                          "(on several nodes, a directory they share)")
    config, _ = resolve_config(None, overrides)
    out = Path(config.out)  # type: ignore[arg-type]
    if (out / MANIFEST).exists() and not (out / RANKS).is_dir():
        raise StoreError("holds a run of one process; a distributed run needs a new --out", out)
    if (config.data_parallel_size or 1) > 1:
        raise ConfigError(f"--data-parallel-size {config.data_parallel_size} and {launch.name} of a launcher: the "
                          "launcher's processes are the data parallelism; use one or the other")
    return config


def rank_device(config: RunConfig, launch: Launch) -> str | None:
    """``cuda`` on this rank's GPU (made torch's current device) for an ``hf:`` model, else as given."""
    if not config.model.removeprefix("text-only:").startswith("hf:") or config.device == "cpu":
        return config.device
    import torch

    if not torch.cuda.is_available():
        return config.device or "cpu"
    count = torch.cuda.device_count()
    if launch.local_rank >= count:
        raise ConfigError(f"{launch.name} has LOCAL_RANK {launch.local_rank} but torch sees {count} GPU(s) here: "
                          "start at most one process per GPU (--nproc-per-node)")
    torch.cuda.set_device(launch.local_rank)  # `.to("cuda")` lands on cuda:LOCAL_RANK
    return "cuda"


def pin_vllm_devices(config: RunConfig, launch: Launch) -> None:
    """Give a ``vllm:`` rank its own GPUs (tensor x pipeline parallel of them) before vLLM loads."""
    if not config.model.removeprefix("text-only:").startswith("vllm:"):
        return
    per = (config.tensor_parallel_size or 1) * (config.pipeline_parallel_size or 1)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    gpus = [g for g in visible.split(",") if g.strip()] if visible else [str(i) for i in range(launch.local_world_size * per)]
    mine = gpus[launch.local_rank * per:(launch.local_rank + 1) * per]
    if len(mine) < per:
        raise ConfigError(f"{launch.name} needs {per} GPUs (tensor x pipeline parallel) but only {len(gpus)} are "
                          f"visible for {launch.local_world_size} processes on this node")
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(mine)
    for name in _LAUNCHER_RANK_VARIABLES:
        os.environ.pop(name, None)


def _kept(own: Path) -> str:
    return (f"This rank's answers are kept in {own}; fix the failing rank and run the same command "
            "again: every rank resumes its shard and asks only what is missing")


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt

