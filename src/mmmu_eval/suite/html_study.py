"""The suite page's figures: Table 1 among the paper's rows, and the CoT and OCR effects.

Split from ``html.py`` (the page, the flips and their browser): these sections print the study's
numbers and say what each was chosen from and compared with, so their labels live together.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from mmmu_eval.rendering.charts import ACCENT, NEUTRAL, Bar, Difference, bar_chart, difference_chart
from mmmu_eval.core.numbers import fixed, interval, points
from mmmu_eval.published.figures import sources, table1_rows
from mmmu_eval.suite.study import COLUMNS
from mmmu_eval.suite.table1_layout import chosen_note, published_cells, table1_position

__all__ = ["SETTING_NAMES", "effect_section", "num", "table1_section"]

SETTING_NAMES = {"standard_4": "standard-4", "standard_10": "standard-10", "vision": "vision"}


def num(value: float | None, signed: bool = False) -> str:
    """A figure already in percent (suite.json's ``percent``, a published cell), as printed."""
    if value is None:
        return "–"
    return fixed(value, signed=signed)


# -- Table 1 ----------------------------------------------------------------------------------

def _model_row(summary: Mapping[str, Any]) -> str:
    table1 = summary["table1"]
    cells = []
    for key in COLUMNS:
        cell = table1.get(key)
        signed = key.startswith("delta")
        if cell is None:
            reason = table1["reasons"].get(key, "")
            cells.append(f'<td class="n" title="{escape(reason)}">–</td>')
            continue
        low, high = cell["ci95_percent"]
        extra = f'<div class="src">{escape(interval((low, high), signed=signed, as_is=True))}</div>'
        if cell.get("mode"):
            compared = len(cell.get("by_mode") or {}) > 1
            extra += f'<div class="src">{escape(cell["mode"])} {"(chosen)" if compared else "only"}</div>'
        if cell.get("expected_percent") is not None:
            extra += f'<div class="src">expected {num(cell["expected_percent"], signed)}</div>'
        cells.append(f'<td class="n">{num(cell["percent"], signed)}{extra}</td>')
    return (f'<tr class="me"><td>▶ {escape(summary["model"])} <span class="src">(this suite)</span></td>'
            f'{"".join(cells)}<td class="src">mmmu-eval</td></tr>')


def table1_section(summary: Mapping[str, Any]) -> str:
    srcs = sources()
    marker = {k: f"[{i + 1}]" for i, k in enumerate(srcs)}
    scope = summary.get("scope") or {}
    kind = scope.get("kind", "full")
    published = [] if kind == "sample" else table1_rows()  # the synthetic sample is never set beside them
    ours = summary["table1"].get("overall")
    rows = []
    for row in published:
        cells = published_cells(row.scores)
        rows.append(
            f'<tr{" class=baseline" if row.baseline else ""}><td>{escape(row.model)}</td>'
            + "".join(f'<td class="n">{num(cells[k], k.startswith("delta"))}</td>' for k in COLUMNS)
            + f'<td class="src">{escape(marker.get(row.source, row.source))}</td></tr>'
        )
    at = table1_position([(r.model, r.baseline, r.scores.get("overall")) for r in published],
                         str(summary["model"]), ours["percent"] if ours else None)
    rows.insert(at, _model_row(summary))
    head = "".join(f'<th class="n">{escape(h)}</th>' for h in COLUMNS.values())
    notes = "".join(
        f'<li>{escape(marker[k])} <a href="{escape(s.url)}">{escape(s.title)}</a>. {escape(s.note)}</li>'
        for k, s in srcs.items() if any(r.source == k for r in published)
    )
    reasons = summary["table1"]["reasons"]
    missing = "".join(f"<li><b>{escape(COLUMNS[k])}</b>: {escape(v)}</li>" for k, v in reasons.items())
    return (
        '<section id="table1"><h2>Table 1 <span class="src">(MMMU-Pro paper, accuracy %)</span></h2>'
        + ("" if kind == "full" else f'<div class="warn" id="table1-scope">{escape(_scope_note(scope))}</div>')
        + f'<div class="panel"><table class="t t1"><thead><tr><th>Model</th>{head}<th>Source</th></tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>'
        f'<p class="src">This suite\'s row: {escape(chosen_note(summary["table1"]))}; the 95% interval under each '
        "figure; Δ1 = Standard 10 − Standard 4, Δ2 = Vision − Standard 10, "
        "Δ3 = Overall − MMMU (Val), from unrounded values. Published Δs are differences of the printed figures.</p>"
        + (f'<div class="warn">Cells without a figure:<ul>{missing}</ul></div>' if missing else "")
        + f'<ol class="src" style="list-style:none;padding:0">{notes}</ol></div></section>'
    )


def _scope_note(scope: Mapping[str, Any]) -> str:
    if scope.get("kind") == "sample":
        return (f"This suite ran on the {scope.get('text', 'bundled sample')}: the published rows are left out, "
                "since no published model answered these items.")
    return f"Not like for like: this suite's runs are {scope.get('text', '')}; the published rows are on the full splits."


# -- effects ----------------------------------------------------------------------------------

def effect_section(anchor: str, title: str, effects: Mapping[str, Any], mode: str, what: str,
                    table1: Mapping[str, Any]) -> str:
    """The two prompts' accuracies per setting, the one Table 1 took highlighted, then the paired difference."""
    entries = {k: v for k, v in effects.items() if k != "reasons" and v is not None}
    reasons = effects.get("reasons") or {}
    if not entries:
        why = "; ".join(f"{SETTING_NAMES[k]}: {v}" for k, v in reasons.items()) or "no runs"
        return f'<section id="{anchor}"><h2>{escape(title)}</h2><p class="src">{escape(why)}</p></section>'
    bars: list[Bar] = []
    diffs: list[Difference] = []
    body = []
    for key, e in entries.items():
        setting = SETTING_NAMES[key]
        chosen = (table1.get(key) or {}).get("mode")
        for shown in ("direct", mode):
            picked = shown == chosen
            bars.append(Bar(f"{setting} · {shown}", e[shown]["value"], None, ACCENT if picked else NEUTRAL,
                            f"n={e['shared']}" + ("  chosen for Table 1" if picked else ""), strong=picked))
        d = e["difference"]
        # The float nearest the exact difference, so the chart's label is the table's figure.
        exactly = float(points(e[mode]["value"], e["direct"]["value"]))
        diffs.append(Difference(f"{setting}: {mode} − direct", exactly, tuple(d["ci95"]), f"p = {e['mcnemar_p']:.3g}"))
        low, high = d["ci95_percent"]
        body.append(
            f"<tr><td>{escape(setting)}</td><td class=n>{num(e['direct']['percent'])}</td>"
            f"<td class=n>{num(e[mode]['percent'])}</td><td class=n>{num(d['percent'], True)}</td>"
            f"<td class=n>{escape(interval((low, high), signed=True, as_is=True))}</td><td class=n>{e['mcnemar_p']:.3g}</td>"
            f"<td class=n>{e[f'{mode}_only_right']}</td><td class=n>{e['direct_only_right']}</td>"
            f"<td class=n>{e['shared']}</td></tr>"
            + (f'<tr><td colspan="9" class="src">{escape(e["note"])}</td></tr>' if e.get("note") else "")
        )
    head = "".join(f"<th class=n>{h}</th>" for h in ("direct %", f"{mode} %", f"{mode} − direct", "95% CI (paired)",
                                                      "McNemar p", f"only {mode} right", "only direct right", "items"))
    skipped = "".join(f"<li>{escape(SETTING_NAMES[k])}: {escape(v)}</li>" for k, v in reasons.items())
    return (
        f'<section id="{anchor}"><h2>{escape(title)}</h2><div class="panel">'
        f'{bar_chart(bars, title=f"{title}: accuracy", label_width=200, row=20)}'
        f'{difference_chart(diffs, title=f"{title}: paired difference", label_width=200)}</div>'
        f'<div class="panel"><table class="t"><thead><tr><th>setting</th>{head}</tr></thead><tbody>{"".join(body)}'
        f'</tbody></table><p class="src">{escape(what)} {escape(mode)} − direct: the difference in points on the '
        "items both runs scored, with the paired bootstrap interval (stratified by subject) and the exact McNemar test. The paper "
        "shows the same comparison for its models; their per-model figures are not in this tool's published data, "
        "so only this model is drawn.</p>"
        + (f'<ul class="src">{skipped}</ul>' if skipped else "") + "</div></section>"
    )
