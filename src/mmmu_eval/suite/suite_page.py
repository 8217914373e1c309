"""The suite's ``report.html``: one self-contained page for the whole MMMU-Pro study.

What it holds: the model's Table 1 row among the paper's published rows (Random and Frequent
Choice included, with sources); the CoT effect per setting and the OCR effect in vision as small
charts in the manner of the paper's Figures 6 and 7 (accuracies side by side, then the paired
difference with its interval and McNemar p); the section 3.5 flip sets, counted per discipline,
in an item browser that shows both settings of each item side by side (question, images, each
setting's options, both responses and both parsed answers); the MMMU validation run against the
MMMU human experts and the cost and usage of all runs together (the run report's sections,
``rendering/html_sections.py``); and every run with a link to its own report.

Safety is the page kit's (``rendering/page.py``), as in the run report: text is escaped, item data
travels as ``script_json`` and is shown only via ``textContent``, and the page's
Content-Security-Policy admits exactly its own script. Images are embedded once each (standard-4
and standard-10 share theirs) within the kit's image budget.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from fractions import Fraction
from html import escape
from typing import Any

from mmmu_eval.core.errors import MmmuEvalError
from mmmu_eval.core.records import Item, Response, letters
from mmmu_eval.rendering.page import IMAGE_BUDGET, ImageBudget, asset, data_url, head, script_json
from mmmu_eval.rendering.html_sections import expert_section, usage_section
from mmmu_eval.core.numbers import interval, pct
from mmmu_eval.results.caveats import NO_SCORE
from mmmu_eval.results.finished_run import FinishedRun
from mmmu_eval.suite.html_study import effect_section, num, table1_section
from mmmu_eval.suite.study import COLUMNS
from mmmu_eval.core.untrusted import capped, capped_or_none

__all__ = ["flip_rows", "render_suite_html"]

log = logging.getLogger(__name__)

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
            f"<td class=n>{pct(Fraction(c['count'], c['shared']) if c['shared'] else None)}</td></tr>"
            for d, c in entry["by_discipline"].items()
        )
        panels.append(
            f'<div class="panel"><h3>{escape(entry["what"])}</h3><p><b>{entry["count"]}</b> of {entry["shared"]} '
            f'items ({entry["reverse_count"]} the other way): right in {escape(a["setting"])} ({escape(a["mode"])}), '
            f'wrong in {escape(b["setting"])} ({escape(b["mode"])}).</p><table class="t"><thead><tr><th>discipline</th>'
            f'<th class=n>items</th><th class=n>of</th><th class=n>%</th></tr></thead><tbody>{body}</tbody></table></div>'
        )
    return f'<section id="flips"><h2>Flips (section 3.5)</h2><div class="grid2">{"".join(panels)}</div></section>'


def _side(record: FinishedRun, item: Item | None, response: Response | None, pred: str | None,
          images: dict[str, str], budget: ImageBudget) -> dict[str, Any]:
    verdict = (record.results or {}).get("verdicts", {}).get(item.id if item else "", {})
    side: dict[str, Any] = {
        "label": record.label,
        "run": record.name,
        "options": list(item.options) if item else [],
        "letters": (list(item.choices) or list(letters(len(item.options)))) if item else [],
        "answer": ([item.answer] if isinstance(item.answer, str) else list(item.answer or ())) if item else [],
        "images": [],
        "response": capped(response.text) if response is not None else "",  # copies: the whole text is in responses.jsonl
        "pred": capped_or_none(pred),
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
            if not budget.take(len(url)):
                entry["note"] = "not embedded: the report's image budget is spent"
                side["images"].append(entry)
                continue
            images[key] = url
        entry["ref"] = key
        side["images"].append(entry)
    return side


def flip_rows(summary: Mapping[str, Any], records: Sequence[FinishedRun], *, images: bool = True,
              image_budget: int = IMAGE_BUDGET) -> dict[str, Any]:
    """The flip browser's data: ``{"sets", "items", "images", "notes"}``, JSON-ready.

    Items and responses are read back from the two runs' directories (the dataset loaded as the
    run's manifest says); a run whose items cannot be loaded shows responses without them.
    """
    from mmmu_eval.results.finished_run import run_items

    by_name = {r.name: r for r in records}
    loaded: dict[str, tuple[dict[str, Item], dict[str, Response]]] = {}
    notes: list[str] = []

    def load(record: FinishedRun) -> tuple[dict[str, Item], dict[str, Response]]:
        if record.name not in loaded:
            responses: dict[str, Response] = {}
            items: dict[str, Item] = {}
            try:
                responses = record.read_responses()
                items = {it.id: it for it in run_items(record.manifest, responses)}
            except MmmuEvalError as exc:
                notes.append(f"{record.name}: its items could not be loaded ({exc}); shown without them")
            loaded[record.name] = (items, responses)
        return loaded[record.name]

    pool: dict[str, str] = {}
    budget = ImageBudget(image_budget if images else 0)
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

def _runs_section(summary: Mapping[str, Any], records: Sequence[FinishedRun]) -> str:
    has_report = {r.name for r in records if (r.path / "report.html").is_file()}
    body = []
    for name, run in summary["runs"].items():
        link = (f'<a href="{escape(name)}/report.html">{escape(name)}</a>' if name in has_report else escape(name))
        ci = run.get("ci95")
        ci_text = escape(interval(ci)) if ci else "–"
        status = "complete" if run["complete"] else (run["problem"] or "incomplete")
        body.append(
            f"<tr><td>{link}</td><td>{escape(str(run['setting'] or 'MMMU ' + str(run['split'])))}</td>"
            f"<td>{escape(str(run['prompt']))}</td><td class=n>"
            f"{NO_SCORE if run['percent'] is None and run['items'] is not None else num(run['percent'])}</td><td class=n>{ci_text}</td>"
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
    scope = summary.get("scope") or {}
    if overall is not None:
        headline = (f'<span class="big" id="headline">{num(overall["percent"])}%</span>'
                    f'<span class="ci">MMMU-Pro overall · 95% CI '
                    f'{escape(interval(overall["ci95_percent"], as_is=True))}</span>')
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
        f'<div class="headline">{headline}</div>'
        + (f'<div class="scope{"" if scope.get("kind") == "full" else " partial"}" id="scope">{escape(scope["text"])}</div>'
           if scope.get("text") else "")
        + f'{warn}<dl class="facts">'
        + "".join(f'<div class="fact"><dt>{escape(k)}</dt><dd>{escape(str(v))}</dd></div>' for k, v in facts)
        + "</dl></header>"
    )


def render_suite_html(summary: Mapping[str, Any], records: Sequence[FinishedRun], *, images: bool = True,
                      image_budget: int = IMAGE_BUDGET) -> str:
    """The whole suite page as one string (``summary`` is suite.json, ``records`` its runs).

    >>> from mmmu_eval.suite.execute import evaluate_suite
    >>> suite = evaluate_suite(model="frequent", data="sample", out="suites/frequent", prompts=["direct"])
    >>> from mmmu_eval.suite.run_records import suite_records
    >>> page = render_suite_html(suite.summary, suite_records(suite.suite_dir))
    >>> page.lstrip()[:9].lower() == "<!" + "doctype", "the published rows are left out" in page  # the sample: never beside them
    (True, True)
    """
    from mmmu_eval.rendering.html_causes import suite_doctor_section

    data = flip_rows(summary, records, images=images, image_budget=image_budget)
    mmmu_cell = summary["table1"].get("mmmu_val")
    mmmu = next((r for r in records if mmmu_cell and r.name == mmmu_cell["run"] and r.results), None)
    script = asset("browser.js") + asset("suite.js", "mmmu_eval.suite")
    config = {k: summary.get(k) for k in ("config", "planned", "interval")}
    return (
        head(f"{summary['model']} · MMMU-Pro study", style=asset("report.css") + asset("suite.css", "mmmu_eval.suite"),
             script=script)
        + '<nav class="top"><div><b>mmmu-eval suite</b><a href="#overview">Overview</a><a href="#table1">Table 1</a>'
        '<a href="#cot">CoT</a><a href="#ocr">OCR</a><a href="#flips">Flips</a><a href="#runs">Runs</a>'
        '<a href="#usage">Cost</a><a href="#items-section">Items</a></div></nav><main>'
        + _hero(summary)
        + table1_section(summary)
        + effect_section("cot", "CoT effect (section 3.4)", summary["cot_effect"], "cot",
                          "Chain-of-thought against the direct prompt, per setting; the highlighted bar is the "
                          "prompt Table 1 took.", summary["table1"])
        + effect_section("ocr", "OCR effect (section 3.3)", summary["ocr_effect"], "ocr",
                          "Vision with the OCR prompt (not in the official code) against the direct prompt; a "
                          "highlighted bar is the prompt Table 1 took (it takes the better of direct and CoT only).",
                          summary["table1"])
        + _flips_section(summary["flips"])
        + (expert_section(mmmu.results) if mmmu is not None else "")
        + _runs_section(summary, records)
        + suite_doctor_section(records)
        + usage_section(summary)
        + _browser(data)
        + f'<footer><p>Generated by mmmu-eval {escape(str(summary.get("package_version", "")))} · suite schema '
        f'{summary.get("schema_version")} · intervals: {escape(str(summary.get("interval", {}).get("method", "")))}'
        '</p><details><summary>Suite configuration</summary><pre class="resp">'
        f"{escape(json.dumps(config, indent=2, sort_keys=True, default=str))}</pre></details></footer></main>"
        + f'<script type="application/json" id="flip-data">{script_json(data)}</script>'
        + f"<script>{script}</script></body></html>"
    )
