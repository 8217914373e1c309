"""The suite's ``report.html``: one self-contained page for the whole MMMU-Pro study.

What it holds: the model's Table 1 row among the paper's published rows (Random and Frequent
Choice included, with sources); the CoT effect per setting and the OCR effect in vision as small
charts in the manner of the paper's Figures 6 and 7 (accuracies side by side, then the paired
difference with its interval and McNemar p); the section 3.5 flip sets, counted per discipline,
in an item browser that shows both settings of each item side by side (question, images, each
setting's options, both responses and both parsed answers); the MMMU validation run against the
MMMU human experts and the cost and usage of all runs together (the run report's sections,
``report/html_sections.py``); and every run with a link to its own report.

Safety is the run report's (``report/html.py``): text is escaped, item data travels as
``script_json`` and is shown only via ``textContent``, and the page's Content-Security-Policy
admits exactly its own script. Images are embedded once each (standard-4 and standard-10 share
theirs) within a byte budget.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from typing import Any

from mmmu_eval.errors import MmmuEvalError
from mmmu_eval.records import Item, Response
from mmmu_eval.report.charts import ACCENT, NEUTRAL, Bar, Difference, bar_chart, difference_chart
from mmmu_eval.report.html import IMAGE_BUDGET, asset, content_security_policy, data_url, script_json
from mmmu_eval.report.html_sections import expert_section, usage_section
from mmmu_eval.report.published import sources, table1_rows
from mmmu_eval.suite.rundirs import RunRecord
from mmmu_eval.suite.study import COLUMNS, published_cells, table1_position

__all__ = ["flip_rows", "render_suite_html"]

log = logging.getLogger(__name__)

_SETTING_NAMES = {"standard_4": "standard-4", "standard_10": "standard-10", "vision": "vision"}


def _suite_asset(name: str) -> str:
    return resources.files("mmmu_eval.suite").joinpath("assets", name).read_text(encoding="utf-8")


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


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
        extra = f'<div class="src">{_num(low, signed)} – {_num(high, signed)}</div>'
        if cell.get("mode"):
            compared = len(cell.get("by_mode") or {}) > 1
            extra += f'<div class="src">{escape(cell["mode"])} {"(chosen)" if compared else "only"}</div>'
        if cell.get("expected_percent") is not None:
            extra += f'<div class="src">expected {_num(cell["expected_percent"], signed)}</div>'
        cells.append(f'<td class="n">{_num(cell["percent"], signed)}{extra}</td>')
    return (f'<tr class="me"><td>▶ {escape(summary["model"])} <span class="src">(this suite)</span></td>'
            f'{"".join(cells)}<td class="src">mmmu-eval</td></tr>')


def _table1_section(summary: Mapping[str, Any]) -> str:
    srcs = sources()
    marker = {k: f"[{i + 1}]" for i, k in enumerate(srcs)}
    published = table1_rows()
    ours = summary["table1"].get("overall")
    rows = []
    for row in published:
        cells = published_cells(row.scores)
        rows.append(
            f'<tr{" class=baseline" if row.baseline else ""}><td>{escape(row.model)}</td>'
            + "".join(f'<td class="n">{_num(cells[k], k.startswith("delta"))}</td>' for k in COLUMNS)
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
        f'<div class="panel"><table class="t t1"><thead><tr><th>Model</th>{head}<th>Source</th></tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>'
        f'<p class="src">This suite\'s row: {escape(_chosen_note(summary["table1"]))}; the 95% interval under each '
        "figure; Δ1 = Standard 10 − Standard 4, Δ2 = Vision − Standard 10, "
        "Δ3 = Overall − MMMU (Val), from unrounded values. Published Δs are differences of the printed figures.</p>"
        + (f'<div class="warn">Cells without a figure:<ul>{missing}</ul></div>' if missing else "")
        + f'<ol class="src" style="list-style:none;padding:0">{notes}</ol></div></section>'
    )


def _chosen_note(table1: Mapping[str, Any]) -> str:
    """What each setting's figure was chosen from: the better of the prompts that ran, or the one that did."""
    compared = {key: list((table1.get(key) or {}).get("by_mode") or {}) for key in _SETTING_NAMES}
    compared = {k: v for k, v in compared.items() if v}
    if not compared:
        return "no setting has a figure"

    def what(modes: list[str]) -> str:
        names = [{"cot": "CoT"}.get(m, m) for m in modes]
        if len(names) == 1:
            return f"from its {names[0]} run, the only prompt run (nothing to choose between)"
        return "the better of " + " and ".join(names) + " (the chosen prompt is named under each figure)"

    if len({tuple(v) for v in compared.values()}) == 1:
        return "each setting " + what(next(iter(compared.values())))
    return "; ".join(f"{COLUMNS[k]} {what(v)}" for k, v in compared.items())


