"""The answers a rank's shard shares with its run, whatever the number of ranks it was launched with.

Under torchrun / accelerate launch each rank writes ``DIR/ranks/rank-K-of-N/REL`` and rank 0
merges the shards into ``DIR/REL`` (REL is ``.`` for ``run``, the run's name for ``suite``, the
trial's path for ``harden filter``). Relaunched on another number of GPUs, the run's answers sit
in ``DIR/REL`` (merged by an earlier launch) and in the shards of earlier launches
(``DIR/ranks/rank-J-of-M/REL``, M another rank count; left unmerged when that launch was killed).
A run is one run whatever N, so:

- a rank's shard counts as answered every answer the run holds (``answer_sources``, read by
  ``run/resume.inherited_answers``): its
  own first, then ``DIR/REL``'s, then the other rank counts' shards (by M, then J); each place is
  checked as a resumed run is (``check_sources``: protocol, model, data), and the answers of its
  slice that its own directory lacks are copied in before anything is asked, so every shard stays
  a complete ``--shard K/N`` run and the merge's checks (no gap, no item twice) still hold;
- rank 0's merge appends to ``DIR/REL`` only items it holds no answer for, so a stored answer is
  never replaced by a later launch's (a sampling model answers differently each time), then folds
  in and removes the other rank counts' shards (``run/merge_earlier.py``).

``rank_place`` says where this process's rank writes; ``run/ranks.rank_session`` sets it for the
rank's work, so ``evaluate`` (through ``run/resume.py``) inherits without being told; for a
directory outside the rank's own, nothing is inherited. One process working on a distributed
run's directory (``mmmu-eval run --out DIR`` with no launcher, or a launcher with one process)
counts the answers of every shard under ``DIR/ranks`` too (``shards_around``), and copies those
it lacks into ``DIR``: one GPU is also a number of GPUs.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.store.rundir import MANIFEST, RANKS, RunStore
from mmmu_eval.store.same_run import check_same_run

__all__ = ["RankPlace", "answer_sources", "check_sources", "earlier_shards", "held_elsewhere",
           "other_rank_counts", "rank_dir", "rank_place", "remove_directory", "remove_emptied",
           "shards_around"]

log = logging.getLogger(__name__)

_NAME = re.compile(r"rank-(\d+)-of-(\d+)")


def rank_dir(out: Path | str, rank: int, world_size: int) -> Path:
    """The directory rank ``rank`` (0-based) owns: ``DIR/ranks/rank-K-of-N``, K = rank + 1 as in ``--shard K/N``."""
    return Path(out) / RANKS / f"rank-{rank + 1}-of-{world_size}"


def other_rank_counts(out: Path | str, world_size: int) -> list[Path]:
    """The rank directories under ``DIR/ranks`` of launches with another number of ranks than
    ``world_size``, by that number, then by rank."""
    if not (Path(out) / RANKS).is_dir():
        return []
    return [d for d in _rank_dirs(Path(out)) if int(_NAME.fullmatch(d.name).group(2)) != world_size]  # type: ignore[union-attr]


def earlier_shards(out: Path | str, world_size: int, relative: Path | str = ".") -> list[Path]:
    """The run directories ``DIR/ranks/rank-J-of-M/REL`` that hold a run (M not ``world_size``)."""
    return [d / relative for d in other_rank_counts(out, world_size) if (d / relative / MANIFEST).is_file()]


@dataclass
class RankPlace:
    """Where this rank writes: ``own``, inside ``out``'s ``ranks`` folder."""

    out: Path
    """The run's directory (``DIR``), where rank 0 merges."""
    own: Path
    """This rank's directory, ``DIR/ranks/rank-K-of-N``."""
    world_size: int

    def relative(self, path: Path | str) -> Path | None:
        """``path`` relative to this rank's directory; None when it lies outside it."""
        own, there = os.path.abspath(self.own), os.path.abspath(path)
        if there != own and not there.startswith(own + os.sep):
            return None
        return Path(os.path.relpath(there, own))

    def sources(self, path: Path | str) -> list[Path]:
        """The other places the run in ``path`` (inside ``own``) keeps answers: ``DIR/REL``, then
        the earlier shards of other rank counts; only those that hold a run."""
        relative = self.relative(path)
        if relative is None:
            return []
        merged = self.out / relative
        return ([merged] if (merged / MANIFEST).is_file() else []) + earlier_shards(self.out, self.world_size, relative)


