"""Terminal tables for a suite.json: Table 1 among the paper's rows, the effects, the flips, the runs.

The model's row is printed in the paper's column order among the published rows (Random and
Frequent Choice included), so a reader can hold it next to the paper's Table 1; its 95%
intervals and each setting's prompt mode go on the lines under it, and Random Choice's expected
value beside its draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from mmmu_eval.rendering.fit import print_fitted
from mmmu_eval.core.numbers import fixed, interval
from mmmu_eval.results.caveats import NO_SCORE
from mmmu_eval.published.figures import sources, table1_rows
from mmmu_eval.rendering.run_terminal import usage_table
from mmmu_eval.suite.study import COLUMNS
from mmmu_eval.suite.table1_layout import chosen_note, published_cells, table1_position
from mmmu_eval.core.untrusted import for_rich

__all__ = ["print_suite"]

_SETTING_NAMES = {"standard_4": "standard-4", "standard_10": "standard-10", "vision": "vision"}
#: Short headings, so the row fits a terminal (the HTML report prints the paper's).
_HEADINGS = {"standard_4": "Std 4", "standard_10": "Std 10", "vision": "Vision", "overall": "Overall",
             "mmmu_val": "MMMU val", "delta_1": "Δ1", "delta_2": "Δ2", "delta_3": "Δ3"}


def _num(value: float | None, key: str = "") -> str:
    if value is None:
        return "–"
    return fixed(value, signed=key.startswith("delta"))


def _table1(summary: Mapping[str, Any], width: int = 200) -> Table:
    """Table 1 for a console ``width`` wide: a model name too long to fit folds, the figures never do."""
    table1 = summary["table1"]
    kind = (summary.get("scope") or {}).get("kind", "full")
    if kind == "sample":
        title = "Table 1 (MMMU-Pro paper's columns), accuracy %; published rows left out: the sample is not the benchmark"
    elif kind != "full":
        title = "Table 1 (MMMU-Pro paper), accuracy %; published rows from [1] on the full splits, this row not"
    else:
        title = "Table 1 (MMMU-Pro paper), accuracy %; published rows from [1]"
    table = Table(title=title, title_justify="left")
    # The eight figure columns take 57 columns at the tightest (fit.py); the name gets the rest.
    name_width = max(22, width - 58)
    table.add_column("Model", overflow="fold", max_width=name_width)
    for key in COLUMNS:
        table.add_column(_HEADINGS[key], justify="right", no_wrap=True)
    published = [] if kind == "sample" else table1_rows()  # the synthetic sample is never set beside them
    rows: list[tuple[list[str], str | None]] = []
    for row in published:
        cells = published_cells(row.scores)
        rows.append(([for_rich(row.model), *(_num(cells[k], k) for k in COLUMNS)], "dim" if row.baseline else None))
    ours = table1.get("overall")
    at = table1_position([(r.model, r.baseline, r.scores.get("overall")) for r in published],
                         str(summary["model"]), ours["percent"] if ours else None)
    mine = [for_rich(_marked(str(summary["model"]), name_width)),
            *(_num(c["percent"], k) if (c := table1.get(k)) else "–" for k in COLUMNS)]
    lines = [(mine, "bold magenta")]
    lines.append((["  95% CI from", *(_num(c["ci95_percent"][0], k) if (c := table1.get(k)) else "" for k in COLUMNS)], "magenta"))
    lines.append((["  95% CI to", *(_num(c["ci95_percent"][1], k) if (c := table1.get(k)) else "" for k in COLUMNS)], "magenta"))
    chose = any(len((table1.get(k) or {}).get("by_mode") or {}) > 1 for k in COLUMNS)
    lines.append((["  prompt chosen" if chose else "  prompt", *(str(c.get("mode") or "") if (c := table1.get(k)) else ""
                                                                for k in COLUMNS)], "magenta"))
    if any((table1.get(k) or {}).get("expected_percent") is not None for k in COLUMNS):
        lines.append((["  expected (Random)", *(_num(c.get("expected_percent"), k) if (c := table1.get(k)) else ""
                                                for k in COLUMNS)], "magenta"))
    rows[at:at] = lines
    for cells, style in rows:
        table.add_row(*cells, style=style)
    return table


def _marked(name: str, width: int) -> str:
    """``▶ name``, folded by hand into lines of ``width`` so the marker stays beside the name's start."""
    label = f"▶ {name}"
    if len(label) <= width:
        return label
    lines = [label[:width]]
    rest = label[width:]
    while rest:
        lines.append("  " + rest[:width - 2])
        rest = rest[width - 2:]
    return "\n".join(lines)


