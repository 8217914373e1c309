"""``torchrun --nproc-per-node N -m mmmu_eval harden filter ... --out DIR``: the text-only trials
of local models over many processes.

    rank 0:      opens DIR, stages the input (DIR/work/filter-input), announces the trial plan
    every rank:  its shard of every trial (--shard RANK+1/WORLD_SIZE of the staged items)
                 -> DIR/ranks/rank-K-of-N/runs/filter/<model>/trial-NN  (written by that rank only)
                 -> posts done -> waits for every rank (run/launcher_ranks.py's session)
    rank 0:      each trial's shards merged into DIR/runs/filter/<model>/trial-NN (run/launcher_ranks.py's
                 ``finish_merged``), then the filter decides and writes DIR as one process does

The filter itself is ``harden_filter_async`` unchanged, with its ``trial_runner`` on rank 0 doing
the shards and the merge; so DIR ends up as a one-process filter leaves it (plus ``ranks/``),
and the same command again resumes: every rank asks only its shard's missing trials, or nothing
at all when the filter is finished (rank 0 announces that there is nothing to ask). On another
number of ranks it is the same filter: each new shard starts with the answers the trials hold
already (``run/rank_answers.py``), so a sampled trial is never drawn twice.

In a rank's process (a sketch: it needs the launcher's environment)::

    result = harden_filter_ranks("mmmu-data", "hard", Launch.from_env(), settings=FilterSettings(models="hf:/m/a,hf:/m/b"))
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Sequence

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, StoreError
from mmmu_eval.harden.outdir import StepResult
from mmmu_eval.harden.trials import Model, TrialRuns, TrialSettings, run_trials, trial_config
from mmmu_eval.run.distributed import DEFAULT_TIMEOUT_S, Launch, RankGroup
from mmmu_eval.run.progress import Display
from mmmu_eval.run.rank_answers import earlier_shards, remove_emptied
from mmmu_eval.run.launcher_ranks import (RankDisplay, all_done, finish_merged, pin_vllm_devices, rank_device, rank_dir,
                                 rank_session)
from mmmu_eval.store.rundir import RANKS

__all__ = ["harden_filter_ranks"]

#: The announcement the other ranks wait for: the trial plan, or null when nothing is to be asked.
_PLAN = "harden-filter-plan"
#: The run settings that say where a rank's local model goes (``rank_device``, ``pin_vllm_devices``).
_DEVICE_FIELDS = ("device", "tensor_parallel_size", "pipeline_parallel_size")


def harden_filter_ranks(data: str | Path, out: str | Path, launch: Launch, *, timeout: float = DEFAULT_TIMEOUT_S,
                        **options: Any) -> StepResult | None:
    """This rank's part of a distributed ``harden filter``: the StepResult on rank 0, None elsewhere.

    Args:
        data, out, options: as ``harden_filter`` takes them (``settings=``, ``draw_seed=``, ...; the same on every rank).
        launch: this process's rank (``Launch.from_env()``).
        timeout: seconds a silent rank is waited for before the others stop.

    Raises:
        StoreError: ``out`` holds a filter run by one process (its trial runs are not merged ones).
        RankError: another rank failed or went silent; this rank's trial shards stay valid.
        Whatever this rank's own trials or rank 0's filter raise, after telling the other ranks.
    """
    from mmmu_eval.core.aio import run_coroutine
    from mmmu_eval.harden.filter import harden_filter_async

    out = Path(out).expanduser()
    if (out / "runs" / "filter").is_dir() and not (out / RANKS).is_dir():
        raise StoreError("holds a filter run by one process; under torchrun / accelerate launch use a new --out "
                         "(or finish it the way it was started)", out)
    own = rank_dir(out, launch.rank, launch.world_size)
    with rank_session(launch, own, timeout=timeout) as group:
        if launch.rank != 0:
            plan = json.loads(group.wait_for(_PLAN))
            if plan is not None:
                _ask_shard(Path(plan["staging"]), plan["setting"], _models(plan["models"]),
                           TrialSettings(**plan["settings"]), own / plan["runs"], launch)
            all_done(group, own)
            return None
        runner = _MergingRunner(group, launch, own, out)
        result = run_coroutine(harden_filter_async(data, out, trial_runner=runner, **options))
        if not runner.called:  # finished before, under these settings: nothing for anyone to ask
            group.announce(_PLAN, "null")
            all_done(group, own)
        return result


class _MergingRunner:
    """Rank 0's ``trial_runner``: announce the plan, ask its own shard, wait for every rank, merge
    each trial's shards where ``run_trials`` keeps its runs, then read them as it does."""

    def __init__(self, group: RankGroup, launch: Launch, own: Path, out: Path) -> None:
        self.group, self.launch, self.own, self.out = group, launch, own, out
        self.called = False

    async def __call__(self, staging: Path, setting: str, models: Sequence[Model], settings: TrialSettings,
                       runs_root: Path, *, display: Display | None = None) -> TrialRuns:
        self.called = True
        shards_root = runs_root.relative_to(self.out)
        plan = {"staging": str(staging), "setting": setting, "runs": str(shards_root), "models": [dataclasses.asdict(m) for m in models],
                "settings": {"trials": settings.trials, "seed": settings.seed, "temperature": settings.temperature,
                             "run": dict(settings.run)}}
        self.group.announce(_PLAN, json.dumps(plan))
        await _ask_shard_async(staging, setting, models, settings, self.own / shards_root, self.launch)
        all_done(self.group, self.own)
        for model in models:
            for trial in range(1, settings.trials + 1):
                path = runs_root / model.label / f"trial-{trial:02d}"
                config = trial_config(staging, setting, model, settings, trial, path)
                relative = shards_root / model.label / path.name
                shards = [rank_dir(self.out, r, self.launch.world_size) / relative for r in range(self.launch.world_size)]
                finish_merged(dataclasses.replace(config, resume=True), shards,
                              earlier=earlier_shards(self.out, self.launch.world_size, relative))
        remove_emptied(self.out, self.launch.world_size)  # an earlier launch's ranks, their trials folded in
        # Every trial is merged and finished: this reads them back (no model is loaded, nothing asked).
        return await run_trials(staging, setting, models, settings, runs_root, display=display)


