"""The live progress display of a run: done / total, items per second, errors, ETA.

One display object the runner talks to through three calls (``start``, ``advance``, ``stop``),
so that it can be swapped: a rich progress bar when the console is a terminal; in a Jupyter
notebook one output of the cell replaced in place; plain log-like lines when it is neither (CI
logs, ``| tee``), one each tenth of the items and otherwise at most one a minute
(``progress_out.py``); or nothing (``NullDisplay``). The console, the clock and the notebook
output are parameters, so tests render into a string with a clock they move.

Rates count only this session's answers: items skipped because a resumed run already had them
are shown as done but do not inflate items per second or shorten the ETA.

>>> display = ProgressDisplay(Console(stderr=True))
>>> display.start(total=900, done=120, errors=0)
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Protocol

from rich.console import Console

from mmmu_eval.core.records import Response
from mmmu_eval.core.untrusted import make_console
from mmmu_eval.run.progress_out import EVERY_S, IN_PLACE_EVERY_S, SHARE, Pace, notebook_output

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["Display", "NullDisplay", "ProgressDisplay", "format_duration", "progress_bar", "session_rate", "status_text",
           "terminal"]


class Display(Protocol):
    """What the runner calls."""

    def start(self, total: int, done: int = 0, errors: int = 0) -> None:
        """``total`` items in the run, ``done`` of them already answered (``errors`` of those failed)."""
        ...

    def advance(self, response: Response) -> None:
        """One more item finished."""
        ...

    def stop(self) -> None:
        """The run ended (finished, interrupted or failed)."""
        ...


class NullDisplay:
    """Shows nothing (``display=None`` in the runner means this)."""

    def start(self, total: int, done: int = 0, errors: int = 0) -> None:
        return None

    def advance(self, response: Response) -> None:
        return None

    def stop(self) -> None:
        return None


def format_duration(seconds: float | None) -> str:
    """``1h02m``, ``3m05s``, ``42s``; ``?`` when unknown."""
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def session_rate(done: int, done_before: int, elapsed_s: float) -> float | None:
    """Items per second answered in this session (``done_before`` were there already); None before one."""
    new = done - done_before
    return new / elapsed_s if new > 0 and elapsed_s > 0 else None


def status_text(done: int, total: int, rate: float | None, errors: int, eta_s: float | None, retries: int = 0) -> str:
    """``done 120/900 (13%) · 4.2 items/s · 2 errors · 5 retries · ETA 3m05s`` (one run's, or a suite's).

    Retries are counted, not logged one by one (``-v`` logs each): a retry line printed under a
    live bar broke it, and a run at 30% faults left a bar in the scrollback per retry.
    """
    pct = 100.0 * done / total if total else 100.0
    rate_text = f"{rate:.1f} items/s" if rate is not None else "- items/s"
    return (
        f"done {done}/{total} ({pct:.0f}%) · {rate_text} · "
        f"{errors} error{'s' if errors != 1 else ''} · {retries_text(retries)}ETA {format_duration(eta_s)}"
    )


def retries_text(retries: int) -> str:
    """``5 retries · `` for the progress line; empty while there are none."""
    return f"{retries} retr{'ies' if retries != 1 else 'y'} · " if retries else ""


def terminal(console: Console | None, plain: bool | None) -> tuple[Console, bool]:
    """Where a display draws (default a stderr console) and whether it prints plain lines
    there: as ``plain`` says, or, when None, whenever the console is not a terminal (a log file,
    CI). The run's display and the suite's decide it here."""
    console = console or make_console(stderr=True)
    return console, (not console.is_terminal) if plain is None else plain


def progress_bar(console: Console, clock: Callable[[], float], status: str) -> Progress:
    """The rich bar a run and a suite both show on a terminal: a bold label, the bar, done of
    total, then ``status`` (a rich column template over the task's fields). It stays on screen
    when finished. rich.progress is imported here, on a terminal only."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(status),
        console=console,
        get_time=clock,
        transient=False,
    )


