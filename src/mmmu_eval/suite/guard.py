"""What a suite checks before it asks anything, and what it leaves behind when a call stops early.

Issue 17: a bad ``--data`` or ``--mmmu-data`` was found by each run in turn (the MMMU one after
the six MMMU-Pro runs had run), one cause was printed once per run, and a call that ended early
left suite.json saying ``running``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError, MmmuEvalError, StoreError
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.suite.suite_config import SuiteConfig, SuiteRun

__all__ = ["check_suite_data", "log_failures", "settle_suite_file", "suite_file_before"]

log = logging.getLogger("mmmu_eval.suite.execute")

#: The suite's summary file (re-exported by ``suite.execute``).
SUITE_FILE = "suite.json"


def check_suite_data(config: SuiteConfig, runs: list[SuiteRun]) -> None:
    """Find every run's data files before anything is written or asked, naming the flag given.

    A missing directory or an absent config was found by each run in turn (once per run, the
    MMMU one after the six MMMU-Pro runs had run, under the name ``--data``). Only local data is
    looked at here: the hub is reached by the runs themselves.

    Raises:
        ConfigError: one line per bad flag.
    """
    from mmmu_eval.dataset.load import locate_files

    problems: list[str] = []
    for run in runs:
        c = run.config
        if c.data in ("hub", "sample"):
            continue
        try:
            locate_files(c.benchmark, split=c.resolved_split if c.benchmark == "mmmu" else None,
                         setting=c.resolved_setting, data=c.data, revision=c.revision, subjects=c.subjects)
        except (ConfigError, DataError) as exc:
            text = str(exc)
            if c.benchmark == "mmmu" and config.mmmu_data is not None:
                text = text.replace(f"--data {c.data}", f"--mmmu-data {c.data}")
            if text not in problems:
                problems.append(text)
    if problems:
        raise ConfigError("; ".join(problems))


def suite_file_before(out: Path) -> str | None:
    """suite.json as it was before this call (None: there was none), to put back if the call
    ends before the study is written."""
    try:
        return (out / SUITE_FILE).read_text(encoding="utf-8")
    except OSError:
        return None


def settle_suite_file(out: Path, before: str | None, *, status: str | None) -> None:
    """Leave no suite.json saying ``running`` when a call ends without writing the study.

    ``status`` None puts back what was there (or removes the new file, and the suite directory
    when nothing else is in it); otherwise the file says ``status`` (``interrupted``).
    """
    from mmmu_eval.core.jsonfile import read_json

    file = out / SUITE_FILE
    try:
        if status is not None:
            data = read_json(file)
            if isinstance(data, dict) and data.get("status") == "running":
                RunStore(out, writable=True).write_json(SUITE_FILE, {**data, "status": status})
        elif before is not None:
            RunStore(out, writable=True).write_text(SUITE_FILE, before)
        else:
            file.unlink(missing_ok=True)
            if out.is_dir() and not any(out.iterdir()):
                out.rmdir()
    except (OSError, ValueError, StoreError) as exc:  # never hide the error that ended the call
        log.debug("%s: could not settle %s: %s", out, SUITE_FILE, exc)


def log_failures(failures: Mapping[str, MmmuEvalError]) -> None:
    """One line per cause, naming the runs it stopped."""
    by_cause: dict[str, list[str]] = {}
    for name, exc in failures.items():
        by_cause.setdefault(str(exc), []).append(name)
    for cause, names in by_cause.items():
        log.error("%s: %s", ", ".join(names), cause)