def _ask_shard(staging: Path, setting: str, models: Sequence[Model], settings: TrialSettings, root: Path,
               launch: Launch) -> None:
    from mmmu_eval.core.aio import run_coroutine

    run_coroutine(_ask_shard_async(staging, setting, models, settings, root, launch))


async def _ask_shard_async(staging: Path, setting: str, models: Sequence[Model], settings: TrialSettings, root: Path,
                           launch: Launch) -> None:
    """This rank's shard of every trial, into ``root`` (this rank's copy of the runs root)."""
    run = dict(settings.run)
    if run.get("shard") is not None:
        raise ConfigError(f"--shard does not go with {launch.name} of a launcher: each rank takes shard "
                          "RANK+1/WORLD_SIZE itself; drop --shard")
    local = [RunConfig(model=m.text_only_spec, **{k: v for k, v in run.items() if k in _DEVICE_FIELDS}) for m in models]
    devices = {rank_device(config, launch) for config in local}
    device = next((d for d in devices if d is not None), None)
    vllm = next((c for c in local if c.model.removeprefix("text-only:").startswith("vllm:")), None)
    if vllm is not None:
        pin_vllm_devices(vllm, launch)
    mine = dataclasses.replace(settings, run={**run, "shard": launch.shard, **({"device": device} if device else {})})
    await run_trials(Path(staging), setting, models, mine, root, display=RankDisplay(launch))


def _models(entries: Sequence[dict[str, Any]]) -> tuple[Model, ...]:
    """The plan's models, endpoints with their credentials: the plan goes through the launcher's
    store, never to a file, so it carries what ``Model.to_json`` keeps out of harden.json."""
    return tuple(Model(e["label"], e["spec"], tuple(e["base_urls"]) if e.get("base_urls") else None) for e in entries)