# -- effects ----------------------------------------------------------------------------------

def _effect_section(anchor: str, title: str, effects: Mapping[str, Any], mode: str, what: str,
                    table1: Mapping[str, Any]) -> str:
    """The two prompts' accuracies per setting, the one Table 1 took highlighted, then the paired difference."""
    entries = {k: v for k, v in effects.items() if k != "reasons" and v is not None}
    reasons = effects.get("reasons") or {}
    if not entries:
        why = "; ".join(f"{_SETTING_NAMES[k]}: {v}" for k, v in reasons.items()) or "no runs"
        return f'<section id="{anchor}"><h2>{escape(title)}</h2><p class="src">{escape(why)}</p></section>'
    bars: list[Bar] = []
    diffs: list[Difference] = []
    body = []
    for key, e in entries.items():
        setting = _SETTING_NAMES[key]
        chosen = (table1.get(key) or {}).get("mode")
        for shown in ("direct", mode):
            picked = shown == chosen
            bars.append(Bar(f"{setting} · {shown}", e[shown]["value"], None, ACCENT if picked else NEUTRAL,
                            f"n={e['shared']}" + ("  chosen for Table 1" if picked else ""), strong=picked))
        d = e["difference"]
        diffs.append(Difference(f"{setting}: {mode} − direct", d["value"], tuple(d["ci95"]), f"p = {e['mcnemar_p']:.3g}"))
        low, high = d["ci95_percent"]
        body.append(
            f"<tr><td>{escape(setting)}</td><td class=n>{_num(e['direct']['percent'])}</td>"
            f"<td class=n>{_num(e[mode]['percent'])}</td><td class=n>{_num(d['percent'], True)}</td>"
            f"<td class=n>{_num(low, True)} – {_num(high, True)}</td><td class=n>{e['mcnemar_p']:.3g}</td>"
            f"<td class=n>{e[f'{mode}_only_right']}</td><td class=n>{e['direct_only_right']}</td>"
            f"<td class=n>{e['shared']}</td></tr>"
            + (f'<tr><td colspan="9" class="src">{escape(e["note"])}</td></tr>' if e.get("note") else "")
        )
    head = "".join(f"<th class=n>{h}</th>" for h in ("direct %", f"{mode} %", f"{mode} − direct", "95% CI (paired)",
                                                      "McNemar p", f"only {mode} right", "only direct right", "items"))
    skipped = "".join(f"<li>{escape(_SETTING_NAMES[k])}: {escape(v)}</li>" for k, v in reasons.items())
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


# -- flips ------------------------------------------------------------------------------------

