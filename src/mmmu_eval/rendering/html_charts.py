"""The report page's bar charts: accuracy by discipline, by subject, and the run among published results.

They live apart from ``html.py``, which places the page's sections, because the three sections
are one concern: bars with their intervals drawn by ``charts.py``, each set against the run's
overall figure or the published ones, and each refusing to draw what the run cannot support (no
gold answers: no bars; a sample or partial run: no place among full-split figures, said so). Text
goes through ``html.escape``; the SVG comes from ``charts.py``.
"""

from __future__ import annotations

from html import escape

from mmmu_eval.results.caveats import NO_SCORE, void, void_reason
from mmmu_eval.rendering.charts import ACCENT, DISCIPLINE_COLORS, NEUTRAL, Bar, bar_chart, ci_note
from mmmu_eval.rendering.html_published import leaderboard_panel
from mmmu_eval.core.numbers import pct
from mmmu_eval.doctor.outside import run_model_name
from mmmu_eval.published.figures import published_for, score_key, sources
from mmmu_eval.results.results_json import Results
from mmmu_eval.results.scope import scope_of_results

__all__ = ["charts_section", "published_section"]


def _pct(x: float) -> str:
    return f"{pct(x)}%"


def _discipline_chart(results: Results) -> str:
    bars = [
        Bar(d, r["accuracy"], tuple(r["ci95"]), DISCIPLINE_COLORS.get(d, NEUTRAL), f"n={r['n']}")
        for d, r in results["by_discipline"].items()
    ]
    overall = results["overall"]["accuracy"]
    return bar_chart(bars, title="Accuracy by discipline", reference=(overall, f"overall {_pct(overall)}"))


def _subject_chart(results: Results) -> str:
    from mmmu_eval.dataset.subjects import DISCIPLINES

    bars: list[Bar] = []
    for discipline, members in DISCIPLINES.items():
        present = [s for s in members if s in results["by_subject"]]
        if not present:
            continue
        color = DISCIPLINE_COLORS[discipline]
        bars.append(Bar(discipline, 0.0, color=color, heading=True))
        for s in present:
            r = results["by_subject"][s]
            bars.append(Bar(s.replace("_", " "), r["accuracy"], tuple(r["ci95"]), color, f"n={r['n']}", indent=True))
    overall = results["overall"]["accuracy"]
    return bar_chart(bars, title="Accuracy by subject", reference=(overall, f"overall {_pct(overall)}"), row=20)


def charts_section(results: Results) -> str:
    """The discipline and subject charts; without gold answers a note instead of empty bars."""
    if void(results):
        note = f'<p class="src">{escape(NO_SCORE)} ({escape(str(void_reason(results)))}): nothing to chart.</p>'
        return (f'<section id="disciplines"><h2>By discipline</h2>{note}</section>'
                f'<section id="subjects"><h2>By subject</h2>{note}</section>')
    return (
        f'<section id="disciplines"><h2>By discipline</h2><div class="panel">{_discipline_chart(results)}'
        '<p class="src">Bars: accuracy; whiskers: 95% interval (bootstrap stratified by subject; Wilson for cells '
        "under 30 items).</p></div></section>"
        f'<section id="subjects"><h2>By subject</h2><div class="panel">{_subject_chart(results)}</div></section>'
    )


def published_section(results: Results) -> str:
    key = score_key(results["benchmark"], results["split"], results["setting"])
    published = published_for(key)
    scope = scope_of_results(results)
    # today's models by name: a look-up, shown whatever the run is
    lookup = leaderboard_panel(key, run_model_name(results["run"]["model"]))
    if void(results) or scope.kind == "sample":
        why = (f"This run has no accuracy to place among them: {void_reason(results)}."
               if void(results) else f"This run is on the {scope.text}: no published figure applies.")
        return (f'<section id="published"><h2>Among published results</h2><p class="src" id="published-note">'
                f"{escape(why)}</p>" + (f'<div class="panel">{lookup}</div>' if lookup else "") + "</section>")
    if not published:
        return (
            '<section id="published"><h2>Among published results</h2><p class="src">No published '
            f"figures for {escape(key)} (only MMMU validation/test and the MMMU-Pro settings have them).</p></section>"
        )
    srcs = sources()
    marker = {k: f"[{i + 1}]" for i, k in enumerate(srcs)}
    model = results["run"]["model"] or "this run"
    overall = results["overall"]
    this = "this run" if scope.full else f"this run, {scope.kind}"
    run_bar = Bar(f"▶ {model} ({this})", overall["accuracy"], tuple(overall["ci95"]), ACCENT, ci_note(overall["ci95"]),
                  strong=True)
    bars = [
        Bar(p.model, p.percent / 100, None, "#cfd8dc" if p.baseline else NEUTRAL, marker[p.source])
        for p in published
    ]
    at = next((i for i, b in enumerate(bars) if b.value < overall["accuracy"]), len(bars))
    bars.insert(at, run_bar)
    notes = "".join(
        f'<li>{escape(marker[k])} <a href="{escape(s.url)}">{escape(s.title)}</a>. {escape(s.note)}</li>'
        for k, s in srcs.items()
        if any(p.source == k for p in published)
    )
    pro_note = (
        "<p class=\"src\">Published MMMU-Pro figures are the better of the direct and CoT prompts; "
        "this run used one prompt mode.</p>"
        if results["benchmark"] == "mmmu-pro"
        else ""
    )
    caveat = "" if scope.full else (
        f'<p class="warn" id="published-scope">Not like for like: this run is on a {escape(scope.text)}; the published '
        f"figures are on the full {escape(scope.split)}.</p>")
    return (
        f'<section id="published"><h2>Among published results <span class="src">({escape(key)})</span></h2>'
        f'<div class="panel">{caveat}{bar_chart(bars, title="Published accuracies and this run", label_width=270, row=19)}'
        f'{pro_note}<ol class="src" style="list-style:none;padding:0">{notes}</ol>{lookup}</div></section>'
    )
