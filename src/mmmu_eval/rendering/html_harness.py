"""The HTML report's piece for a rescored run: the other harness beside us, and its items.

Additive to ``html.py``: ``harness_html`` is one more section of the page (the harness's recorded
and per-item accuracy, ours on the same items, the causes of the gap), and ``annotate_rows``
adds to each item-browser row what the harness said about it, so that the browser can show the
items where the verdicts differ (filter "Verdicts differ from the harness"), with the cause on
each card. Every value is escaped here or placed as text by the browser script.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from mmmu_eval.core.numbers import pct
from mmmu_eval.scoring.harness_verdicts import FAILURES


def annotate_rows(rows: list[dict], section: Mapping) -> None:
    """Give each item row a ``harness`` entry: the harness's name, and for differing items their cause."""
    differing = {entry["id"]: entry for entry in section.get("items") or []}
    name = str(section.get("name") or "harness")
    for row in rows:
        entry = differing.get(row["id"])
        row["harness"] = {
            "name": name,
            "differs": entry is not None,
            "cause": entry["cause"] if entry else "",
            "pred": entry["harness"]["pred"] if entry else None,
            "correct": entry["harness"]["correct"] if entry else None,
            "detail": entry["detail"] if entry else "",
        }


def harness_html(section: Mapping) -> str:
    """The ``<section id="harness">`` of the page."""
    name = escape(str(section.get("name") or "harness"))
    recorded = section.get("recorded")
    n = section.get("n") or 0
    parser = escape(str(section.get("parser") or "official"))
    facts = [f'<li class="warn">Warning: {escape(w)}</li>' for w in section.get("warnings") or ()]
    facts += [f"<li>{escape(cause)}: {entry['count']} row(s) where {escape(FAILURES.get(cause, cause))} "
              f"(e.g. {escape(next(iter(entry['items'])))}: {escape(next(iter(entry['items'].values())))})</li>"
              for cause, entry in (section.get("failures") or {}).items() if entry.get("count")]
    if recorded:
        facts.append(f"<li>{name} recorded <b>{pct(recorded['accuracy'])}%</b> "
                     f"<span class=\"src\">({escape(str(recorded['source']))})</span></li>")
    if n:
        facts.append(
            f"<li>{name}'s per-item verdicts: <b>{section['correct']} / {n}</b> ({pct(section['accuracy'])}%); "
            f"the {parser} parser on the same items: <b>{section['official_correct']} / {n}</b> "
            f"({pct(section['official_accuracy'])}%), {pct(section['difference'], signed=True)} points</li>"
        )
    else:
        facts.append(f"<li>{name} recorded no per-item verdicts to set beside ours.</li>")
    if section.get("without_verdict"):
        facts.append(f"<li>{section['without_verdict']} items without a verdict of {name}.</li>")
    body = "".join(
        f'<tr><td>{escape(cause)}</td><td class="n">{row["items"]}</td><td class="n">{row["official_only_right"]}</td>'
        f'<td class="n">{row["harness_only_right"]}</td><td>{escape(row["meaning"])}</td></tr>'
        for cause, row in (section.get("causes") or {}).items()
    )
    table = (
        f'<table class="t"><thead><tr><th>cause</th><th class="n">items</th><th class="n">{parser} right</th>'
        f'<th class="n">{name} right</th><th>meaning</th></tr></thead><tbody>{body}</tbody></table>'
        if body else "<p>The verdicts agree on every item both scored.</p>"
    )
    return (
        f'<section id="harness"><h2>Beside {name}</h2><div class="panel"><ul>{"".join(facts)}</ul>{table}'
        f"<p class=\"src\">The responses are the harness's; every verdict of ours above the table is the {parser} "
        "parser's. In the item browser, show \"Verdicts differ from the harness\" to read each item.</p>"
        "</div></section>"
    )