def _flips_section(flips: Mapping[str, Any]) -> str:
    panels = []
    for key, entry in flips.items():
        if key == "reasons":
            continue
        if entry is None:
            panels.append(f'<div class="panel"><h3>{escape(key)}</h3><p class="src">'
                          f'{escape(flips["reasons"].get(key, ""))}</p></div>')
            continue
        a, b = entry["a"], entry["b"]
        body = "".join(
            f"<tr><td>{escape(d)}</td><td class=n>{c['count']}</td><td class=n>{c['shared']}</td>"
            f"<td class=n>{_num(100 * c['count'] / c['shared'] if c['shared'] else None)}</td></tr>"
            for d, c in entry["by_discipline"].items()
        )
        panels.append(
            f'<div class="panel"><h3>{escape(entry["what"])}</h3><p><b>{entry["count"]}</b> of {entry["shared"]} '
            f'items ({entry["reverse_count"]} the other way): right in {escape(a["setting"])} ({escape(a["mode"])}), '
            f'wrong in {escape(b["setting"])} ({escape(b["mode"])}).</p><table class="t"><thead><tr><th>discipline</th>'
            f'<th class=n>items</th><th class=n>of</th><th class=n>%</th></tr></thead><tbody>{body}</tbody></table></div>'
        )
    return f'<section id="flips"><h2>Flips (section 3.5)</h2><div class="grid2">{"".join(panels)}</div></section>'


def _side(record: RunRecord, item: Item | None, response: Response | None, pred: str | None,
          images: dict[str, str], budget: list[int]) -> dict[str, Any]:
    verdict = (record.results or {}).get("verdicts", {}).get(item.id if item else "", {})
    side: dict[str, Any] = {
        "label": record.label,
        "run": record.name,
        "options": list(item.options) if item else [],
        "letters": (list(item.choices) or [chr(65 + i) for i in range(len(item.options))]) if item else [],
        "answer": ([item.answer] if isinstance(item.answer, str) else list(item.answer or ())) if item else [],
        "images": [],
        "response": response.text if response is not None else "",
        "pred": pred,
        "correct": bool(verdict.get("correct")),
    }
    for ref in item.images if item else ():
        entry = {"field": ref.field, "ref": None, "note": ""}
        try:
            data = ref.load()
        except Exception as exc:  # a corrupt image must not sink the report
            entry["note"] = f"unreadable: {exc}"
            side["images"].append(entry)
            continue
        key = hashlib.sha1(data).hexdigest()[:16]
        if key not in images:
            url = data_url(data)
            if len(url) > budget[0]:
                entry["note"] = "not embedded: the report's image budget is spent"
                side["images"].append(entry)
                continue
            budget[0] -= len(url)
            images[key] = url
        entry["ref"] = key
        side["images"].append(entry)
    return side


def flip_rows(summary: Mapping[str, Any], records: Sequence[RunRecord], *, images: bool = True,
              image_budget: int = IMAGE_BUDGET) -> dict[str, Any]:
    """The flip browser's data: ``{"sets", "items", "images", "notes"}``, JSON-ready.

    Items and responses are read back from the two runs' directories (the dataset loaded as the
    run's manifest says); a run whose items cannot be loaded shows responses without them.
    """
    from mmmu_eval.report.rundata import run_items
    from mmmu_eval.store.rundir import RunStore

    by_name = {r.name: r for r in records}
    loaded: dict[str, tuple[dict[str, Item], dict[str, Response]]] = {}
    notes: list[str] = []

    def load(record: RunRecord) -> tuple[dict[str, Item], dict[str, Response]]:
        if record.name not in loaded:
            responses: dict[str, Response] = {}
            items: dict[str, Item] = {}
            try:
                responses = RunStore.read(record.path).responses()
                items = {it.id: it for it in run_items(record.manifest, responses)}
            except MmmuEvalError as exc:
                notes.append(f"{record.name}: its items could not be loaded ({exc}); shown without them")
            loaded[record.name] = (items, responses)
        return loaded[record.name]

    pool: dict[str, str] = {}
    budget = [image_budget if images else 0]
    sets: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    for key, entry in summary["flips"].items():
        if key == "reasons" or entry is None:
            continue
        sets[key] = entry["what"]
        a, b = by_name[entry["a"]["run"]], by_name[entry["b"]["run"]]
        (items_a, resp_a), (items_b, resp_b) = load(a), load(b)
        for flip in entry["items"]:
            item_a, item_b = items_a.get(flip["id"]), items_b.get(flip["id"])
            rows.append({
                "set": key, "id": flip["id"], "subject": flip["subject"], "discipline": flip["discipline"],
                "question": (item_a.question if item_a else "") or (item_b.question if item_b else ""),
                "a": _side(a, item_a, resp_a.get(flip["id"]), flip["pred_a"], pool, budget),
                "b": _side(b, item_b, resp_b.get(flip["id"]), flip["pred_b"], pool, budget),
            })
    if not images:
        notes.append("images not embedded")
    return {"sets": sets, "items": rows, "images": pool, "notes": notes}


