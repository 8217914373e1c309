"""Helpers of the tests that start real ranks (torchrun, accelerate launch, MPI-style variables).

``rank_env`` is a subprocess environment with this checkout's ``src`` first and no launcher
variable of the caller's (a test run under a launcher must not hand its own rank on);
``without_times`` strips the timings two runs never share, so run outputs compare as equal.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fakes.processes import offline_environment

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: Every variable a launcher sets to say who a process is; cleared before a test sets its own.
LAUNCHER_VARIABLES = (
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK",
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
    "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE",
)


def rank_env(**extra: str) -> dict[str, str]:
    """An offline subprocess environment running this checkout, one CPU thread, plus ``extra``."""
    env = offline_environment()
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    for name in LAUNCHER_VARIABLES:
        env.pop(name, None)
    env.update(extra)
    return env


def without_times(value: Any) -> Any:
    """A results.json / harden.json with every timing removed (the one thing two runs never share)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items()
                if not any(w in k for w in ("latency", "_at", "elapsed", "seconds", "duration"))}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def start_rank(rank: int, world_size: int, port: int, command: list[str], *,
               program: tuple[str, ...] = ("-m", "mmmu_eval")) -> subprocess.Popen[str]:
    """``python -m mmmu_eval COMMAND`` (or ``python PROGRAM COMMAND``) as one rank, with the
    variables torchrun sets but no torchrun: no agent tears the others down when one fails, so
    what the ranks tell each other is what counts."""
    env = rank_env(RANK=str(rank), WORLD_SIZE=str(world_size), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world_size),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    return subprocess.Popen([sys.executable, *program, *command], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def assert_same_run(one: Path, merged: Path, *, ranks: int = 2) -> None:
    """``merged``, a run merged from ``ranks`` shards, equals the one-process run ``one`` item for
    item: answers, predictions, results.json but for times; in dataset order, each shard by rank."""
    import json

    from mmmu_eval.store.rundir import RunStore

    a, b = RunStore.read(one), RunStore.read(merged)
    assert list(b.responses()) == b.manifest()["item_ids"] == a.manifest()["item_ids"]  # merged in dataset order
    assert {i: (r.status, r.text) for i, r in b.responses().items()} == {i: (r.status, r.text) for i, r in a.responses().items()}
    assert (merged / "predictions.jsonl").read_text() == (one / "predictions.jsonl").read_text()
    results = [json.loads((d / "results.json").read_text()) for d in (one, merged)]
    assert without_times(results[1]) == without_times(results[0])
    assert b.manifest()["status"] == "complete" and b.manifest().get("shard") is None
    for key in ("effective_layout", "effective_layout_items", "unreferenced_images"):  # the run's totals (issue 41)
        assert b.manifest().get(key) == a.manifest().get(key), key
    shards = [RunStore.read(merged / "ranks" / f"rank-{k}-of-{ranks}") for k in range(1, ranks + 1)]
    assert [s.manifest()["shard"] for s in shards] == [[k, ranks] for k in range(1, ranks + 1)]
    assert sum(len(s.responses()) for s in shards) == len(a.responses())
