"""The harden report, from ``harden.json`` alone: terminal tables and a self-contained ``report.html``.

What it shows, step by step: how many items each step kept, excluded or left out and why; the
text-only accuracy of each filter model on the original set, the filtered set and (after
``augment``) the augmented set, as a table and as a chart in the manner of the MMMU-Pro paper's
Figure 5; per-subject counts; the review state; the rendering parameters used; and every item
left out with its reason. The page (``rendering/page.py``'s head, style ``assets/report.css``) has
no script at all, and a Content-Security-Policy that allows none, so nothing in it can run or
reach the network.
"""

from __future__ import annotations

from collections import Counter
from html import escape
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.harden.problems import count_by_kind
from mmmu_eval.harden.record import Record
from mmmu_eval.rendering.charts import Bar, bar_chart
from mmmu_eval.rendering.fit import print_fitted
from mmmu_eval.core.numbers import pct
from mmmu_eval.rendering.page import asset, head
from mmmu_eval.core.untrusted import for_rich

__all__ = ["accuracy_rows", "figure5_svg", "print_report", "render_report_html", "write_report"]

REPORT = "report.html"
#: Figure 5's three sets, in its order, with their colours.
SETS = (("original", "original set", "#90a4ae"), ("filtered", "after filtering", "#1565c0"), ("augmented", "after augmenting (10 options)", "#d81b60"))
#: Most left-out items listed in the HTML (all are in harden.json).
LIST_LIMIT = 500


def accuracy_rows(record: Record) -> list[tuple[str, dict[str, float | None]]]:
    """(model label, {set: text-only accuracy}) for each filter model; augmented from ``augment``'s check."""
    filter_step = record.step("filter") or {}
    augmented = ((record.step("augment") or {}).get("check") or {}).get("accuracy") or {}
    rows = []
    for label, figures in (filter_step.get("accuracy") or {}).items():
        rows.append((label, {"original": figures.get("original"), "filtered": figures.get("filtered"), "augmented": augmented.get(label)}))
    for label, value in augmented.items():
        if label not in dict(rows):
            rows.append((label, {"original": None, "filtered": None, "augmented": value}))
    return rows


def stale_check(record: Record) -> str | None:
    """Why the augmented set's accuracy (the check) is stale, or None when it measures the set written."""
    return ((record.step("augment") or {}).get("check") or {}).get("stale")


def _set_name(record: Record, key: str, name: str) -> str:
    return f"{name} (stale)" if key == "augmented" and stale_check(record) else name


def figure5_svg(record: Record) -> str:
    """Text-only accuracy per model on each set, as an inline SVG chart; empty when no filter ran."""
    bars: list[Bar] = []
    for label, figures in accuracy_rows(record):
        bars.append(Bar(label, 0.0, heading=True, color="#263238"))
        for key, name, color in SETS:
            value = figures.get(key)
            if value is not None:
                bars.append(Bar(_set_name(record, key, name), value, color=color, indent=True))
    if not bars:
        return ""
    return bar_chart(bars, title="Text-only accuracy of each filter model (as the MMMU-Pro paper's Figure 5)", label_width=230)


def print_report(record: Record, console: Console) -> None:
    """The step counts and the text-only accuracy table, for the terminal."""
    counts = Table(title="harden", title_justify="left")
    for column in ("step", "status", "in", "out", "left out", "notes"):
        label = column in ("step", "status", "notes")
        counts.add_column(column, justify="left" if label else "right", no_wrap=not label, overflow="fold")
    for row in _step_rows(record):
        counts.add_row(*(for_rich(str(c)) for c in row))
    print_fitted(console, counts)
    rows = accuracy_rows(record)
    if rows:
        table = Table(title="Text-only accuracy (Figure 5)", title_justify="left")
        table.add_column("model", overflow="fold")
        for key, name, _ in SETS:  # headings wrap at their spaces; a figure is one word, never folded
            table.add_column(_set_name(record, key, name), justify="right", overflow="fold")
        for label, figures in rows:
            table.add_row(for_rich(label), *(_pct(figures.get(k)) for k, _, _ in SETS))
        print_fitted(console, table)
        if stale_check(record):
            console.print(f"[yellow]stale:[/yellow] the check {for_rich(str(stale_check(record)))}", highlight=False)
    left = [p for p in record.left_out() if p.left_out]
    if left:
        kinds = ", ".join(f"{k} {n}" for k, n in count_by_kind(left).items())
        console.print(f"left out: {len(left)} ({for_rich(kinds)}); each is named in harden.json", highlight=False)
    refused = [p for p in record.left_out() if not p.left_out]
    if refused:
        console.print(f"review decisions refused: {len(refused)} (those questions stay as they were); each is named in harden.json", highlight=False)


def write_report(out: Path, record: Record) -> Path:
    """Write ``out/report.html`` from the record; returns its path."""
    return write_atomically(Path(out) / REPORT, render_report_html(record))


