"""The ranks of a ``torchrun`` / ``accelerate launch`` run: who this process is, and how the
ranks learn that the others finished, failed or vanished.

A launcher starts one process per device with ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` set
(``Launch.from_env``). The ranks meet in the launcher's own key-value store (torch.distributed's
``env://`` rendezvous: ``MASTER_ADDR`` / ``MASTER_PORT``, or torchrun's agent store), and
``RankGroup`` is a barrier over it with a timeout that measures silence, not duration:

- every rank beats every few seconds from a background thread, while it loads its model,
  answers its shard and merges: ``alive/K`` counts that its process runs, ``beat/K`` that its
  work advances (``run/rank_progress.py``: its main thread computed, moved on, or waits in the
  event loop for worker threads), and ``where/K`` says where a main thread that stopped
  advancing stands;
- a rank that ends posts its status: ``done``, or ``failed`` with its error;
- ``wait_for_all`` returns once every rank posted ``done``; it raises ``RankError`` naming the
  rank as soon as one posts ``failed``, or once one has made no progress for ``timeout`` seconds
  (killed, out of memory, its node gone: "stopped answering"; its process alive but its main
  thread stuck in a C call or a sleep: "made no progress"), so no rank ever waits forever;
- ``watch`` runs the same checks while this rank is still working, and interrupts it (as Ctrl-C
  does: what it stored stays valid) when another rank failed, so one rank's error stops all;
- each rank posts its host and pid (``member/K``), so a rank the launcher stops (SIGTERM, after
  a worker died) can name the one whose process is gone (``gone``).

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
import socket
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping

from mmmu_eval.core.errors import ConfigError, MmmuEvalError, argument
from mmmu_eval.run.rank_progress import MainProgress, process_runs

__all__ = ["DEFAULT_TIMEOUT_S", "Launch", "RankError", "RankGroup"]

log = logging.getLogger(__name__)

#: Seconds a rank may go without a sign of life before the others stop (``--rank-timeout``).
DEFAULT_TIMEOUT_S = 300.0

#: Seconds ``RankGroup.close`` waits for the beat thread to leave its store call (one call: a
#: gone store fails at once, a live one answers in milliseconds).
CLOSE_WAIT_S = 10.0


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
            raise ConfigError(f"{argument('rank_timeout')} {timeout:g}: must be more than 0 seconds")
        self.launch = launch
        self.timeout = float(timeout)
        self.interval = min(2.0, self.timeout / 5)
        self._store = store
        self._lock = threading.Lock()  # one store client, shared by the beat thread and the caller
        self._clock = clock
        self._seen: dict[int, tuple[int, float]] = {}  # rank -> (its beat count, when it last changed)
        self._seen_alive: dict[int, tuple[int, float]] = {}  # rank -> (its alive count, when it last changed)
        self.progress = MainProgress()
        """This rank's main thread (the one that made the group), as the beat sees it."""
        self._stalled_since: float | None = None
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
        group = cls(launch, dist.PrefixStore(f"mmmu-eval/{attempt}/", store), timeout=timeout)
        group.introduce()
        return group

    # -- posting ----------------------------------------------------------------------------

    def introduce(self) -> None:
        """Post this rank's host and pid, for ``gone``."""
        with self._lock:
            self._store.set(f"member/{self.launch.rank}", json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))

    def beat(self, *, progress: bool = True) -> None:
        """One sign of life; with ``progress``, also one of the work advancing."""
        with self._lock:
            self._store.add(f"alive/{self.launch.rank}", 1)
            if progress:
                self._store.add(f"beat/{self.launch.rank}", 1)

    def post(self, status: str, message: str = "", **facts: Any) -> None:
        """Say how this rank ended: ``done`` or ``failed`` (with the error), and ``facts`` the
        others may read (``statuses``: what it asked, say)."""
        value = json.dumps({**facts, "status": status, "message": message})
        self.posted = status
        try:
            with self._lock:
                self._store.set(f"status/{self.launch.rank}", value)
        except Exception as exc:  # the store is gone (rank 0's process hosted it): nobody to tell
            log.warning("%s: could not post %r to the other ranks (%s)", self.launch.name, status, exc)

    def statuses(self) -> dict[int, dict[str, Any]]:
        """What each rank posted (``post``), by rank; a rank that posted nothing is left out."""
        out: dict[int, dict[str, Any]] = {}
        for rank in range(self.launch.world_size):
            with self._lock:
                key = f"status/{rank}"
                raw = self._store.get(key) if self._store.check([key]) else None
            if raw is not None:
                out[rank] = json.loads(raw)
        return out

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
            self.progress.tick()  # waiting for rank 0 is this rank's work now
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
                    self._beat_as_seen()
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

    def _beat_as_seen(self) -> None:
        """The beat thread's look at the main thread: a beat of progress if it advanced, else a
        beat of life and, once it has stood still for two intervals, where it stands."""
        if self.progress.advanced():
            self._stalled_since = None
            self.beat()
            return
        self.beat(progress=False)
        now = self._clock()
        if self._stalled_since is None:
            self._stalled_since = now
        elif now - self._stalled_since >= 2 * self.interval:
            with self._lock:
                self._store.set(f"where/{self.launch.rank}", self.progress.where()[:300])

    def leave(self, *, poll: float = 0.1, hurry: bool = False) -> None:
        """Rank 0's last step: stay until the others have read what they need from the store,
        which may live in rank 0's own process (without torchrun's agent): every rank past the
        barrier when this one passed it, else every rank's status posted (a few beats at most).

        Not at all when torchrun's agent holds the store (it outlives the ranks), nor with
        ``hurry`` (the launcher is stopping every rank: a rank whose process is gone posts nothing)."""
        if self.launch.rank != 0 or hurry or os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True":
            return
        deadline = self._clock() + (self.timeout if self._passed else 3 * self.interval + 1)
        keys = [f"status/{r}" for r in range(self.launch.world_size)]
        try:
            while self._clock() < deadline:
                self.progress.tick()
                with self._lock:
                    settled = (self._store.add("passed", 0) >= self.launch.world_size if self._passed
                               else self._store.check(keys))
                if settled:
                    return
                time.sleep(poll)
        except Exception:  # noqa: BLE001 - nothing left to wait for
            return

    def close(self, *, wait: float = CLOSE_WAIT_S) -> None:
        """Stop beating and watching, and wait (up to ``wait`` seconds) for the beat thread to end.

        The process is about to exit, and a daemon thread still inside a store call when the
        interpreter finalizes is torn down mid C++ frame: the process aborts ("terminate called
        without an active exception", SIGABRT) after its work was done and merged."""
        self._watching = False
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(wait)

    def wait_for_all(self, *, poll: float = 0.25) -> None:
        """Return once every rank posted ``done``.

        Raises:
            RankError: naming the rank, as soon as one posted ``failed``, or once one has been
                silent for ``timeout`` seconds; also when the store itself is gone.
        """
        self._watching = False  # the beat goes on; the checks are this loop's now (no interrupt mid-wait)
        while True:
            self.progress.tick()  # waiting for the others is this rank's work now
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
                alive = None if posted else self._store.add(f"alive/{rank}", 0)
            if raw is not None:
                status = json.loads(raw)
                if status.get("status") == "failed":
                    raise RankError(f"rank {rank} of {self.launch.world_size} failed: {status.get('message') or 'no message'}")
                continue
            finished = False
            stalled = self._still(self._seen, rank, int(beats), now)
            silent = self._still(self._seen_alive, rank, int(alive), now)
            if not stalled:
                continue
            name = f"rank {rank} of {self.launch.world_size}"
            if alive and not silent:
                raise RankError(f"{name} made no progress for {self.timeout:g} s: its process runs, but its main "
                                f"thread has not moved ({self._where(rank)}); stuck in a C call, a lock or a sleep?")
            what = "never started" if not beats and not alive else "stopped answering"
            raise RankError(f"{name} {what}: no sign of life for {self.timeout:g} s "
                            "(killed, out of memory, or its node is gone)")
        return finished

    def _still(self, seen: dict[int, tuple[int, float]], rank: int, count: int, now: float) -> bool:
        """Whether ``count`` (a rank's counter) has stayed the same for longer than the timeout."""
        last = seen.get(rank)
        if last is None or last[0] != count:
            seen[rank] = (count, now)
            return False
        return now - last[1] > self.timeout

    def _where(self, rank: int) -> str:
        with self._lock:
            key = f"where/{rank}"
            raw = self._store.get(key) if self._store.check([key]) else None
        return f"at {raw.decode('utf-8', 'replace')}" if raw else "where, it did not say"

    def gone(self) -> list[str]:
        """The ranks that ended without posting a status, as far as this host can tell: those on
        this host whose process no longer runs (killed, out of memory), named."""
        host, out = socket.gethostname(), []
        for rank in range(self.launch.world_size):
            if rank == self.launch.rank:
                continue
            try:
                with self._lock:
                    if self._store.check([f"status/{rank}"]) or not self._store.check([f"member/{rank}"]):
                        continue
                    member = json.loads(self._store.get(f"member/{rank}"))
            except Exception:  # noqa: BLE001 - the store is gone too: nothing to name
                return out
            if member.get("host") == host and not process_runs(int(member.get("pid", 0))):
                out.append(f"rank {rank} of {self.launch.world_size} (pid {member['pid']}) ended without a word")
        return out

    def _store_gone(self, exc: BaseException) -> str:
        return (f"the launcher's store is gone ({type(exc).__name__}: {exc}); rank 0 or the launcher on the "
                "first node stopped")
