"""Inline SVG bar charts for the HTML report, written by hand: no CDN, no script, opens offline.

One chart shape serves the run report's three uses (disciplines, subjects, published results):
horizontal bars on a 0-100% axis, an optional 95% interval whisker, an optional dashed reference
line. A second, ``difference_chart``, draws paired differences around zero (the suite's CoT and
OCR effects).
Every label passes through ``html.escape``: subject names are fixed, but a model name is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from mmmu_eval.core.numbers import interval, pct

#: One colour per discipline, in the official discipline order.
DISCIPLINE_COLORS = {
    "Art and Design": "#c2185b",
    "Business": "#ef6c00",
    "Science": "#2e7d32",
    "Health and Medicine": "#00838f",
    "Humanities and Social Science": "#6a1b9a",
    "Tech and Engineering": "#1565c0",
}
NEUTRAL = "#90a4ae"
ACCENT = "#d81b60"


@dataclass(frozen=True, slots=True)
class Bar:
    """One row of a bar chart."""

    label: str
    value: float
    """Accuracy in [0, 1]."""
    ci: tuple[float, float] | None = None
    """95% interval in [0, 1], drawn as a whisker."""
    color: str = NEUTRAL
    note: str = ""
    """Text after the value (``n=30``, a source marker)."""
    strong: bool = False
    """Bold label and outline: the run itself among published models."""
    indent: bool = False
    """Indent the label (a subject under its discipline)."""
    heading: bool = False
    """A group heading row with no bar."""


def ci_note(ci: tuple[float, float] | list[float]) -> str:
    """A bar's interval note with its numbers, ``95% CI [2.5, 17.5]`` (fractions in, points out)."""
    return f"95% CI {interval(ci)}"


def _f(x: float) -> str:
    return f"{x:.1f}"


def _fit(label: str, width_px: int) -> str:
    """Cut a label to what fits in ``width_px`` at 12px (about 7.4px a character, wide glyphs included)."""
    room = max(4, int(width_px / 7.4))
    return label if len(label) <= room else label[: room - 1] + "…"


def _whisker(low: float, high: float, mid: float) -> str:
    """A 95% interval drawn from ``low`` to ``high`` (pixels) at height ``mid``, with end ticks."""
    lo, hi = _f(low), _f(high)
    return (f'<line x1="{lo}" y1="{_f(mid)}" x2="{hi}" y2="{_f(mid)}" stroke="#263238"/>'
            + "".join(f'<line x1="{cx}" y1="{_f(mid - 4)}" x2="{cx}" y2="{_f(mid + 4)}" stroke="#263238"/>' for cx in (lo, hi)))


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    reference: tuple[float, str] | None = None,
    label_width: int = 250,
    width: int = 860,
    row: int = 22,
) -> str:
    """An SVG horizontal bar chart as a string (safe to inline: every text is escaped).

    Args:
        bars: rows, top to bottom.
        title: accessible title (``<title>``) of the chart.
        reference: (value, label) for a dashed vertical line, e.g. the overall accuracy.
    """
    plot_left = label_width + 10
    plot_width = width - plot_left - 120
    top = 24
    height = top + row * len(bars) + 28

    def x(v: float) -> float:
        return plot_left + max(0.0, min(1.0, v)) * plot_width

    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
    ]
    bottom = top + row * len(bars)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tx = _f(x(tick))
        out.append(f'<line x1="{tx}" y1="{top - 6}" x2="{tx}" y2="{bottom}" stroke="#e3e7ea"/>')
        out.append(
            f'<text x="{tx}" y="{bottom + 16}" text-anchor="middle" fill="#6b7780">{int(tick * 100)}%</text>'
        )
    for i, bar in enumerate(bars):
        y = top + i * row
        mid = y + row / 2
        weight = ' font-weight="600"' if (bar.strong or bar.heading) else ""
        label_x = 8 if bar.heading else (label_width - 0)
        anchor = "start" if bar.heading else "end"
        if bar.heading:
            out.append(
                f'<text x="{label_x}" y="{_f(mid + 4)}" text-anchor="{anchor}" fill="{bar.color}"{weight}>'
                f"{escape(bar.label)}</text>"
            )
            continue
        label = ("    " if bar.indent else "") + _fit(bar.label, label_width - 8)
        out.append(
            f'<text x="{label_x}" y="{_f(mid + 4)}" text-anchor="{anchor}" fill="#263238"{weight} '
            f'xml:space="preserve">{escape(label)}</text>'
        )
        stroke = ' stroke="#263238" stroke-width="1.5"' if bar.strong else ""
        out.append(
            f'<rect x="{plot_left}" y="{_f(y + 4)}" width="{_f(x(bar.value) - plot_left)}" '
            f'height="{row - 8}" rx="2" fill="{bar.color}"{stroke}><title>{escape(bar.label)}: '
            f"{pct(bar.value)}%</title></rect>"
        )
        end = x(bar.value)
        if bar.ci is not None:
            end = max(end, x(bar.ci[1]))
            out.append(_whisker(x(bar.ci[0]), x(bar.ci[1]), mid))
        text = f"{pct(bar.value)}%" + (f"  {bar.note}" if bar.note else "")
        out.append(
            f'<text x="{_f(end + 6)}" y="{_f(mid + 4)}" fill="#37474f"{weight} xml:space="preserve">'
            f"{escape(text)}</text>"
        )
    if reference is not None:
        rx = _f(x(reference[0]))
        out.append(
            f'<line x1="{rx}" y1="{top - 8}" x2="{rx}" y2="{bottom}" stroke="{ACCENT}" '
            f'stroke-dasharray="4 3" stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{rx}" y="{top - 11}" text-anchor="middle" fill="{ACCENT}">{escape(reference[1])}</text>'
        )
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Difference:
    """One row of a difference chart: a paired difference in accuracy with its interval."""

    label: str
    value: float
    """Difference in accuracy (fraction; negative when the second run is better). The label rounds
    its repr (``core.numbers``), so give the float nearest the exact difference,
    ``float(points(a, b))``, not the result of float arithmetic."""
    ci: tuple[float, float] | None = None
    note: str = ""
    """Text after the value (``p = 0.003``)."""
    strong: bool = False