_PLACE: ContextVar[RankPlace | None] = ContextVar("mmmu_eval_rank_place", default=None)


@contextmanager
def rank_place(out: Path, own: Path, world_size: int) -> Iterator[RankPlace]:
    """Be the rank that writes ``own`` for the block: runs inside it inherit the run's answers."""
    place = RankPlace(Path(out), Path(own), world_size)
    token = _PLACE.set(place)
    try:
        yield place
    finally:
        _PLACE.reset(token)


def answer_sources(path: Path | str | None) -> list[Path]:
    """The places the run in ``path`` keeps answers outside ``path`` (see the module doc), in the
    order their answers count: for a rank's shard ``DIR/REL`` first, then the other rank counts'
    shards; for one process in a distributed run's directory, its ranks' shards. Empty otherwise."""
    if path is None:
        return []
    place = _PLACE.get()
    return place.sources(path) if place is not None else shards_around(path)


#: How far above a run directory its distributed run's root may be: harden's trials sit at
#: ``DIR/runs/filter/<model>/trial-NN``.
_LEVELS = 5


def shards_around(path: Path | str) -> list[Path]:
    """For a run directory of a distributed run worked on by one process (``torchrun`` with one
    process is no launcher: ``mmmu-eval run --out DIR`` again, say), the ranks' shards of the same
    run, ``A/ranks/rank-K-of-N/REL`` where ``A`` is the nearest folder above (or at) ``path``
    with a ``ranks`` folder and REL the rest of ``path``: any N, by N then K; only those that
    hold a run. Empty for any other directory."""
    there = Path(os.path.abspath(path))
    for root in [there, *there.parents][:_LEVELS]:
        if (root / RANKS).is_dir():
            relative = there.relative_to(root)
            found = [d / relative for d in _rank_dirs(root) if (d / relative / MANIFEST).is_file()]
            if found:
                return found
    return []


def _rank_dirs(out: Path) -> list[Path]:
    """Every rank directory under ``out/ranks``, by rank count, then rank."""
    found = []
    for entry in (out / RANKS).iterdir():
        name = _NAME.fullmatch(entry.name)
        if name and entry.is_dir():
            found.append(((int(name.group(2)), int(name.group(1))), entry))
    return [path for _, path in sorted(found)]


def held_elsewhere(path: Path | str | None) -> bool:
    """Whether the run in ``path`` (a rank's shard) has answers stored outside it."""
    return bool(answer_sources(path))


def check_sources(path: Path | str | None, manifest: Mapping[str, Any]) -> None:
    """Refuse, as a resumed run is refused (``store/same_run.py``), when a place the rank's run
    would inherit from holds another run (protocol, model, data): its answers are not this run's.

    Raises:
        StoreError: naming the place and what differs.
    """
    for source in answer_sources(path):
        check_same_run(source, RunStore.read(source).manifest_record(), manifest)


# -- removing what was folded in --------------------------------------------------------------

_RETIRING = ".retiring-"


def remove_directory(path: Path) -> None:
    """Remove ``path`` whole, crash-safely: renamed out of sight first (one atomic step: it is
    there or gone for every reader), then deleted; a kill during the deletion leaves only a
    hidden ``.retiring-*`` folder, removed the next time (``remove_emptied``)."""
    hidden = path.with_name(f"{_RETIRING}{path.name}-{os.getpid()}")
    os.replace(path, hidden)
    shutil.rmtree(hidden, ignore_errors=True)


def remove_emptied(out: Path | str, world_size: int) -> None:
    """Remove the other rank counts' directories that hold no run any more (their runs were folded
    into ``DIR`` and removed one by one), and what a killed removal left behind."""
    ranks = Path(out) / RANKS
    for entry in ranks.iterdir() if ranks.is_dir() else ():
        if entry.name.startswith(_RETIRING) and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
    for rank in other_rank_counts(out, world_size):
        if not any(rank.rglob(MANIFEST)):
            remove_directory(rank)
            log.info("%s: removed (its answers are in %s)", rank, out)