def _effects(title: str, effects: Mapping[str, Any], mode: str) -> Table | None:
    entries = {k: v for k, v in effects.items() if k != "reasons" and v is not None}
    if not entries:
        return None
    table = Table(title=title, title_justify="left")
    # Headings on two lines, so the nine columns fit 80 columns of terminal without a cut figure.
    for col in ("setting", "direct\n%", f"{mode}\n%", f"{mode} −\ndirect", "95% CI", "McNemar\np",
                f"only\n{mode}", "only\ndirect", "items"):
        table.add_column(col, justify="left" if col == "setting" else "right", no_wrap=True)
    for key, e in entries.items():
        d = e["difference"]
        table.add_row(
            _SETTING_NAMES[key] + ("" if e["complete"] else " *"), _num(e["direct"]["percent"]), _num(e[mode]["percent"]),
            _num(d["percent"], "delta"), interval(d["ci95_percent"], signed=True, as_is=True),
            f"{e['mcnemar_p']:.3g}", str(e[f"{mode}_only_right"]), str(e["direct_only_right"]), str(e["shared"]),
        )
    table.caption = (f"{mode} − direct: the difference in points on the items both runs scored, with its paired "
                     f"bootstrap 95% CI; only {mode} / only direct: items only that prompt got right")
    table.caption_justify = "left"
    return table


def _flips(flips: Mapping[str, Any]) -> Table | None:
    entries = {k: v for k, v in flips.items() if k != "reasons" and v is not None}
    if not entries:
        return None
    table = Table(title="Flips (section 3.5): items right in A, wrong in B", title_justify="left")
    table.add_column("discipline")
    for e in entries.values():
        table.add_column(f"{e['a']['setting']}\n({e['a']['mode']})\n→ {e['b']['setting']}\n({e['b']['mode']})",
                         justify="right", no_wrap=True)
    table.add_row("all", *(f"{e['count']} of {e['shared']}" for e in entries.values()), style="bold")
    disciplines = list(dict.fromkeys(d for e in entries.values() for d in e["by_discipline"]))
    for d in disciplines:
        table.add_row(for_rich(d), *(f"{c['count']} of {c['shared']}" if (c := e["by_discipline"].get(d)) else "–"
                                   for e in entries.values()))
    return table


def _runs(summary: Mapping[str, Any]) -> Table:
    table = Table(title="Runs", title_justify="left")
    for col in ("run", "acc %", "scored / items", "status"):
        numeric = col in ("acc %", "scored / items")
        table.add_column(col, justify="right" if numeric else "left", no_wrap=numeric)
    for name, run in summary["runs"].items():
        status = "complete" if run["complete"] else f"[red]{for_rich(run['problem'] or 'incomplete')}[/red]"
        scored = f"{run['scored']} / {run['items']}" if run["items"] is not None else "–"
        # a run read back with no figure (no item scored) says so; "–" is a run with no results.json
        figure = NO_SCORE if run["percent"] is None and run["items"] is not None else _num(run["percent"])
        table.add_row(for_rich(name), figure, scored, status)
    return table


def print_suite(summary: Mapping[str, Any], console: Console) -> None:
    """Print the study: headline, Table 1 among the paper's rows, effects, flips, runs.

    >>> from mmmu_eval.suite.execute import evaluate_suite
    >>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
    >>> import io
    >>> out = io.StringIO()
    >>> print_suite(suite.summary, Console(file=out, width=160))
    >>> out.getvalue().splitlines()[0]
    'MMMU-Pro study · frequent: overall 20.8% (95% CI [8.3, 37.5]) · bundled sample: 24-40 synthetic items per run, not the benchmark'
    """
    table1 = summary["table1"]
    overall = table1.get("overall")
    model = for_rich(str(summary["model"]))
    scope = summary.get("scope") or {}
    where = f" · {for_rich(scope['text'])}" if scope.get("text") else ""
    if overall is not None:
        console.print(f"[bold]MMMU-Pro study · {model}: overall {_num(overall['percent'])}%[/bold] "
                      f"(95% CI {for_rich(interval(overall['ci95_percent'], as_is=True))}){where}")
    else:
        console.print(f"[bold]MMMU-Pro study · {model}: no overall[/bold] ({for_rich(table1['reasons'].get('overall', ''))})"
                      f"{where}")
    print_fitted(console, _table1(summary, console.width))
    console.print(f"This model's row: {for_rich(chosen_note(table1))}; the 95% interval on the lines under it.", style="dim")
    for key, reason in table1["reasons"].items():
        console.print(f"[yellow]{for_rich(COLUMNS[key])}: {for_rich(reason)}[/yellow]")
    if (table1.get("mmmu_val") or {}).get("expert_line"):
        console.print(for_rich(table1["mmmu_val"]["expert_line"]))
    for title, section, mode in (("CoT effect (section 3.4)", "cot_effect", "cot"),
                                 ("OCR effect (section 3.3)", "ocr_effect", "ocr")):
        table = _effects(title, summary[section], mode)
        if table is not None:
            print_fitted(console, table)
            if any(not e["complete"] for k, e in summary[section].items() if k != "reasons" and e):
                console.print("* on the items both runs scored (a run lacks answers)", style="dim")
    flips = _flips(summary["flips"])
    if flips is not None:
        print_fitted(console, flips)
    print_fitted(console, _runs(summary))
    usage = usage_table(summary)  # type: ignore[arg-type]  # the run report's table, over every run's responses
    if usage is not None:
        print_fitted(console, usage)
    srcs = sources()
    # One source a line, wrapped at words by rich: at 80 columns a URL is never split by the terminal.
    console.print("Published rows:", style="dim")
    for i, src in enumerate(srcs.values()):
        console.print(for_rich(f"[{i + 1}] {src.title} {src.url}"), style="dim")
