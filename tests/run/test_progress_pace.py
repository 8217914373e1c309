"""The progress display without a bar: plain lines at a steady pace, one notebook output in place.

It printed a plain line every 10 s for as long as a run lasted (about 360 an hour), each its own
output in a notebook. Now a log gets a line per tenth of the items and otherwise at most one a
minute, and a notebook one output replaced at most once a second.
"""

from __future__ import annotations

import io
import sys

from rich.console import Console

from mmmu_eval.core.records import Response
from mmmu_eval.run.progress import ProgressDisplay
from mmmu_eval.run.progress_out import InPlace, notebook_output
from mmmu_eval.suite.suite_progress import SuiteDisplay


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    """A notebook output that remembers each text it was given."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, text: str) -> None:
        self.shown.append(text)


def _run(display: ProgressDisplay, clock: Clock, items: int, seconds_each: float) -> None:
    display.start(total=items)
    for k in range(items):
        clock.now += seconds_each
        display.advance(Response(f"i{k}", "ok", text="A"))
    display.stop()


def _plain(items: int, seconds_each: float) -> list[str]:
    out, clock = io.StringIO(), Clock()
    _run(ProgressDisplay(Console(file=out, width=200), clock=clock, plain=True), clock, items, seconds_each)
    return out.getvalue().splitlines()


def test_a_slow_run_in_a_log_writes_about_a_line_a_minute():
    lines = _plain(900, 10.0)  # 2.5 hours: every 10 s a line was 900 lines
    assert 140 <= len(lines) <= 160
    assert lines[0].startswith("done 0/900") and lines[-1].startswith("done 900/900 (100%)")


def test_a_fast_run_in_a_log_writes_a_line_per_tenth():
    lines = _plain(900, 0.01)
    assert [line.split(" (")[0] for line in lines] == [f"done {n}/900" for n in range(0, 901, 90)] + ["done 900/900"]


def test_in_a_notebook_one_output_is_replaced_at_most_once_a_second():
    out, clock, shown = io.StringIO(), Clock(), Recorder()
    display = ProgressDisplay(Console(file=out, width=200), clock=clock, in_place=shown.show)
    _run(display, clock, 900, 0.1)  # 90 s
    assert out.getvalue() == ""  # nothing printed as lines
    assert 85 <= len(shown.shown) <= 95
    assert shown.shown[0] == "items: done 0/900 (0%) · - items/s · 0 errors · ETA ?"
    assert shown.shown[-1].startswith("items: done 900/900 (100%) · 10.0 items/s")


def test_a_notebook_console_gets_the_in_place_output_unless_plain_lines_are_asked_for():
    from fakes import required

    required.module("IPython.display", "a notebook's in-place output is IPython's display handle (ipykernel, test extra)")
    notebook = Console(file=io.StringIO(), force_jupyter=True)
    assert isinstance(notebook_output(notebook).__self__, InPlace)
    assert notebook_output(Console(file=io.StringIO(), force_jupyter=False)) is None
    assert isinstance(ProgressDisplay(notebook).in_place.__self__, InPlace)
    assert ProgressDisplay(notebook, plain=True).in_place is None
    assert isinstance(SuiteDisplay(notebook).in_place.__self__, InPlace)


def test_a_notebook_console_without_ipython_gets_no_in_place_output(monkeypatch):
    """rich can be told it writes into a notebook (``force_jupyter``) where IPython cannot be
    imported: the display then draws as anywhere else rather than failing on the import."""
    monkeypatch.setitem(sys.modules, "IPython", None)  # `import IPython.display` raises ImportError
    monkeypatch.setitem(sys.modules, "IPython.display", None)
    notebook = Console(file=io.StringIO(), force_jupyter=True)
    assert notebook_output(notebook) is None
    assert ProgressDisplay(notebook).in_place is None and SuiteDisplay(notebook).in_place is None


def test_a_suite_in_a_notebook_shows_a_line_per_run_in_one_output():
    clock, shown = Clock(), Recorder()
    display = SuiteDisplay(Console(file=io.StringIO()), clock=clock, in_place=shown.show)
    display.open(["standard-10-direct", "vision-direct"])
    assert shown.shown[-1] == "standard-10-direct: waiting\nvision-direct: waiting"
    run = display.run("standard-10-direct")
    run.start(total=4)
    for k in range(4):
        clock.now += 2.0
        run.advance(Response(f"a{k}", "ok", text="A"))
    run.stop()
    display.close()
    assert shown.shown[-1].splitlines() == [
        "standard-10-direct: finished, done 4/4 (100%) · 0.5 items/s · 0 errors · ETA 0s",
        "vision-direct: waiting",
        "all runs: done 4/4 (100%) · 0.5 items/s · 0 errors · ETA 0s",
    ]
