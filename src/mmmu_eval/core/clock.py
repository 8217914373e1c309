"""The time stamps the package records (layer L0: it imports nothing of ours).

A run's manifest (``started_at``, ``ended_at``), a rescored run's, ``suite.json`` and
``harden.json`` all stamp their times with ``utc_now``, so every file says a time the same way:
UTC, to the second, in ISO 8601 with its offset (``2026-12-01T22:38:50+00:00``).
"""

from __future__ import annotations

import datetime as _dt

__all__ = ["utc_now"]


def utc_now() -> str:
    """Now, in UTC, to the second: the time stamp of every file we write."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
