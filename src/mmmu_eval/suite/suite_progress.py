"""One progress display for a suite: a row per run and a total, as ``run`` has for one run.

The runner talks to a ``Display`` (``start``, ``advance``, ``stop``); ``SuiteDisplay.run(name)``
hands each run its own, and they all feed one rich view (a bar per run plus ``all runs``); in a
Jupyter notebook one output of the cell with a line per run, replaced in place; or, when the
console is neither, plain lines: each run's start and end, and the total's at the pace of
``run/progress_out.Pace`` (each tenth of the items, otherwise at most one a minute). Runs ask at the same time, so the total's rate is what the server sees.
Items a resumed run already had are shown as done but do not count in the rates.

>>> display = SuiteDisplay(Console(stderr=True))
>>> display.open(["standard-10-direct", "vision-direct"])
>>> runner_display = display.run("vision-direct")   # what evaluate_async is given
>>> display.close()
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

from rich.console import Console
from rich.progress import Progress, TaskID

from mmmu_eval.run.progress import Display, progress_bar, session_rate, status_text, terminal
from mmmu_eval.run.progress_out import EVERY_S, IN_PLACE_EVERY_S, SHARE, Pace, notebook_output
from mmmu_eval.core.records import Response

__all__ = ["SuiteDisplay"]

TOTAL = "all runs"


@dataclass
class _Row:
    """Counts of one run (or of the total) and when it began asking."""

    total: int = 0
    done: int = 0
    errors: int = 0
    retries: int = 0
    done_before: int = 0
    started: float | None = None
    finished: bool = False

    def rate(self, now: float) -> float | None:
        return session_rate(self.done, self.done_before, now - self.started if self.started is not None else 0.0)

    def eta(self, now: float) -> float | None:
        rate = self.rate(now)
        return (self.total - self.done) / rate if rate else None

    def line(self, now: float) -> str:
        return status_text(self.done, self.total, self.rate(now), self.errors, self.eta(now), self.retries)


class _RunDisplay:
    """The Display one run's runner gets; it reports into the suite's view."""

    def __init__(self, suite: "SuiteDisplay", name: str) -> None:
        self.suite, self.name = suite, name

    def start(self, total: int, done: int = 0, errors: int = 0) -> None:
        self.suite._start(self.name, total, done, errors)

    def advance(self, response: Response) -> None:
        self.suite._advance(self.name, response.status == "error", max(response.attempts - 1, 0))

    def stop(self) -> None:
        self.suite._stop(self.name)


class SuiteDisplay:
    """A rich view with a bar per run and a total on a terminal, one output replaced in place in
    a notebook, plain lines otherwise."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        plain: bool | None = None,
        every_s: float = EVERY_S,
        every_share: float = SHARE,
        in_place: Callable[[str], None] | None = None,
    ) -> None:
        """
        Args:
            console: where to draw; default a stderr console.
            clock: seconds, monotonic (tests pass their own).
            plain: force plain lines (True) or the bars (False); None asks the console (and, in
                a Jupyter notebook, updates one output in place).
            every_s: the most seconds between two plain total lines (run starts and ends are
                always printed).
            every_share: a plain total line each time this share of all runs' items is done.
            in_place: a function that replaces one output with the text given; None: the notebook's when the
                console is one and ``plain`` is None.
        """
        self.console, self.plain = terminal(console, plain)
        self.in_place = in_place if in_place is not None or plain is not None else notebook_output(self.console)
        if self.in_place is not None:
            self.plain = False
        self.clock = clock
        self.every_s = every_s
        self._pace = Pace(every_s, every_share)
        self._shown_at: float | None = None
        self.rows: dict[str, _Row] = {}
        self.all = _Row()
        self._bar: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    # -- the suite's calls --------------------------------------------------------------------

    def open(self, names: Sequence[str]) -> None:
        """Show a row for each run, in this order, before any of them starts."""
        self.rows = {name: _Row() for name in names}
        if self.in_place is not None:
            self._show()
            return
        if self.plain:
            return
        self._bar = progress_bar(self.console, self.clock, "{task.fields[status]}")
        for name in [*names, TOTAL]:
            self._tasks[name] = self._bar.add_task(name, total=None, status="waiting")
        self._bar.start()

    def run(self, name: str) -> Display:
        """The display to give the runner of run ``name``."""
        self.rows.setdefault(name, _Row())
        return _RunDisplay(self, name)

    def close(self) -> None:
        """The suite ended (finished, interrupted or failed)."""
        if self._bar is not None:
            self._refresh_all()
            self._bar.stop()
            self._bar = None
        elif self.in_place is not None:
            self._show()
        elif self.plain and self.all.started is not None:
            self._print(f"all runs: {self.all.line(self.clock())}")

    def __enter__(self) -> "SuiteDisplay":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the runs report -----------------------------------------------------------------

    def _start(self, name: str, total: int, done: int, errors: int) -> None:
        now = self.clock()
        row = self.rows.setdefault(name, _Row())
        row.total, row.done, row.errors, row.done_before, row.started = total, done, errors, done, now
        self.all.total += total
        self.all.done += done
        self.all.errors += errors
        self.all.done_before += done
        if self.all.started is None:
            self.all.started = now
        if self.in_place is not None:
            self._show()
        elif self.plain:
            self._print(f"{name}: {row.line(now)}")
        else:
            self._refresh(name)

    def _advance(self, name: str, error: bool, retries: int = 0) -> None:
        row = self.rows[name]
        for counts in (row, self.all):
            counts.done += 1
            counts.errors += int(error)
            counts.retries += retries
        if self._bar is not None:
            self._refresh(name)
        elif self.in_place is not None:
            if self._shown_at is None or self.clock() - self._shown_at >= IN_PLACE_EVERY_S:
                self._show()
        elif self.plain and self._pace.due(self.clock(), self.all.done, self.all.total):
            self._pace.mark(self.clock(), self.all.done)
            self._print(f"all runs: {self.all.line(self.clock())}")

    def _stop(self, name: str) -> None:
        row = self.rows[name]
        row.finished = True
        if self.in_place is not None:
            self._show()
        elif self.plain:
            self._print(f"{name}: finished, {row.line(self.clock())}")
        else:
            self._refresh(name)

    # -- drawing ------------------------------------------------------------------------------

    def _refresh(self, name: str) -> None:
        if self._bar is None:
            return
        now = self.clock()
        row = self.rows[name]
        status = ("finished · " if row.finished else "") + _fields(row, now)
        self._bar.update(self._tasks[name], total=row.total, completed=row.done, status=status)
        self._refresh_all()

    def _refresh_all(self) -> None:
        if self._bar is None or self.all.started is None:
            return
        self._bar.update(self._tasks[TOTAL], total=self.all.total, completed=self.all.done,
                         status=_fields(self.all, self.clock()))

    def _print(self, text: str) -> None:
        self.console.print(text, highlight=False, soft_wrap=True)

    def _show(self) -> None:
        """The notebook's output: a line per run, then the total."""
        assert self.in_place is not None
        now = self._shown_at = self.clock()
        lines = []
        for name, row in self.rows.items():
            state = "waiting" if row.started is None else ("finished, " if row.finished else "") + row.line(now)
            lines.append(f"{name}: {state}")
        if self.all.started is not None:
            lines.append(f"{TOTAL}: {self.all.line(now)}")
        self.in_place("\n".join(lines))


def _fields(row: _Row, now: float) -> str:
    """``4.2 items/s · 2 errors · ETA 3m05s`` (the bar shows done/total itself)."""
    return status_text(row.done, row.total, row.rate(now), row.errors, row.eta(now), row.retries).split(" · ", 1)[1]