def difference_chart(
    rows: Sequence[Difference], *, title: str, label_width: int = 250, width: int = 860, row: int = 24
) -> str:
    """An SVG chart of differences in points around a zero line, with 95% whiskers.

    The axis is symmetric and just wide enough for the largest interval end, so a small effect
    does not look like nothing next to a 0-100% axis; green bars are gains, red bars losses.
    """
    plot_left = label_width + 10
    plot_width = width - plot_left - 150
    top = 24
    height = top + row * len(rows) + 28
    reach = max([abs(v) for r in rows for v in (r.value, *(r.ci or ()))] + [0.01])
    reach = min(1.0, -(-reach * 100 // 5) * 5 / 100)  # round up to 5 points

    def x(v: float) -> float:
        return plot_left + (max(-reach, min(reach, v)) + reach) / (2 * reach) * plot_width

    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
    ]
    bottom = top + row * len(rows)
    for tick in (-reach, -reach / 2, 0.0, reach / 2, reach):
        tx = _f(x(tick))
        colour = "#90a4ae" if tick == 0 else "#e3e7ea"
        out.append(f'<line x1="{tx}" y1="{top - 6}" x2="{tx}" y2="{bottom}" stroke="{colour}"/>')
        out.append(f'<text x="{tx}" y="{bottom + 16}" text-anchor="middle" fill="#6b7780">{pct(tick, signed=True)}</text>')
    zero = x(0.0)
    for i, r in enumerate(rows):
        y = top + i * row
        mid = y + row / 2
        weight = ' font-weight="600"' if r.strong else ""
        out.append(
            f'<text x="{label_width}" y="{_f(mid + 4)}" text-anchor="end" fill="#263238"{weight}>'
            f"{escape(_fit(r.label, label_width - 8))}</text>"
        )
        left, right = sorted((zero, x(r.value)))
        colour = "#2e7d32" if r.value >= 0 else "#c62828"
        out.append(
            f'<rect x="{_f(left)}" y="{_f(y + 5)}" width="{_f(max(right - left, 1.0))}" height="{row - 10}" '
            f'rx="2" fill="{colour}" fill-opacity="0.75"><title>{escape(r.label)}: {pct(r.value, signed=True)} points'
            f"</title></rect>"
        )
        end = max(right, zero)
        if r.ci is not None:
            end = max(end, x(r.ci[1]))
            out.append(_whisker(x(r.ci[0]), x(r.ci[1]), mid))
        text = f"{pct(r.value, signed=True)} pts" + (f"  {r.note}" if r.note else "")
        out.append(f'<text x="{_f(end + 6)}" y="{_f(mid + 4)}" fill="#37474f"{weight} xml:space="preserve">'
                   f"{escape(text)}</text>")
    out.append("</svg>")
    return "".join(out)
