"""The ranks of a ``torchrun`` / ``accelerate launch`` run: who this process is, and how the
ranks learn that the others finished, failed or vanished.

A launcher starts one process per device with ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` set
(``Launch.from_env``). The ranks meet in the launcher's own key-value store (torch.distributed's
``env://`` rendezvous: ``MASTER_ADDR`` / ``MASTER_PORT``, or torchrun's agent store), and
``RankGroup`` is a barrier over it with a timeout that measures silence, not duration:

- every rank beats (a counter in the store) every few seconds from a background thread, while
  it loads its model, answers its shard and merges;
- a rank that ends posts its status: ``done``, or ``failed`` with its error;
- ``wait_for_all`` returns once every rank posted ``done``; it raises ``RankError`` naming the
  rank as soon as one posts ``failed``, or once one has not beaten for ``timeout`` seconds
  (killed, frozen, its node gone), so no rank ever waits forever;
- ``watch`` runs the same checks while this rank is still working, and interrupts it (as Ctrl-C
  does: what it stored stays valid) when another rank failed, so one rank's error stops all.

Why not ``torch.distributed.barrier`` with a timeout: its timeout counts from the moment the
first rank arrives, so it must exceed the gap between the fastest and the slowest shard (hours
on a large model) to never stop a healthy slow rank, and then a dead rank hangs the others for
as long. No process group is created either: a backend that starts its own (vLLM does) would
find ours and join it. The store is torch's own, so this works wherever the launcher works:
CPU, beside NCCL, across nodes.

In a rank's process (a sketch: it needs the launcher's environment)::

    launch = Launch.from_env()           # None outside a launcher, or with one process
    group = RankGroup.join(launch, timeout=300)
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping

from mmmu_eval.core.errors import ConfigError, MmmuEvalError

__all__ = ["DEFAULT_TIMEOUT_S", "Launch", "RankError", "RankGroup"]

log = logging.getLogger(__name__)

#: Seconds a rank may go without a sign of life before the others stop (``--rank-timeout``).
DEFAULT_TIMEOUT_S = 300.0


#: Where each launcher puts (rank, world size, local rank, local world size): torchrun's names
#: first, then those of the MPI launchers ``accelerate launch --cpu`` goes through.
_RANK_VARIABLES = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"),
)


class RankError(MmmuEvalError):
    """Another rank failed or went silent; this rank stopped, its shard kept for a rerun."""


@dataclass(frozen=True)
class Launch:
    """This process's place among the ranks, as the launcher's environment says."""

    rank: int
    """0-based, over all nodes (``RANK``)."""
    world_size: int
    """Processes over all nodes (``WORLD_SIZE``)."""
    local_rank: int
    """0-based on this node (``LOCAL_RANK``): which of this node's devices is this rank's."""
    local_world_size: int
    """Processes on this node (``LOCAL_WORLD_SIZE``; the world size when the launcher omits it)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Launch | None:
        """The launch this process is part of; None when no launcher started it (or one process).

        torchrun, and ``accelerate launch`` on GPUs (``--multi_gpu``), set ``RANK`` /
        ``WORLD_SIZE`` / ``LOCAL_RANK``; ``accelerate launch --cpu`` over several processes
        starts them with ``mpirun`` (``--mpirun_hostfile``), which sets only its own variables
        (Open MPI's ``OMPI_COMM_WORLD_*``, MPICH's and Intel MPI's ``PMI_*``, MVAPICH's
        ``MV2_COMM_WORLD_*``) beside accelerate's ``MASTER_ADDR`` / ``MASTER_PORT``: read as the same.

        Raises:
            ConfigError: the variables are there but unreadable or inconsistent.
        """
        env = os.environ if env is None else env
        names = next((n for n in _RANK_VARIABLES if n[0] in env or n[1] in env), None)
        if names is None:
            return None
        rank_name, world_name, local_name, local_world_name = names
        try:
            world = int(env.get(world_name, "1"))
            rank = int(env.get(rank_name, "0"))
            local = int(env.get(local_name, str(rank)))
            local_world = int(env.get(local_world_name, str(world)))
        except ValueError as exc:
            raise ConfigError(f"the launcher's {rank_name} / {world_name} / {local_name} are not whole numbers ({exc})") from None
        if world <= 1:
            return None
        if not (0 <= rank < world and 0 <= local < local_world):
            raise ConfigError(f"the launcher says {rank_name}={rank}, {world_name}={world}, {local_name}={local}: out of range")
        return cls(rank, world, local, local_world)

    @property
    def shard(self) -> tuple[int, int]:
        """This rank's ``--shard K/N``: rank r evaluates shard r+1 of the world size."""
        return self.rank + 1, self.world_size

    @property
    def name(self) -> str:
        return f"rank {self.rank} of {self.world_size}"


