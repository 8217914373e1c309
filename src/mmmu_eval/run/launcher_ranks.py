"""One run over many processes: ``torchrun --nproc-per-node N -m mmmu_eval run ... --out DIR``.

    every rank:  its shard (--shard RANK+1/WORLD_SIZE) -> DIR/ranks/rank-K-of-N/  (its own run)
                 -> posts done -> waits for every rank (distributed.RankGroup)
    rank 0:      merge the shards into DIR (run/merge_shards.py) -> score -> DIR's outputs (run/outputs.py)

Each rank's shard is an ordinary run directory that only that rank writes, so a rerun of the same
command resumes every shard (only failed and missing items are asked) and merges again; DIR ends
up as the unsharded run would have left it. A rerun on another number of ranks is the same run:
each new shard starts with the answers DIR and the earlier launch's shards hold for its items
(``run/rank_answers.py``), only the rest is asked, and the merge keeps every stored answer and
removes the earlier shards once DIR holds theirs (``run/merge_earlier.py``); a finished DIR asks
nothing on any rank. A rank's device is ``cuda:LOCAL_RANK`` when torch
sees GPUs (``--device cpu`` keeps it on the CPU); a ``vllm:`` rank gets its own group of
``tensor x pipeline parallel`` GPUs through ``CUDA_VISIBLE_DEVICES``.

In a rank's process (a sketch: it needs the launcher's environment)::

    ranked = evaluate_ranks({"model": "hf:/models/m", "out": Path("runs/m")}, Launch.from_env())
"""

from __future__ import annotations

import _thread
import os
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.run.distributed import DEFAULT_TIMEOUT_S, Launch, RankError, RankGroup
from mmmu_eval.run.progress import ProgressDisplay
from mmmu_eval.run.rank_answers import earlier_shards, rank_dir, rank_place, remove_emptied
from mmmu_eval.run.runner import asked_so_far, counting_asked
from mmmu_eval.run.resolve import resolve_config
from mmmu_eval.run.result import RunResult
from mmmu_eval.store.rundir import MANIFEST
from mmmu_eval.tracking.log_to import LogToArg

__all__ = ["RankDisplay", "RankedRun", "all_done", "evaluate_ranks", "finish_merged", "pin_vllm_devices", "rank_device",
           "rank_dir", "rank_session", "run_as_rank"]

T = TypeVar("T")

# What the launcher sets per rank; a vLLM engine started inside a rank must not take them for
# its own world (its ranks are the GPUs of one engine).
_LAUNCHER_RANK_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                            "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE")


@dataclass(frozen=True)
class RankedRun:
    """What rank 0 of a distributed run hands back: the merged run, and what the ranks asked."""

    result: RunResult
    asked: int
    """Requests the ranks sent and stored an answer for in this launch, summed over the ranks."""


