"""``mmmu-eval compare``'s printout: the headline difference, each discipline, and the flips.

The comparison itself (``results.comparison``) holds no printing, so the suite's study and the
Python API use it without a console.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from mmmu_eval.core.numbers import Number, interval, pct, points
from mmmu_eval.core.untrusted import LINE_CHARACTERS, capped_or_none, for_rich
from mmmu_eval.rendering.fit import print_fitted
from mmmu_eval.results.comparison import Comparison, describe_scoring

__all__ = ["print_comparison"]


def _pp(x: Number) -> str:
    return pct(x, signed=True)


def print_comparison(c: Comparison, console: Console, *, max_flips: int = 50) -> None:
    """Print the comparison: headline difference, per discipline, and the flips."""
    for w in c.warnings:
        console.print(f"[yellow]warning:[/yellow] {for_rich(w)}")
    console.print(
        f"[bold]{for_rich(c.label_a)}[/bold] vs [bold]{for_rich(c.label_b)}[/bold] on {c.shared} shared items"
        + (f" ({c.only_a} only in A, {c.only_b} only in B, left out)" if c.only_a or c.only_b else "")
    )
    if c.scoring_a:
        for name, scoring in (("A", c.scoring_a), ("B", c.scoring_b)):
            console.print(f"  {name} scored by {for_rich(describe_scoring(scoring))}")
    console.print(
        f"accuracy {pct(c.acc_a)}% vs {pct(c.acc_b)}%: difference "
        f"[bold]{_pp(c.difference)} points[/bold] (paired 95% CI {for_rich(interval(c.ci95, signed=True))})"
    )
    console.print(
        f"exact McNemar: {c.a_only_right} items only A got right, {c.b_only_right} only B; p = {c.p_value:.4g}"
    )
    table = Table(title="By discipline (shared items)", title_justify="left")
    for col in ("discipline", "n", "A %", "B %", "A − B"):
        table.add_column(col, justify="left" if col == "discipline" else "right", no_wrap=col != "discipline",
                         overflow="fold")
    for d, r in c.by_discipline.items():
        table.add_row(for_rich(d), str(r.n), pct(r.acc_a), pct(r.acc_b), _pp(points(r.acc_a, r.acc_b)))
    print_fitted(console, table)
    if not c.flips:
        console.print("No item flips: both runs are right and wrong on the same items.")
        return
    flips = Table(title=f"Items that flip ({len(c.flips)})", title_justify="left")
    for col in ("id", "right in", "pred A", "pred B"):
        flips.add_column(col, overflow="fold")
    for f in c.flips[:max_flips]:
        flips.add_row(for_rich(f.id), "A" if f.a_correct else "B", for_rich(str(capped_or_none(f.pred_a, LINE_CHARACTERS))),
                      for_rich(str(capped_or_none(f.pred_b, LINE_CHARACTERS))))
    print_fitted(console, flips)
    if len(c.flips) > max_flips:
        console.print(f"… and {len(c.flips) - max_flips} more (--flips N to list more, --json for all)")