class ProgressDisplay:
    """A rich bar on a terminal, one output updated in place in a notebook, plain lines otherwise."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        plain: bool | None = None,
        every_s: float = EVERY_S,
        every_share: float = SHARE,
        label: str = "items",
        in_place: Callable[[str], None] | None = None,
    ) -> None:
        """
        Args:
            console: where to draw; default a stderr console.
            clock: seconds, monotonic (tests pass their own).
            plain: force plain lines (True) or the bar (False); None asks the console (and, in
                a Jupyter notebook, updates one output in place).
            every_s: the most seconds between two plain lines (the first and last are always printed).
            every_share: a plain line each time this share of the items is done.
            label: what the bar calls the work.
            in_place: a function that replaces one output with the text given (a notebook's:
                ``progress_out.InPlace().show``);
                None: the notebook's when the console is one and ``plain`` is None.
        """
        self.console, self.plain = terminal(console, plain)
        self.in_place = in_place if in_place is not None or plain is not None else notebook_output(self.console)
        if self.in_place is not None:
            self.plain = False
        self.clock = clock
        self.every_s = every_s
        self.label = label
        self._pace = Pace(every_s, every_share)
        self._shown_at: float | None = None
        self.total = 0
        self.done = 0
        self.errors = 0
        self.retries = 0
        """Attempts past the first of the responses finished in this session."""
        self._done_before = 0
        self._started = 0.0
        self._bar: Progress | None = None
        self._task: int | None = None

    # -- figures ------------------------------------------------------------------------------

    @property
    def rate(self) -> float | None:
        """Items per second answered in this session; None before the first one."""
        return session_rate(self.done, self._done_before, self.clock() - self._started)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the current rate; None while unknown."""
        rate = self.rate
        return (self.total - self.done) / rate if rate else None

    def status_line(self) -> str:
        """``done 120/900 (13%) · 4.2 items/s · 2 errors · ETA 3m05s``"""
        return status_text(self.done, self.total, self.rate, self.errors, self.eta_s, self.retries)

    # -- the three calls ----------------------------------------------------------------------

    def start(self, total: int, done: int = 0, errors: int = 0) -> None:
        self.total, self.done, self.errors = total, done, errors
        self._done_before = done
        self._started = self.clock()
        if self.in_place is not None:
            self._show()
            return
        if self.plain:
            self._line()
            return
        self._bar = progress_bar(self.console, self.clock,
                                 "{task.fields[rate]} · [red]{task.fields[errors]}[/red] · [yellow]{task.fields[retries]}"
                                 "[/yellow]ETA {task.fields[eta]}")
        self._task = self._bar.add_task(self.label, total=total, completed=done, **self._fields())
        self._bar.start()

    def advance(self, response: Response) -> None:
        self.done += 1
        self.retries += max(response.attempts - 1, 0)
        if response.status == "error":
            self.errors += 1
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, **self._fields())
        elif self.in_place is not None:
            if self._shown_at is None or self.clock() - self._shown_at >= IN_PLACE_EVERY_S:
                self._show()
        elif self.plain and self._pace.due(self.clock(), self.done, self.total):
            self._line()

    def stop(self) -> None:
        if self._bar is not None:
            if self._task is not None:
                self._bar.update(self._task, completed=self.done, **self._fields())
            self._bar.stop()
            self._bar = None
        elif self.in_place is not None:
            self._show()
        elif self.plain:
            self._line()

    def _fields(self) -> dict[str, str]:
        rate = self.rate
        return {
            "rate": f"{rate:.1f} items/s" if rate is not None else "- items/s",
            "errors": f"{self.errors} error{'s' if self.errors != 1 else ''}",
            "retries": retries_text(self.retries),
            "eta": format_duration(self.eta_s),
        }

    def _line(self) -> None:
        self._pace.mark(self.clock(), self.done)
        self.console.print(self.status_line(), highlight=False, soft_wrap=True)

    def _show(self) -> None:
        assert self.in_place is not None
        self._shown_at = self.clock()
        self.in_place(f"{self.label}: {self.status_line()}")
