"""Where a progress display writes when it draws no bar: plain lines at a steady pace, or one
notebook output replaced in place.

- **Plain lines** (a log file, CI, ``| tee``): a line when another tenth of the items is done,
  and otherwise at most one a minute, so an hour's run writes a few dozen lines, not one every
  ten seconds; the first and the last are always written (``Pace``).
- **A notebook** (a Jupyter kernel): one output of the cell, replaced as the run goes (IPython's
  display handle), at most once a second (``InPlace``), instead of a new output per line.

Both the run's display (``progress.py``) and the suite's (``suite/suite_progress.py``) use them.

>>> pace = Pace(every_s=60, share=0.1)
>>> pace.due(now=0.0, done=0, total=900)
True
>>> pace.mark(now=0.0, done=0); pace.due(now=30.0, done=50, total=900), pace.due(now=30.0, done=90, total=900)
(False, True)
"""

from __future__ import annotations

import math
from typing import Any, Callable

from rich.console import Console

__all__ = ["EVERY_S", "IN_PLACE_EVERY_S", "SHARE", "InPlace", "Output", "Pace", "notebook_output"]

#: Plain lines: the most seconds between two, when the items come slowly.
EVERY_S = 60.0
#: Plain lines: a line each time this share of the items is done.
SHARE = 0.1
#: A notebook's output: the fewest seconds between two updates.
IN_PLACE_EVERY_S = 1.0


class Pace:
    """When the next plain line is due: ``share`` more of the total done, or ``every_s`` gone."""

    def __init__(self, every_s: float = EVERY_S, share: float = SHARE) -> None:
        self.every_s = every_s
        self.share = share
        self._last: tuple[float, int] | None = None

    def due(self, now: float, done: int, total: int) -> bool:
        """Whether a line is due at ``now`` with ``done`` of ``total`` done (always before the first)."""
        if self._last is None:
            return True
        at, done_then = self._last
        step = max(1, math.ceil(self.share * total)) if total else 1
        return now - at >= self.every_s or done - done_then >= step

    def mark(self, now: float, done: int) -> None:
        """A line was written at ``now`` with ``done`` items done."""
        self._last = (now, done)


#: What a display is given to show its text in place: a function that replaces one output with
#: the text (``InPlace().show`` in a notebook, a test's recorder).
Output = Callable[[str], None]


class InPlace:
    """One output of the running notebook cell, replaced by each ``show`` (IPython's display
    handle: the first call displays, the later ones update that same output)."""

    def __init__(self) -> None:
        self._handle: Any = None

    def show(self, text: str) -> None:
        from IPython.display import display

        bundle = {"text/plain": text}
        if self._handle is None:
            self._handle = display(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)


def notebook_output(console: Console) -> Output | None:
    """An ``InPlace``'s ``show`` when ``console`` writes into a Jupyter notebook (rich's own test,
    and IPython importable); None anywhere else (a terminal, a file, a plain IPython shell)."""
    if not console.is_jupyter:
        return None
    try:
        import IPython.display  # noqa: F401
    except ImportError:
        return None
    return InPlace().show