def _browser(data: Mapping[str, Any]) -> str:
    sets = "".join(f'<option value="{escape(k)}">{escape(v)} '
                   f'({sum(r["set"] == k for r in data["items"])})</option>' for k, v in data["sets"].items())
    disciplines = sorted({r["discipline"] for r in data["items"]})
    discipline_opts = '<option value="">All disciplines</option>' + "".join(
        f'<option value="{escape(d)}">{escape(d)}</option>' for d in disciplines)
    notes = "".join(f'<p class="src">{escape(n)}</p>' for n in data["notes"])
    return (
        '<section id="items-section"><h2>Flipped items, side by side</h2>' + notes + '<div class="filters">'
        f'<select id="f-set" aria-label="Flip set">{sets}</select>'
        f'<select id="f-discipline" aria-label="Discipline">{discipline_opts}</select>'
        '<input id="f-search" type="search" placeholder="Search id, question, responses" aria-label="Search">'
        '<span id="f-count"></span></div>'
        '<div class="legend"><span><i class="gold"></i>gold answer</span><span><i class="pred"></i>parsed prediction</span></div>'
        '<div id="items"></div><div class="pager"><button id="p-prev" type="button">← Previous</button>'
        '<span id="p-info"></span><button id="p-next" type="button">Next →</button></div></section>'
    )


# -- runs and the page ------------------------------------------------------------------------

def _runs_section(summary: Mapping[str, Any], records: Sequence[RunRecord]) -> str:
    has_report = {r.name for r in records if (r.path / "report.html").is_file()}
    body = []
    for name, run in summary["runs"].items():
        link = (f'<a href="{escape(name)}/report.html">{escape(name)}</a>' if name in has_report else escape(name))
        ci = run.get("ci95")
        ci_text = f"{100 * ci[0]:.1f} – {100 * ci[1]:.1f}" if ci else "–"
        status = "complete" if run["complete"] else (run["problem"] or "incomplete")
        body.append(
            f"<tr><td>{link}</td><td>{escape(str(run['setting'] or 'MMMU ' + str(run['split'])))}</td>"
            f"<td>{escape(str(run['prompt']))}</td><td class=n>{_num(run['percent'])}</td><td class=n>{ci_text}</td>"
            f"<td class=n>{run['scored'] if run['scored'] is not None else '–'} / {run['items'] if run['items'] is not None else '–'}</td>"
            f"<td>{escape(status)}</td></tr>"
        )
    return (
        '<section id="runs"><h2>Runs</h2><div class="panel"><table class="t"><thead><tr><th>run</th><th>setting</th>'
        '<th>prompt</th><th class=n>acc %</th><th class=n>95% CI</th><th class=n>scored / items</th><th>status</th>'
        f'</tr></thead><tbody>{"".join(body)}</tbody></table><p class="src">Each run is an ordinary run directory: '
        "<code>mmmu-eval report</code>, <code>compare</code>, <code>score</code> and <code>merge</code> work on it.</p>"
        "</div></section>"
    )


def _when(stamp: str) -> str:
    """An ISO time as people read it, ``2026-12-01 19:39:50 UTC``: it wraps between date and time, not inside."""
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    if when.utcoffset() == dt.timedelta(0):
        return f"{when:%Y-%m-%d %H:%M:%S} UTC"
    return when.isoformat(sep=" ")


