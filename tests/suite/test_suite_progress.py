"""One progress display for a suite: a row per run and the total, plain lines or rich bars."""

from __future__ import annotations

import io

from rich.console import Console

from mmmu_eval.core.records import Response
from mmmu_eval.suite.suite_progress import SuiteDisplay


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def render(plain: bool) -> tuple[str, Clock]:
    out = io.StringIO()
    clock = Clock()
    display = SuiteDisplay(Console(file=out, width=120, force_terminal=not plain), clock=clock, plain=plain, every_s=5)
    display.open(["standard-10-direct", "vision-direct"])
    a, b = display.run("standard-10-direct"), display.run("vision-direct")
    a.start(total=10, done=4, errors=1)  # a resumed run: 4 already answered, one of them failed
    b.start(total=6)
    for k in range(6):
        clock.now += 1.0
        a.advance(Response(f"a{k}", "ok", text="A"))
    for k in range(6):
        clock.now += 0.5
        b.advance(Response(f"b{k}", "error" if k == 0 else "ok", text="A"))
    a.stop()
    b.stop()
    display.close()
    return out.getvalue(), clock


def test_plain_lines_name_each_run_and_give_the_total_of_all_runs():
    text, _ = render(plain=True)
    lines = text.splitlines()
    assert lines[0] == "standard-10-direct: done 4/10 (40%) · - items/s · 1 error · ETA ?"
    assert lines[1] == "vision-direct: done 0/6 (0%) · - items/s · 0 errors · ETA ?"
    # Rates count this session's answers only: the total did 12 new items in 9 s.
    assert lines[-1] == "all runs: done 16/16 (100%) · 1.3 items/s · 2 errors · ETA 0s"
    assert "standard-10-direct: finished, done 10/10 (100%) · 0.7 items/s · 1 error · ETA 0s" in lines
    assert "vision-direct: finished, done 6/6 (100%) · 0.7 items/s · 1 error · ETA 0s" in lines  # 6 in 9 s
    assert any(line.startswith("all runs: done ") and "/16 " in line for line in lines[2:-1]), "a total line on the way"


def test_the_rich_view_has_a_bar_per_run_and_one_for_all_runs():
    text, _ = render(plain=False)
    final = text.split("\r")[-1] if "\r" in text else text
    for label in ("standard-10-direct", "vision-direct", "all runs"):
        assert label in final
    assert "16/16" in final and "finished" in final


def test_without_plain_the_console_decides_as_for_a_single_run():
    # A log file (CI) gets plain lines, a terminal the bars; the rule is the run display's.
    assert SuiteDisplay(Console(file=io.StringIO(), force_terminal=False)).plain is True
    assert SuiteDisplay(Console(file=io.StringIO(), force_terminal=True)).plain is False
