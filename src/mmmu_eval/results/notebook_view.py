"""How a record shows in a notebook: one line for ``repr``, a small table for Jupyter.

A record the API returns holds whole files (results.json, every flip of a comparison); its
dataclass ``repr`` printed all of it (1,600 characters on one line for a ``Comparison``). The
records a notebook cell ends with say who they are instead: ``repr`` is one short line with the
headline and its scope, ``_repr_html_`` a few labelled rows. Every figure is printed by
``core.numbers``, as on the terminal and the page. The records' own modules call these (here,
below the pages, so that ``results.comparison`` may); the ``Diagnosis`` has its own beside it
(``doctor/diagnosis_view.py``). Text from outside (a model name, a path, a
cause's name) is cut to ``LIMIT`` characters and escaped before it is HTML.

>>> html_record("RunResult", [("accuracy", "25.0% (1 of 4)")], note="runs/<x>")
'<div class="mmmu-eval-record"><strong>RunResult</strong> <code>runs/&lt;x&gt;</code><table><tr><th style="text-align:left">accuracy</th><td style="text-align:left">25.0% (1 of 4)</td></tr></table></div>'
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from mmmu_eval.core.numbers import fixed, interval, pct, points
from mmmu_eval.results.caveats import NO_SCORE, void, void_reason

__all__ = ["LIMIT", "answers_line", "bounded", "comparison_html", "comparison_repr", "headline", "html_record",
           "suite_html", "suite_repr"]

#: The most characters of one outside text (a path, a model name) a repr or a table shows.
LIMIT = 80


def bounded(text: object, limit: int = LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters (an ellipsis says so)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def html_record(title: str, rows: Sequence[tuple[str, str]], *, note: str | None = None) -> str:
    """A record as a small HTML table: its title, an optional note (a path) and labelled rows."""
    def cell(tag: str, text: str) -> str:
        return f'<{tag} style="text-align:left">{html.escape(bounded(text, 4 * LIMIT))}</{tag}>'

    head = f"<strong>{html.escape(title)}</strong>" + (f" <code>{html.escape(bounded(note))}</code>" if note else "")
    body = "".join(f"<tr>{cell('th', label)}{cell('td', value)}</tr>" for label, value in rows)
    return f'<div class="mmmu-eval-record">{head}<table>{body}</table></div>'


def headline(results: Mapping[str, Any]) -> str:
    """``25.0% (6 of 24; bundled sample ...)``: the headline accuracy with its count and scope."""
    overall = results.get("overall") or {}
    if not results.get("gold_available", True):
        figure = "no gold answers: not scored"
    elif void(results):
        figure = f"{NO_SCORE} ({void_reason(results)})"
    else:
        figure = f"{pct(overall.get('accuracy'))}% ({overall.get('correct', 0):,} of {overall.get('n', 0):,})"
    scope = (results.get("scope") or {}).get("text")
    return f"{figure}, {scope}" if scope else figure


def answers_line(counts: Mapping[str, int]) -> str:
    """``24 items: 24 ok, 0 truncated, 0 errors, 0 missing`` (a run's ``counts``)."""
    parts = ", ".join(f"{counts.get(key, 0):,} {word}" for key, word in
                      (("ok", "ok"), ("truncated", "truncated"), ("error", "errors"), ("missing", "missing")))
    return f"{counts.get('items', 0):,} items: {parts}"


# -- Comparison ---------------------------------------------------------------------------------

def comparison_repr(c: Any) -> str:
    """``Comparison(runs/a vs runs/b: +3.1 points [-0.4, +6.5] on 900 shared items, McNemar p=0.081, 57 flips)``"""
    return (f"Comparison({bounded(c.label_a)} vs {bounded(c.label_b)}: {pct(points(c.acc_a, c.acc_b), signed=True)} "
            f"points {interval(c.ci95, signed=True)} on {c.shared:,} shared items, McNemar p={c.p_value:.3g}, "
            f"{len(c.flips):,} flips)")


def comparison_html(c: Any) -> str:
    """A ``Comparison`` (``results.comparison``, which calls this) as a table."""
    rows = [
        ("A", f"{bounded(c.label_a)}: {pct(c.acc_a)}%"),
        ("B", f"{bounded(c.label_b)}: {pct(c.acc_b)}%"),
        ("A − B", f"{pct(points(c.acc_a, c.acc_b), signed=True)} points, 95% interval "
                  f"{interval(c.ci95, signed=True)} (paired bootstrap)"),
        ("items", f"{c.shared:,} scored in both; {c.only_a:,} only in A, {c.only_b:,} only in B (left out)"),
        ("McNemar", f"p = {c.p_value:.3g}: {c.a_only_right:,} right only in A, {c.b_only_right:,} right only in B"),
    ]
    rows += [(f"  {bounded(name, 40)}", f"{pct(d.acc_a)}% vs {pct(d.acc_b)}% "
              f"({pct(points(d.acc_a, d.acc_b), signed=True)} points, {d.n:,} items)") for name, d in c.by_discipline.items()]
    rows += [("warning", w) for w in c.warnings]
    return html_record("Comparison", rows)


# -- SuiteResult --------------------------------------------------------------------------------

#: suite.json's Table 1 cells, in the paper's column order, as the page heads them.
_TABLE1 = (("standard_4", "standard-4"), ("standard_10", "standard-10"), ("vision", "vision"),
           ("overall", "overall"), ("mmmu_val", "MMMU validation"))


def suite_repr(suite_dir: str, summary: Mapping[str, Any]) -> str:
    cell = (summary.get("table1") or {}).get("overall")
    overall = "no overall" if not cell or cell.get("percent") is None else f"overall {fixed(cell['percent'])}%"
    scope = (summary.get("scope") or {}).get("text")
    return f"SuiteResult({bounded(suite_dir)}: {overall}{', ' + scope if scope else ''}; {summary.get('status')})"


def suite_html(suite_dir: str, summary: Mapping[str, Any], exit_status: int) -> str:
    """A suite's Table 1 row (percent, with the prompt each cell came from), its scope, each run's state."""
    table = summary.get("table1") or {}
    rows = []
    for key, label in _TABLE1:
        cell = table.get(key)
        shown = "–" if not cell or cell.get("percent") is None else f"{fixed(cell['percent'])}%"
        rows.append((f"Table 1: {label}", shown + (f" ({cell['mode']})" if cell and cell.get("mode") else "")))
    rows.append(("scope", (summary.get("scope") or {}).get("text") or "not recorded"))
    rows += [(f"run {bounded(name, 40)}", info.get("problem") or "complete") for name, info in (summary.get("runs") or {}).items()]
    rows.append(("status", f"{summary.get('status')} (exit status {exit_status})"))
    return html_record("SuiteResult", rows, note=suite_dir)
