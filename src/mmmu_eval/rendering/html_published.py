"""The report page's lookup of today's models: the official MMMU leaderboard's rows for the run's
benchmark variant (``published.leaderboard_for``), each with its date, kind, who reported it and
its link, and a box that filters them by name (``report.js``). The papers' tables stay in the
chart above it; the leaderboard's 200-odd rows, most reported by the models' authors with no
protocol stated per row, are listed apart so a user of a 2025-2026 model finds it by name and
reads what its figure is.
"""

from __future__ import annotations

from html import escape

from mmmu_eval.core.numbers import fixed
from mmmu_eval.published.figures import Published, leaderboard_for, name_key, sources

__all__ = ["leaderboard_panel"]

OVERALL = "mmmu-pro/overall"


def _reported(row: Published, key: str) -> str:
    """Who ran the figure of this key: the row's ``reported_by`` for its benchmark."""
    by = row.details.get("reported_by") or {}
    who = by.get(key) or by.get(key.split("/", 1)[0]) or by.get("mmmu-pro" if key.startswith("mmmu-pro") else key)
    return str(who) if who else "not stated"


def leaderboard_panel(key: str, model: str | None) -> str:
    """``<div id="leaderboard">``: the leaderboard's rows for ``key``, best first, the row named
    exactly as the run's ``model`` (if any) marked; empty when the leaderboard has none.

    For an MMMU-Pro setting, the rows that give only the MMMU-Pro overall figure (most of today's
    models) are listed too, after those with the setting's own, so a model is found by name
    whichever figure its reporter gave; each figure stays in its own column.
    """
    rows = leaderboard_for(key)
    overall = {r.model: r for r in leaderboard_for(OVERALL)} if key.startswith("mmmu-pro/") and key != OVERALL else {}
    extra = [r for r in overall.values() if r.model not in {x.model for x in rows}]
    if not rows and not extra:
        return ""
    source = sources()[(rows or extra)[0].source]
    mine = name_key(model) if model else None
    body = []
    for r in (*rows, *extra):
        me = ' class="me"' if mine and name_key(r.model) == mine else ""
        link = r.details.get("link")
        name = (f'<a href="{escape(link)}" rel="noreferrer">{escape(r.model)}</a>' if link else escape(r.model))
        figure = fixed(r.percent) if r in rows else "-"
        cells = f'<td class="n">{figure}</td>'
        if overall:
            cells += f'<td class="n">{fixed(overall[r.model].percent) if r.model in overall else "-"}</td>'
        body.append(f'<tr{me} data-name="{escape(r.model.lower())}"><td>{name}</td>{cells}'
                    f'<td>{escape(str(r.details.get("date", "")))}</td><td>{escape(str(r.details.get("kind", "")))}</td>'
                    f"<td>{escape(_reported(r, key))}</td></tr>")
    heads = f'<th class="n">{escape(key.split("/", 1)[1])}</th>' + ('<th class="n">overall</th>' if overall else "")
    protocol = (source.protocol or {}).get("note") or ""
    count = f"{len(rows)} rows for {key}" + (f", {len(extra)} more with only the MMMU-Pro overall" if extra else "")
    return (
        f'<div id="leaderboard"><h3>Today\'s models: the MMMU leaderboard ({escape(count)})</h3>'
        '<input id="lb-search" type="search" placeholder="Find a model by name" aria-label="Find a model by name">'
        '<span id="lb-count" class="src"></span>'
        f'<div class="lb-scroll"><table class="t" id="leaderboard-table"><thead><tr><th>model</th>{heads}'
        f'<th>listed</th><th>kind</th><th>reported by</th></tr></thead><tbody>{"".join(body)}</tbody></table></div>'
        f'<p class="src"><a href="{escape(source.url)}">{escape(source.title)}</a>. {escape(source.note)} '
        f"Protocol: {escape(protocol)}. <code>mmmu-eval doctor RUN --published NAME</code> sets a run against one "
        "of these rows by name.</p></div>"
    )
