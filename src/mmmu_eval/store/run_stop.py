"""A run that stops on an exception says so in its manifest, instead of staying ``running``.

The runner stores an item's failure as that item's error and goes on; what it does not handle
(a backend's ``aclose`` raising, a bug in a plug-in or in the pipeline after the requests began,
a ``SystemExit`` from a model function, a disk that fills while results are written) ends the
evaluation. Before, the manifest kept ``status: "running"``, so ``report``, the doctor and a later
``--resume`` could not tell a dead run from a live one. ``record_stop`` writes ``failed`` with the
exception's type and message (bounded: it is outside text), or ``interrupted`` for Ctrl-C and a
cancellation, and the caller re-raises the exception unchanged. A failed run resumes as an
interrupted one does: the same command asks what lacks an answer.

``core.manifest.how_it_stopped`` is the one sentence every reader shows for such a run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from mmmu_eval.core.clock import utc_now
from mmmu_eval.store.rundir import RunStore

__all__ = ["FAILED", "failure_of", "record_stop", "stop_fields"]

log = logging.getLogger(__name__)

#: The manifest status of a run an unexpected exception stopped.
FAILED = "failed"
#: The most characters of the exception's message kept in the manifest.
MESSAGE_CHARACTERS = 1000


def failure_of(exc: BaseException) -> dict[str, str]:
    """The manifest's ``failure``: the exception's type and its message, bounded."""
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ in ("builtins", "asyncio.exceptions") else f"{kind.__module__}.{kind.__qualname__}"
    message = str(exc)
    if len(message) > MESSAGE_CHARACTERS:
        message = f"{message[:MESSAGE_CHARACTERS]} [... cut at {MESSAGE_CHARACTERS:,} of {len(message):,} characters]"
    return {"type": name, "message": message}


def stop_fields(exc: BaseException) -> dict[str, Any]:
    """How a piece of work that ``exc`` ended says so: ``status`` (``interrupted`` for Ctrl-C and a
    cancellation, else ``failed`` with its ``failure``) and ``ended_at``. A run's manifest and a
    harden step's section (``harden.outdir.mark_stopped``) both take these fields."""
    if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
        return {"status": "interrupted", "ended_at": utc_now()}
    return {"status": FAILED, "failure": failure_of(exc), "ended_at": utc_now()}


def record_stop(store: RunStore, exc: BaseException, counts: Mapping[str, int] | None = None) -> None:
    """Mark the run in ``store`` as stopped by ``exc``, when its manifest still says ``running``.

    A run already marked (``interrupted`` by the runner, ``complete`` once its files were
    written) keeps what it says. Never raises: the caller re-raises ``exc``, which must not be
    hidden behind a second failure while writing (a full disk, say); that one is logged.
    """
    try:
        if store.manifest().get("status") != "running":
            return
        stopped = stop_fields(exc)
        if counts is not None:
            stopped["counts"] = dict(counts)
        store.update_manifest(**stopped)
    except Exception as second:  # the first exception is the one the caller sees
        log.warning("%s: could not record in manifest.json how the run stopped (%s)", store.path, second)
