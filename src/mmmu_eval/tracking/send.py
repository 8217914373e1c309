"""Log a finished run or suite to every sink asked for; a failure warns and loses nothing.

Called after the outputs are written, from the files alone, so the run is complete on disk
whatever happens here. A sink that fails (a server down, a wrong URI, a refused key) gives one
warning line naming the sink and the run directory that holds everything, with the SDK's message
made safe for a terminal; the next sink is still tried, and the caller's result and exit status
are those of the run. What was logged and what was left out (void figures) is said at INFO on
this module's logger (``mmmu-eval`` prints it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mmmu_eval.tracking.log_record import Record
from mmmu_eval.tracking.log_to import LogTo

__all__ = ["log_run", "log_suite", "one_line"]

log = logging.getLogger(__name__)

#: Longest warning text shown of an SDK's message.
MESSAGE_CHARS = 300


def log_run(log_to: LogTo | None, run_dir: str | Path, *, kind: str = "run") -> list[str]:
    """Log the finished run in ``run_dir`` to each sink of ``log_to``; where each went (failures left out)."""
    from mmmu_eval.tracking.build import run_record

    if log_to is None:
        return []
    return _send(log_to, Path(run_dir), lambda: run_record(run_dir, log_to, kind=kind))


def log_suite(log_to: LogTo | None, suite_dir: str | Path, summary: Mapping[str, Any]) -> list[str]:
    """Log the finished suite in ``suite_dir`` (``summary``: its suite.json) to each sink of ``log_to``."""
    from mmmu_eval.tracking.build import suite_record

    if log_to is None:
        return []
    return _send(log_to, Path(suite_dir), lambda: suite_record(suite_dir, summary, log_to))


def _send(log_to: LogTo, directory: Path, build: Callable[[], Record]) -> list[str]:
    try:
        record = build()
    except Exception as exc:  # an unreadable directory: nothing to log, the run itself is as it was
        log.warning("not logged to %s: %s (everything is in %s)", " or ".join(log_to.sinks), one_line(exc), directory)
        return []
    if record.not_logged:
        log.info("not logged, as void or empty: %s", one_line(record.tags.get("mmmu_eval.not_logged", "")))
    done = []
    for sink in log_to.sinks:
        try:
            where = _SINKS[sink](record, log_to)
        except Exception as exc:
            log.warning("could not log to %s: %s (the run is kept in %s)", sink, one_line(exc), directory)
            continue
        log.info("logged to %s: %s", sink, one_line(where, limit=1000))
        done.append(where)
    return done


def _mlflow(record: Record, log_to: LogTo) -> str:
    from mmmu_eval.tracking.mlflow_sink import log_to_mlflow

    return log_to_mlflow(record, log_to)


def _wandb(record: Record, log_to: LogTo) -> str:
    from mmmu_eval.tracking.wandb_sink import log_to_wandb

    return log_to_wandb(record, log_to)


_SINKS: dict[str, Callable[[Record, LogTo], str]] = {"mlflow": _mlflow, "wandb": _wandb}


def one_line(value: object, *, limit: int = MESSAGE_CHARS) -> str:
    """An SDK's message (or an exception, named by its type) as one bounded line a terminal shows as
    text: whitespace runs become one space, other control characters their escape (``\\x1b``)."""
    text = f"{type(value).__name__}: {value}" if isinstance(value, BaseException) else str(value)
    text = " ".join(text.split())
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
