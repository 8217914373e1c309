"""``report.html``: one self-contained page that opens offline and lets a person look.

What it holds: the headline with its interval; per-discipline and per-subject charts and the
run among published results (``html_charts.py``, over ``charts.py`` and ``published.json``);
the breakdowns; and an item browser (question, images, options, prompt, raw response, parsed prediction, gold
answer, verdict) with filters.

Safety. Model output and dataset text are untrusted. Text placed in the HTML goes through
``html.escape``; the item data travels as JSON inside ``<script type="application/json">`` with
``<``, ``>`` and ``&`` written as ``\\u003c`` ... so no string can close the element or open a
comment; the browser script shows it only via ``textContent``. A Content-Security-Policy allows
exactly our own script (by hash), inline styles and ``data:`` images, so even a mistake in
escaping could not run injected script or reach the network.

The head, the policy, the JSON escaping, the data URLs and the budget's unit are the page kit's
(``page.py``), shared with every other page the project writes.

Images. The stored bytes are embedded as ``data:`` URLs, not thumbnails: a person judging a
wrong answer needs the real figure. Size is bounded by a budget (``IMAGE_BUDGET``, 64 MiB by
default): items that most need looking at (errors, wrong answers, fallbacks) get their images
first; past the budget an image shows a note instead (``html_items.py``). ``images=False``
(``--no-images``) embeds none. TIFF and BMP, which browsers do not show, are converted to PNG.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING

from mmmu_eval.core.records import Item, Response
from mmmu_eval.rendering.html_charts import charts_section, published_section
from mmmu_eval.rendering.html_harness import annotate_rows, harness_html
from mmmu_eval.rendering.html_causes import doctor_section
from mmmu_eval.rendering.html_items import item_rows, loaded_url, marker
from mmmu_eval.rendering.html_sections import expert_section, mark_loose_images, usage_section
from mmmu_eval.results.caveats import NO_SCORE, fallback_warning, how_to_score, ungraded, unparsed, void, void_reason
from mmmu_eval.core.numbers import interval, pct
from mmmu_eval.rendering.page import IMAGE_BUDGET, asset, head, script_json
from mmmu_eval.results.results_json import Results, Row
from mmmu_eval.stats.sampled import sample_lines
from mmmu_eval.results.scope import scope_of_results

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring

__all__ = ["IMAGE_BUDGET", "html_chunks", "item_rows", "render_html", "script_json"]


def _pct(x: float | None) -> str:
    """``51.9%``; ``no score`` where no item was scored (never 0.0%)."""
    return NO_SCORE if x is None else f"{pct(x)}%"


def _fact(label: str, value: str, *, alert: bool = False) -> str:
    """One card of the headline's facts; ``alert`` highlights it (a figure that needs reading twice)."""
    return f'<div class="fact{" alert" if alert else ""}"><dt>{escape(label)}</dt><dd>{escape(value)}</dd></div>'