def evaluate_ranks(overrides: Mapping[str, Any], launch: Launch, *, timeout: float = DEFAULT_TIMEOUT_S,
                   log_to: LogToArg = None) -> RankedRun | None:
    """This rank's part of a distributed run; the merged run on rank 0, None elsewhere.

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
    from mmmu_eval.run.finished import finished_result
    from mmmu_eval.run.pipeline import evaluate
    from mmmu_eval.tracking import as_log_to, log_run

    logging_to = as_log_to(log_to)
    config = _checked(overrides, launch)
    out = Path(config.out)  # type: ignore[arg-type]  # checked: out is set
    own = rank_dir(out, launch.rank, launch.world_size)
    done = finished_result(config)  # DIR holds the whole run already: no rank asks or loads anything
    # A shard is scored and written like any run, but its report page is left to the merged run.
    shard_overrides = {**overrides, "shard": launch.shard, "out": own, "device": rank_device(config, launch), "html": False}
    if (own / MANIFEST).exists() and overrides.get("resume") is not False:
        shard_overrides["resume"] = True
    pin_vllm_devices(config, launch)
    shards = [rank_dir(out, r, launch.world_size) for r in range(launch.world_size)]
    with rank_session(launch, own, timeout=timeout) as group:
        if done is None:
            evaluate(**shard_overrides, display=RankDisplay(launch))
        asked = all_done(group, own)
        if launch.rank != 0:
            return None
        if done is None:
            done = finish_merged(config, shards, earlier=earlier_shards(out, launch.world_size))
        remove_emptied(out, launch.world_size)
    log_run(logging_to, done.run_dir)
    return RankedRun(done, asked)


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
    terminated = _Terminated()
    previous = signal.signal(signal.SIGTERM, terminated)  # the launcher stopping a rank: as Ctrl-C
    try:
        with rank_place(own.parent.parent, own, launch.world_size), counting_asked():
            yield group
    except KeyboardInterrupt:
        if group.problem is None and terminated.seen:
            why = _why_stopped(group)
            if group.posted is None:
                group.post("failed", f"stopped by SIGTERM {why}")
            raise RankError(f"{launch.name} was stopped by SIGTERM (the launcher ends every rank once one has "
                            f"failed) {why}. {_kept(own)}") from None
        if group.problem is None:
            if group.posted is None:
                group.post("failed", "interrupted (Ctrl-C)")
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
        group.leave(hurry=terminated.seen)  # stopped by the launcher: leave at once, it stops the others too
        group.close()
        signal.signal(signal.SIGTERM, previous)


def all_done(group: RankGroup, own: Path) -> int:
    """Post this rank's ``done`` (with what it asked) and wait for every other rank's
    (``RankGroup.wait_for_all``); on rank 0, the requests every rank asked in this launch, summed
    (0 elsewhere: past the barrier the store may be gone with rank 0, which may host it).

    Raises:
        RankError: another rank failed or went silent, naming it and where this rank's work is kept.
    """
    group.post("done", asked=asked_so_far())
    try:
        group.wait_for_all()
    except RankError as exc:
        raise RankError(f"{exc}. {_kept(own)}") from None
    if group.launch.rank != 0:
        return 0
    return sum(int(status.get("asked") or 0) for status in group.statuses().values())


def finish_merged(config: RunConfig, shards: list[Path], *, earlier: Sequence[Path] = ()) -> RunResult:
    """Rank 0's end: join the shards into ``config.out`` and write its outputs as a whole run would.

    The merge appends only the answers ``config.out`` lacks (``merge_runs(update=True)``), and
    folds in the ``earlier`` shards of a launch with another number of ranks (``earlier_shards``),
    then the whole run's manifest, scoring and outputs go through the same stages ``evaluate`` ends with.
    """
    from mmmu_eval.run.merge_shards import merge_runs
    from mmmu_eval.run.pipeline import report, stored_responses
    from mmmu_eval.run.prepare import prepare_run
    from mmmu_eval.store.rundir import RunStore

    prepared = prepare_run(config)
    out = Path(config.out)  # type: ignore[arg-type]
    merge_runs(shards, out, expected_ids=[it.id for it in prepared.items], update=True, earlier=earlier)
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


class _Terminated:
    """SIGTERM's handler in a rank: remember it, and stop the work as Ctrl-C does."""

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, signum: int, frame: object) -> None:
        self.seen = True
        raise KeyboardInterrupt


def _why_stopped(group: RankGroup) -> str:
    """Which rank the launcher stopped this one for, as far as the store and this host tell:
    one that posted its failure, or one whose process is gone without a word."""
    try:
        failed = [f"rank {r} of {group.launch.world_size} failed: {s.get('message') or 'no message'}"
                  for r, s in group.statuses().items() if r != group.launch.rank and s.get("status") == "failed"]
    except Exception:  # noqa: BLE001 - the store went with the launcher
        failed = []
    named = failed or group.gone()
    if named:
        return "after " + "; ".join(named)
    return "with no other rank's failure known here (the launcher's own report names the worker that failed)"