def render_report_html(record: Record) -> str:
    source = record.data.get("source") or {}
    parts = [
        head("mmmu-eval harden report", style=asset("report.css", "mmmu_eval.harden")),
        "<h1>mmmu-eval harden</h1>",
        f"<p>Input: <code>{escape(str(source.get('data')))}</code> ({escape(str(source.get('kind')))}, "
        f"revision {escape(str(source.get('revision')))}, {source.get('items')} usable items). "
        f"Record: <code>harden.json</code>, package {escape(str(record.data.get('package_version')))}.</p>",
        "<h2>Steps</h2>", _html_table(("step", "status", "in", "out", "left out", "notes"), _step_rows(record)),
    ]
    chart = figure5_svg(record)
    if chart:
        parts += ["<h2>Text-only accuracy</h2>", chart, _html_table(
            ("model", *(_set_name(record, key, name) for key, name, _ in SETS)),
            [(label, *(_pct(f.get(k)) for k, _, _ in SETS)) for label, f in accuracy_rows(record)],
        )]
        if stale_check(record):
            parts.append(f"<p class=note><b>Stale:</b> the check {escape(str(stale_check(record)))}.</p>")
        rule = (record.step("filter") or {}).get("rule")
        if rule:
            parts.append(f"<p class=note>Rule: {escape(rule)}.</p>")
    parts += _subject_section(record) + _render_section(record) + _left_out_section(record)
    parts.append("</body></html>")
    return "".join(parts)


def _step_rows(record: Record) -> list[tuple[str, ...]]:
    rows = []
    steps = record.data["steps"]
    if "filter" in steps:
        f = steps["filter"]
        c = f.get("counts") or {}
        notes = f"{c.get('excluded', 0)} excluded, {c.get('undecided', 0)} undecided, {c.get('not_sampled', 0)} not sampled" if c else ""
        notes += _lacking_note(f.get("lacking"), "trial runs")
        rows.append(("filter", f.get("status", "?"), str(c.get("asked", f.get("input", {}).get("items", ""))), str(c.get("kept", "")), str(len(record.left_out("filter")) + len(record.left_out("input"))), notes))
    if "augment" in steps:
        a = steps["augment"]
        c = a.get("counts") or {}
        notes = f"{c.get('augmented', 0)} augmented, {c.get('unchanged', 0)} unchanged, {c.get('flagged', 0)} flagged; review: {a.get('review', '?')}"
        notes += _lacking_note((a.get("check") or {}).get("lacking"), "check runs")
        rows.append(("augment", a.get("status", "?"), str(c.get("input", "")), str(c.get("written", "")), str(len(record.left_out("augment"))), notes))
    if "render" in steps:
        r = steps["render"]
        c = r.get("counts") or {}
        rate = r.get("items_per_s")
        rows.append(("render", r.get("status", "?"), str(c.get("input", "")), str(c.get("rendered", "")), str(len(record.left_out("render"))), f"{rate:.1f} items/s" if rate else ""))
    return rows


def _lacking_note(lacking: object, what: str) -> str:
    """The runs still lacking answers, for a step's notes: their models show no accuracy."""
    if not lacking or not isinstance(lacking, list):
        return ""
    return f"; {len(lacking)} {what} lack answers (no accuracy shown for their models): " + "; ".join(map(str, lacking[:3])) + (
        " ..." if len(lacking) > 3 else "")


def _subject_section(record: Record) -> list[str]:
    per: dict[str, Counter] = {}
    for entry in record.items.values():
        subject = entry.get("subject")
        if not subject:
            continue
        c = per.setdefault(subject, Counter())
        decision = (entry.get("filter") or {}).get("decision")
        c["asked"] += 1 if decision else 0
        c[decision or "none"] += 1
        if decision == "kept" and (entry.get("filter") or {}).get("sampled"):
            c["sampled"] += 1
        if (entry.get("augment") or {}).get("status") in ("augmented", "unchanged"):
            c["10 options"] += 1
        if entry.get("render"):
            c["vision"] += 1
    if not per:
        return []
    rows = [(s, str(c["asked"]), str(c["excluded"]), str(c["undecided"]), str(c["sampled"]), str(c["10 options"]), str(c["vision"])) for s, c in sorted(per.items())]
    return ["<h2>Subjects</h2>", _html_table(("subject", "asked", "excluded", "undecided", "kept", "10 options", "vision"), rows)]


def _render_section(record: Record) -> list[str]:
    render = record.step("render")
    if not render:
        return []
    usage: dict[str, Counter] = {k: Counter() for k in ("font", "background", "options_columns", "images", "medium")}
    for entry in record.items.values():
        params = entry.get("render") or {}
        for key in usage:
            if key in params:
                usage[key][params[key]] += 1
    rows = [(key, ", ".join(f"{v} ({n})" for v, n in c.most_common())) for key, c in usage.items()]
    rows.append(("font size (px)", f"{render.get('font_sizes')}"))
    rows.append(("page width (px)", f"{render.get('page_widths')}"))
    rows.append(("browser", str(render.get("browser"))))
    redrawn = (render.get("counts") or {}).get("redrawn")
    if redrawn:
        rows.append(("captures redrawn", f"{redrawn} page(s): a capture failed its check (why: harden.json, render.redrawn)"))
    return ["<h2>Rendering</h2>", _html_table(("parameter", "used"), rows)]


def _left_out_section(record: Record) -> list[str]:
    parts = []
    for title, chosen in (("Left out", [p for p in record.left_out() if p.left_out]),
                          ("Review decisions refused (the questions stay as they were)", [p for p in record.left_out() if not p.left_out])):
        if chosen:
            rows = [(p.step, p.where, p.kind, p.problem) for p in chosen[:LIST_LIMIT]]
            more = f"<p class=note>{len(chosen) - LIST_LIMIT} more in harden.json.</p>" if len(chosen) > LIST_LIMIT else ""
            parts += [f"<h2>{escape(title)} ({len(chosen)})</h2>", _html_table(("step", "item", "kind", "problem"), rows), more]
    return parts


def _html_table(header: tuple[str, ...], rows: list[tuple[str, ...]] | list[Any]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{pct(value)}%"