def _table(title: str, rows: Mapping[str, Row], *, wide: bool = False) -> str:
    """One breakdown card; ``wide`` spans the whole grid row (image types: many rows, long names)."""
    body = "".join(
        f'<tr><td>{escape(k)}</td><td class="n">{r["n"]}</td><td class="n">{r["correct"]}</td>'
        f'<td class="n">{_pct(r["accuracy"])}</td></tr>'
        for k, r in rows.items()
    )
    return (
        f'<div class="panel{" wide" if wide else ""}"><h3>{escape(title)}</h3><table class="t"><thead><tr><th></th>'
        f'<th class="n">n</th><th class="n">correct</th><th class="n">acc</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _crowded(rows: Mapping[str, Row]) -> bool:
    """Too many rows or too long a name for a quarter-width card (MMMU's combined image types)."""
    return len(rows) > 12 or any(len(key) > 24 for key in rows)


def _hero(results: Results) -> str:
    run = results["run"]
    overall = results["overall"]
    parse = results["parse"]
    cov = results["coverage"]
    what = "MMMU-Pro" if results["benchmark"] == "mmmu-pro" else "MMMU"
    rescored = run.get("rescored_from")
    # A rescored run's prompts were the other harness's: no prompt mode of ours is named for it.
    how = f"rescored from {rescored}" if rescored else run["prompt_mode"]
    kicker = " · ".join(x for x in (what, results["setting"] or results["split"], how) if x)
    scope = scope_of_results(results)
    is_void, no_gold = void(results), ungraded(results)
    luck = fallback_warning(results)
    facts = [
        ("Predictions (no gold answer)", f"{cov['ungraded']} of {cov['items']}") if no_gold
        else ("Scored items", f"{cov['scored']} of {cov['items']}"),
    ]
    # The fallback cards stand next to each other, and next to the headline they qualify.
    if no_gold:
        facts.append(("Unparsed answers", f"{unparsed(results)} of {cov['ungraded']}"))
    elif is_void:
        facts.append(("Accuracy", NO_SCORE))
    else:
        facts += [
            ("Random fallbacks", f"{parse['fallbacks']} ({_pct(parse['fallback_rate'])})"),
            ("Fallbacks counted wrong", _pct(parse["deterministic_accuracy"])),
            ("Fallbacks at expected value", _pct(parse["expected_accuracy"])),
        ]
    facts += [
        ("Errors (not scored)", str(cov["errors"])),
        ("Missing responses", str(cov["missing"])),
        ("Truncated (scored)", "–" if cov["truncated"] is None else str(cov["truncated"])),
    ]
    if rescored:
        facts.append(("Responses from", f"{rescored} (its prompts and requests)"))
    else:
        facts += [
            ("Protocol", {True: "official", False: "not official", None: "unknown"}[run["official"]]),
            ("Prompt fingerprint", (run["protocol_fingerprint"] or "unknown")[:16]),
        ]
    facts.append(("Dataset revision", (run["dataset_revision"] or "unknown")[:24]))
    alert = {"Random fallbacks", "Fallbacks counted wrong"} if luck else set()
    warnings = []
    if no_gold:
        warnings.append(f"No gold answers: this run has no accuracy; {how_to_score(results)}.")
    elif is_void:
        warnings.append(f"No accuracy: {void_reason(results)}; {how_to_score(results)}.")
    if luck:
        warnings.append(f"Warning: {luck}.")
    if run["official"] is False:
        warnings.append("This run did not follow the official protocol; compare it with published figures with care.")
    if no_gold:
        figure = (f'<span class="big void" id="headline">no gold answers</span><span class="ci">{cov["ungraded"]} '
                  f"predictions, {unparsed(results)} of them unparsed</span>")
    elif is_void:
        figure = (f'<span class="big void" id="headline">{NO_SCORE}</span>'
                  f'<span class="ci">{escape(str(void_reason(results)))}</span>')
    else:
        figure = (f'<span class="big" id="headline">{_pct(overall["accuracy"])}</span>'
                  f'<span class="ci">95% CI {escape(interval(overall["ci95"]))} · {overall["correct"]} / '
                  f'{overall["n"]} correct</span>')
    return (
        f'<header class="hero" id="overview"><div class="kicker">{escape(kicker)}</div>'
        f"<h1>{escape(run['model'] or 'unknown model')}</h1>"
        f'<div class="headline">{figure}</div>'
        f'<div class="scope{"" if scope.full else " partial"}" id="scope">{escape(scope.text)}</div>'
        # run --sample: the exact interval, the audit's check and each estimate with its interval
        + "".join(f'<div class="scope partial sample">{escape(line)}</div>' for line in sample_lines(results.get("sample") or {}))
        + "".join(f'<div class="warn">{escape(w)}</div>' for w in warnings)
        + f'<dl class="facts">{"".join(_fact(k, v, alert=k in alert) for k, v in facts)}</dl></header>'
    )


def _browser(results: Results, rows: list[dict]) -> str:
    counts = {
        "all": len(rows),
        "wrong": sum(r["verdict"] == "wrong" for r in rows),
        "correct": sum(r["verdict"] == "correct" for r in rows),
        "fallback": sum(r["fallback"] for r in rows),
        "disagree": sum(r["disagree"] for r in rows),
        "error": sum(r["status"] == "error" for r in rows),
        "truncated": sum(r["status"] == "truncated" for r in rows),
        "missing": sum(r["status"] == "missing" for r in rows),
        "loose": sum(bool(r.get("loose")) for r in rows),
    }
    labels = {
        "all": "All items", "wrong": "Wrong only", "correct": "Correct only", "fallback": "Random fallbacks",
        "disagree": "Parsers disagree", "error": "Errors", "truncated": "Truncated", "missing": "Missing",
        "loose": "Images no token refers to",
    }
    if any("harness" in r for r in rows):  # a rescored run (html_harness.py)
        counts["harness"] = sum(r["harness"]["differs"] for r in rows)
        labels["harness"] = "Verdicts differ from the harness"
    show = "".join(f'<option value="{k}">{labels[k]} ({counts[k]})</option>' for k in labels)
    subjects = sorted({r["subject"] for r in rows})
    subject_opts = '<option value="">All subjects</option>' + "".join(
        f'<option value="{escape(s)}">{escape(s.replace("_", " "))}</option>' for s in subjects
    )
    return (
        '<section id="items-section"><h2>Items</h2><div class="filters">'
        f'<select id="f-show" aria-label="Show">{show}</select>'
        f'<select id="f-subject" aria-label="Subject">{subject_opts}</select>'
        '<input id="f-search" type="search" placeholder="Search id, question, response" aria-label="Search">'
        '<span id="f-count"></span></div>'
        '<div class="legend"><span><i class="gold"></i>gold answer</span>'
        '<span><i class="pred"></i>parsed prediction</span></div><div id="items"></div>'
        '<div class="pager"><button id="p-prev" type="button">← Previous</button><span id="p-info"></span>'
        '<button id="p-next" type="button">Next →</button></div></section>'
    )


def render_html(
    results: Results,
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    manifest: Mapping,
    *,
    prompts: Mapping[str, str],
    images: bool = True,
    image_budget: int = IMAGE_BUDGET,
    harness: Mapping | None = None,
    published: str | float | None = None,
) -> str:
    """The whole report page as one string (``html_chunks`` joined).

    To write it, prefer ``store.write_stream("report.html", html_chunks(...))``: the page with
    its images (up to 64 MiB of them) is then never in memory at once.

    With a run's pieces (as ``run/outputs.py`` gathers them; a sketch)::

        html = render_html(results, items, responses, scoring, manifest, prompts={})
    """
    return "".join(html_chunks(results, items, responses, scoring, manifest, prompts=prompts,
                               images=images, image_budget=image_budget, harness=harness, published=published))


def html_chunks(
    results: Results,
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    manifest: Mapping,
    *,
    prompts: Mapping[str, str],
    images: bool = True,
    image_budget: int = IMAGE_BUDGET,
    harness: Mapping | None = None,
    published: str | float | None = None,
) -> Iterator[str]:
    """The report page in pieces, in order: the page up to the item data, one piece per item, the rest.

    Each item's images are read and encoded only when its piece is made, so memory holds the
    item browser's text and one item's images, not the page.

    Args:
        results: ``build_results(...)`` of the run.
        items, responses, scoring: what the item browser shows.
        manifest: the run's manifest (shown in the footer).
        prompts: item id -> the prompt text the model saw (empty when unknown).
        images: embed the items' images (False: ``--no-images``).
        image_budget: most bytes of embedded images.
        harness: a rescored run's ``harness`` section of results.json (``html_harness.py``).
        published: a published figure (percent) or model name the doctor's section sets the run
            against (``report --published``); None: the row of exactly the run's model name, if any.

    Raises:
        ConfigError: ``published`` names no model published for the run's benchmark variant
            (raised before the first piece, so nothing is written).

    As ``run/outputs.py`` writes it (a sketch)::

        store.write_stream("report.html", html_chunks(results, items, responses, scoring, manifest, prompts={}))
    """
    doctor = doctor_section(results, manifest, items, responses, scoring, published=published)
    rows = item_rows(items, responses, scoring, prompts, images=images, image_budget=image_budget, embed=False)
    mark_loose_images(rows, items, manifest)
    if harness:
        annotate_rows(rows, harness)
    script = asset("browser.js") + asset("report.js")
    yield _page_start(results, rows, manifest, script, harness, doctor)
    yield '<script type="application/json" id="items-data">['
    for i, row in enumerate(rows):
        # The page holds script_json(rows); a list's JSON is its rows' JSON joined by commas, and
        # a data URL needs no escaping, so each image goes in where its marker stands.
        text = script_json(row)
        for k, ref in enumerate(items[i].images):
            where = marker(i, k)
            if where in text:
                url = loaded_url(ref)
                text = text.replace(f'"{where}"', "null" if url is None else f'"{url}"')
        yield ("," if i else "") + text
    yield f"]</script><script>{script}</script></body></html>"


def _page_start(results: Results, rows: list[dict], manifest: Mapping, script: str, harness: Mapping | None,
                doctor: str = "") -> str:
    """Everything before the item data: head, headline, charts, published, breakdowns, browser, footer."""
    run = results["run"]
    title = f"{run['model'] or 'run'} · {results['benchmark']} {results['setting'] or results['split']}"
    breakdowns = "".join(
        _table(t, results[k], wide=_crowded(results[k]))  # type: ignore[literal-required]
        for t, k in (
            ("Question type", "by_question_type"),
            ("Option count", "by_option_count"),
            ("Topic difficulty", "by_topic_difficulty"),
            ("Image type", "by_img_type"),
        )
        if results[k]  # type: ignore[literal-required]
    )
    parser_rows = {name: {"n": p["n"], "correct": p["correct"], "accuracy": p["accuracy"]} for name, p in results["parsers"].items()}
    interval = results["interval"]
    footer = (
        f"Generated by mmmu-eval {escape(str(run['package_version'] or ''))} · results schema "
        f"{results['schema_version']} · intervals: {escape(interval['method'])}, {interval['resamples']} "
        f"resamples, seed {interval['seed']} · prompt fingerprint {escape(run['protocol_fingerprint'] or 'unknown')}"
        f" · dataset {escape(run['dataset_revision'] or 'unknown')} {escape(run['dataset_digest'] or '')}"
    )
    return (
        head(title, style=asset("report.css"), script=script)
        + '<nav class="top"><div><b>mmmu-eval report</b><a href="#overview">Overview</a>'
        '<a href="#disciplines">Disciplines</a><a href="#subjects">Subjects</a><a href="#published">Published</a>'
        '<a href="#breakdowns">Breakdowns</a><a href="#items-section">Items</a></div></nav><main>'
        + _hero(results)
        # A rescored page's point: the harness's own figure beside ours, first.
        + (harness_html(harness) if harness else "")
        + expert_section(results)
        + charts_section(results)
        + published_section(results)
        + ("" if void(results) else doctor)  # the causes bound a figure; a void run has none
        + f'<section id="breakdowns"><h2>Breakdowns</h2><div class="grid2">{breakdowns}'
        + ("" if void(results) else _table("Parsers (first = headline)", parser_rows))
        + "</div></section>"
        # Requests, tokens and latency of a rescored run were the harness's, never sent from here.
        + ("" if run.get("rescored_from") else usage_section(results))
        + _browser(results, rows)
        + f'<footer><p>{footer}</p><details><summary>Run manifest</summary><pre class="resp">'
        f"{escape(json.dumps(manifest, indent=2, sort_keys=True, default=str))}</pre></details></footer></main>"
    )
