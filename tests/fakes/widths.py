"""Render a terminal printer at a given width and check that a narrow terminal loses no figure.

A figure is any run of digits (with its sign, decimals and percent sign). At 80 columns every
figure printed at 200 must still be printed, as often or more (a vertical layout repeats its
headings), no line may be wider than the console, and nothing may be cut with an ellipsis.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from rich.console import Console

_FIGURE = re.compile(r"[-+−]?\d+(?:[.,]\d+)*%?")


def render(printer: Callable[[Console], None], width: int) -> str:
    """What ``printer`` prints on a plain console ``width`` columns wide."""
    console = Console(record=True, width=width, color_system=None, force_terminal=False, highlight=False)
    printer(console)
    return console.export_text()


def figures(text: str) -> Counter[str]:
    return Counter(_FIGURE.findall(text))


def assert_readable_at(printer: Callable[[Console], None], narrow: int = 80, wide: int = 200) -> tuple[str, str]:
    """Render at ``narrow`` and ``wide``; fail naming the first lost figure, long line or cut cell."""
    small, large = render(printer, narrow), render(printer, wide)
    for text, width in ((small, narrow), (large, wide)):
        too_long = [line for line in text.splitlines() if len(line.rstrip()) > width]
        assert not too_long, f"lines wider than {width}: {too_long[:3]}"
        assert "…" not in text, f"a cell is cut at {width} columns:\n" + "\n".join(l for l in text.splitlines() if "…" in l)
    lost = figures(large) - figures(small)
    assert not lost, f"figures printed at {wide} columns but not at {narrow}: {sorted(lost)[:20]}"
    return small, large