class RankGroup:
    """The ranks of one launch, meeting in the launcher's store; see the module docstring."""

    def __init__(self, launch: Launch, store: Any, *, timeout: float = DEFAULT_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Use ``join``; tests pass a store of their own (anything with torch's Store methods)."""
        if timeout <= 0:
            raise ConfigError(f"--rank-timeout {timeout:g}: must be more than 0 seconds")
        self.launch = launch
        self.timeout = float(timeout)
        self.interval = min(2.0, self.timeout / 5)
        self._store = store
        self._lock = threading.Lock()  # one store client, shared by the beat thread and the caller
        self._clock = clock
        self._seen: dict[int, tuple[int, float]] = {}  # rank -> (its beat count, when it last changed)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watching = False
        self._passed = False
        self.problem: str | None = None
        """Why ``watch`` interrupted this rank (another rank failed or went silent); None until then."""
        self.posted: str | None = None
        """What this rank posted (``done`` or ``failed``); None while it works."""

    @classmethod
    def join(cls, launch: Launch, *, timeout: float = DEFAULT_TIMEOUT_S) -> RankGroup:
        """Meet the other ranks in the launcher's store (``env://``: torchrun's agent store, or one
        rank 0 hosts), under a namespace of this mmmu-eval launch.

        Raises:
            ConfigError: torch is missing, or the store cannot be reached within ``timeout``.
        """
        try:
            import torch.distributed as dist
        except ImportError:
            raise ConfigError("a distributed run (torchrun / accelerate launch) needs torch: pip install 'mmmu-eval[hf]'") from None
        try:
            store, _, _ = next(dist.rendezvous("env://", rank=launch.rank, world_size=launch.world_size,
                                               timeout=timedelta(seconds=timeout)))
        except (RuntimeError, ValueError) as exc:  # DistStoreError, a missing MASTER_ADDR
            raise ConfigError(f"{launch.name}: cannot reach the launcher's store ({exc})") from None
        attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
        return cls(launch, dist.PrefixStore(f"mmmu-eval/{attempt}/", store), timeout=timeout)

    # -- posting ----------------------------------------------------------------------------

    def beat(self) -> None:
        """One sign of life."""
        with self._lock:
            self._store.add(f"beat/{self.launch.rank}", 1)

    def post(self, status: str, message: str = "") -> None:
        """Say how this rank ended: ``done`` or ``failed`` (with the error)."""
        value = json.dumps({"status": status, "message": message})
        self.posted = status
        try:
            with self._lock:
                self._store.set(f"status/{self.launch.rank}", value)
        except Exception as exc:  # the store is gone (rank 0's process hosted it): nobody to tell
            log.warning("%s: could not post %r to the other ranks (%s)", self.launch.name, status, exc)

    def announce(self, key: str, value: str) -> None:
        """Rank 0 tells every rank something they wait for (``wait_for``): what it prepared for them."""
        with self._lock:
            self._store.set(f"announced/{key}", value)

    def wait_for(self, key: str, *, poll: float = 0.25) -> str:
        """What rank 0 announced under ``key``, once it has.

        Raises:
            RankError: a rank failed or went silent first (rank 0 failing in what it prepares
                included), or the store is gone.
        """
        while True:
            try:
                with self._lock:
                    if self._store.check([f"announced/{key}"]):
                        return self._store.get(f"announced/{key}").decode("utf-8")
                self.check()
            except RankError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise RankError(self._store_gone(exc)) from None
            time.sleep(poll)

    # -- watching ---------------------------------------------------------------------------

    def watch(self, interrupt: Callable[[], None]) -> None:
        """Beat in a background thread until ``close``; call ``interrupt`` once, with ``problem``
        set, when another rank failed or went silent."""
        def loop() -> None:
            while not self._stop.wait(self.interval):
                try:
                    self.beat()
                    if self._watching:
                        self.check()
                except Exception as exc:  # noqa: BLE001 - RankError, or the store itself went away
                    if self._watching:  # not once the caller waits in wait_for_all: it raises there
                        self.problem = str(exc) if isinstance(exc, RankError) else self._store_gone(exc)
                        interrupt()
                    return

        self.beat()
        self._watching = True
        self._thread = threading.Thread(target=loop, name="mmmu-eval-ranks", daemon=True)
        self._thread.start()

    def leave(self, *, poll: float = 0.1) -> None:
        """Rank 0's last step: stay until the others have read what they need from the store,
        which may live in rank 0's own process (without torchrun's agent): every rank past the
        barrier when this one passed it, else every rank's status posted (a few beats at most)."""
        if self.launch.rank != 0:
            return
        deadline = self._clock() + (self.timeout if self._passed else 3 * self.interval + 1)
        keys = [f"status/{r}" for r in range(self.launch.world_size)]
        try:
            while self._clock() < deadline:
                with self._lock:
                    settled = (self._store.add("passed", 0) >= self.launch.world_size if self._passed
                               else self._store.check(keys))
                if settled:
                    return
                time.sleep(poll)
        except Exception:  # noqa: BLE001 - nothing left to wait for
            return

    def close(self) -> None:
        """Stop beating and watching (the process is about to exit)."""
        self._watching = False
        self._stop.set()

    def wait_for_all(self, *, poll: float = 0.25) -> None:
        """Return once every rank posted ``done``.

        Raises:
            RankError: naming the rank, as soon as one posted ``failed``, or once one has been
                silent for ``timeout`` seconds; also when the store itself is gone.
        """
        self._watching = False  # the beat goes on; the checks are this loop's now (no interrupt mid-wait)
        while True:
            try:
                if self.check():
                    with self._lock:
                        self._store.add("passed", 1)
                    self._passed = True
                    return
            except RankError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise RankError(self._store_gone(exc)) from None
            time.sleep(poll)

    def check(self) -> bool:
        """Whether every other rank posted ``done``; RankError for one that failed or is silent."""
        now = self._clock()
        finished = True
        for rank in range(self.launch.world_size):
            if rank == self.launch.rank:
                continue
            with self._lock:
                posted = self._store.check([f"status/{rank}"])
                raw = self._store.get(f"status/{rank}") if posted else None
                beats = None if posted else self._store.add(f"beat/{rank}", 0)
            if raw is not None:
                status = json.loads(raw)
                if status.get("status") == "failed":
                    raise RankError(f"rank {rank} of {self.launch.world_size} failed: {status.get('message') or 'no message'}")
                continue
            finished = False
            last = self._seen.get(rank)
            if last is None or last[0] != beats:
                self._seen[rank] = (int(beats), now)
            elif now - last[1] > self.timeout:
                what = "never started" if not beats else "stopped answering"
                raise RankError(
                    f"rank {rank} of {self.launch.world_size} {what}: no sign of life for {self.timeout:g} s "
                    "(killed, out of memory, or its node is gone)"
                )
        return finished

    def _store_gone(self, exc: BaseException) -> str:
        return (f"the launcher's store is gone ({type(exc).__name__}: {exc}); rank 0 or the launcher on the "
                "first node stopped")