def _hero(summary: Mapping[str, Any]) -> str:
    overall = summary["table1"].get("overall")
    if overall is not None:
        low, high = overall["ci95_percent"]
        headline = (f'<span class="big" id="headline">{_num(overall["percent"])}%</span>'
                    f'<span class="ci">MMMU-Pro overall · 95% CI {_num(low)} – {_num(high)}</span>')
    else:
        headline = ('<span class="big" id="headline">–</span><span class="ci">MMMU-Pro overall: '
                    f'{escape(summary["table1"]["reasons"].get("overall", ""))}</span>')
    runs = summary["runs"]
    complete = sum(1 for r in runs.values() if r["complete"])
    facts = [("Status", summary["status"]), ("Runs complete", f"{complete} of {len(runs)}"),
             ("Updated", _when(summary.get("updated_at", ""))), ("mmmu-eval", summary.get("package_version", ""))]
    for key in ("standard_4", "standard_10", "vision"):
        cell = summary["table1"].get(key)
        if cell is not None:
            facts.append((f"{COLUMNS[key]} from", str(cell["mode"])))
    warn = "" if summary["status"] == "complete" else (
        '<div class="warn">Some runs failed or lack answers; their cells are empty. Run the same command again '
        "to finish them (see Runs).</div>")
    return (
        f'<header class="hero" id="overview"><div class="kicker">MMMU-Pro study</div><h1>{escape(summary["model"])}</h1>'
        f'<div class="headline">{headline}</div>{warn}<dl class="facts">'
        + "".join(f'<div class="fact"><dt>{escape(k)}</dt><dd>{escape(str(v))}</dd></div>' for k, v in facts)
        + "</dl></header>"
    )


def render_suite_html(summary: Mapping[str, Any], records: Sequence[RunRecord], *, images: bool = True,
                      image_budget: int = IMAGE_BUDGET) -> str:
    """The whole suite page as one string (``summary`` is suite.json, ``records`` its runs).

    >>> page = render_suite_html(summary, suite_records(suite_dir, runs))
    """
    data = flip_rows(summary, records, images=images, image_budget=image_budget)
    mmmu_cell = summary["table1"].get("mmmu_val")
    mmmu = next((r for r in records if mmmu_cell and r.name == mmmu_cell["run"] and r.results), None)
    script = asset("browser.js") + _suite_asset("suite.js")
    config = {k: summary.get(k) for k in ("config", "planned", "interval")}
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(str(summary['model']))} · MMMU-Pro study</title>"
        f"<style>{asset('report.css')}{_suite_asset('suite.css')}</style></head><body>"
        '<nav class="top"><div><b>mmmu-eval suite</b><a href="#overview">Overview</a><a href="#table1">Table 1</a>'
        '<a href="#cot">CoT</a><a href="#ocr">OCR</a><a href="#flips">Flips</a><a href="#runs">Runs</a>'
        '<a href="#usage">Cost</a><a href="#items-section">Items</a></div></nav><main>'
        + _hero(summary)
        + _table1_section(summary)
        + _effect_section("cot", "CoT effect (section 3.4)", summary["cot_effect"], "cot",
                          "Chain-of-thought against the direct prompt, per setting; the highlighted bar is the "
                          "prompt Table 1 took.", summary["table1"])
        + _effect_section("ocr", "OCR effect (section 3.3)", summary["ocr_effect"], "ocr",
                          "Vision with the OCR prompt (not in the official code) against the direct prompt; a "
                          "highlighted bar is the prompt Table 1 took (it takes the better of direct and CoT only).",
                          summary["table1"])
        + _flips_section(summary["flips"])
        + (expert_section(mmmu.results) if mmmu is not None else "")
        + _runs_section(summary, records)
        + usage_section(summary)
        + _browser(data)
        + f'<footer><p>Generated by mmmu-eval {escape(str(summary.get("package_version", "")))} · suite schema '
        f'{summary.get("schema_version")} · intervals: {escape(str(summary.get("interval", {}).get("method", "")))}'
        '</p><details><summary>Suite configuration</summary><pre class="resp">'
        f"{escape(json.dumps(config, indent=2, sort_keys=True, default=str))}</pre></details></footer></main>"
        + f'<script type="application/json" id="flip-data">{script_json(data)}</script>'
        + f"<script>{script}</script></body></html>"
    )
