"""The shards of a launch with another number of ranks: folded into the merged run once, then removed.

A distributed run relaunched on M ranks after N (``run/rank_answers.py``) leaves the N-rank
launch's shards under ``DIR/ranks``. Their answers already count for the new ranks (which copy
them into their own shards before asking), so merging them as shards again would put a second
answer beside the first. Instead rank 0's merge (``merge_runs(..., earlier=...)``):

1. reads each earlier shard, refused while a writer holds it and when it holds another run
   (protocol, model, data: the resume rule);
2. appends to ``DIR`` the finished answers it holds that ``DIR`` and the new shards lack (items
   outside this launch's selection, say), first shard first; a stored answer is never replaced;
3. records what it was (its shard, when it started, its start-up probes: ``retired_shards``, so
   the run's usage still counts what it sent), in the same manifest write;
4. once ``DIR`` is closed (its answers synced to disk), removes it: renamed out of sight in one
   step, then deleted.

A kill before step 4 leaves the earlier shard in place and ``DIR`` holding its answers: the next
merge finds nothing to append and removes it then. So no answer is ever only in a folder being
deleted, and none is folded twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.core.records import Response
from mmmu_eval.run.rank_answers import remove_directory
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.store.same_run import check_same_run
from mmmu_eval.core.writer_lock import hold_directory

__all__ = ["EarlierShard", "answers_to_fold", "read_earlier", "remove_earlier", "retired_records"]


@dataclass(frozen=True)
class EarlierShard:
    """One earlier launch's shard, read."""

    path: Path
    manifest: dict[str, Any]
    answers: dict[str, Response]
    """Its finished answers, by item id."""


def read_earlier(paths: Sequence[Path], manifest: Mapping[str, Any]) -> list[EarlierShard]:
    """Read the earlier shards at ``paths``, checked against ``manifest`` (a current shard's).

    Raises:
        StoreError: one is being written (its lock is held), cannot be read, or holds another run.
    """
    from mmmu_eval.run.resume import finished_answers

    out = []
    for path in paths:
        with hold_directory(path, "merge"):
            store = RunStore.read(path)
            record = store.manifest_record()
            check_same_run(path, record, manifest)
            out.append(EarlierShard(Path(path), record.to_json(), finished_answers(store.responses())))
    return out


def answers_to_fold(earlier: Sequence[EarlierShard], answered: Callable[[str], bool]) -> list[Response]:
    """The earlier shards' finished answers for items ``answered`` says the merged run lacks, one
    per item, from the first shard that holds one."""
    out: dict[str, Response] = {}
    for shard in earlier:
        for item_id, response in shard.answers.items():
            if item_id not in out and not answered(item_id):
                out[item_id] = response
    return list(out.values())


def retired_records(earlier: Sequence[EarlierShard], stored: Any) -> list[dict[str, Any]]:
    """``retired_shards`` of the merged run: those recorded before (``stored``), then each earlier
    shard not among them (a shard is known by its number and the time it started)."""
    records = [dict(r) for r in stored if isinstance(r, Mapping)] if isinstance(stored, list) else []
    known = {(str(r.get("shard")), str(r.get("started_at"))) for r in records}
    for shard in earlier:
        entry = {"path": str(shard.path), "shard": shard.manifest.get("shard"), "started_at": shard.manifest.get("started_at"),
                 "answers": len(shard.answers), "preflight": shard.manifest.get("preflight")}
        if (str(entry["shard"]), str(entry["started_at"])) not in known:
            records.append(entry)
    return records


def remove_earlier(earlier: Sequence[EarlierShard]) -> None:
    """Remove the earlier shards (call only once the merged run holding their answers is closed)."""
    for shard in earlier:
        if shard.path.exists():
            remove_directory(shard.path)
