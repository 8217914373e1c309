"""Sections of ``report.html`` beyond the core page: human expert level, cost and usage, and the
item browser's marks for images no token refers to.

Each function takes what results.json or the manifest already hold and returns an HTML string
(or marks the browser rows), so ``html.render_html`` only places them. Text goes through
``html.escape``; the browser rows travel as JSON and are shown with ``textContent``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from mmmu_eval.prompt.layout import UNREFERENCED_RULES, loose_images
from mmmu_eval.core.records import Item
from mmmu_eval.rendering.charts import ACCENT, NEUTRAL, Bar, bar_chart, ci_note
from mmmu_eval.core.numbers import fixed
from mmmu_eval.published.figures import expert_levels, expert_line, experts_source
from mmmu_eval.results.caveats import void
from mmmu_eval.results.results_json import Results
from mmmu_eval.results.scope import scope_of_results
from mmmu_eval.results.usage import usage_rows
from mmmu_eval.core.manifest import Manifest

#: Words for ``expert_levels``'s verdicts, in the table.
_REACHES = {"yes": "reached", "no": "not reached", "within interval": "within the interval: undecided"}


def shows_experts(results: Results) -> bool:
    """Expert figures exist for MMMU validation only, and never for the synthetic sample."""
    return (results["benchmark"] == "mmmu" and results["split"] == "validation" and not void(results)
            and scope_of_results(results).kind != "sample")


def expert_section(results: Results) -> str:
    """The run against the three MMMU human-expert tiers, with its interval; empty where none apply."""
    if not shows_experts(results):
        return ""
    overall = results["overall"]
    scope = scope_of_results(results)
    ci = (overall["ci95"][0], overall["ci95"][1])
    levels = expert_levels(overall["accuracy"], ci)
    model = results["run"]["model"] or "this run"
    # Each bar prints its value once (the chart writes it); the run's bar adds its interval's numbers.
    bars = [Bar(x["name"], x["score"], None, NEUTRAL) for x in reversed(levels)]
    bars.append(Bar(f"▶ {model} (this run)", overall["accuracy"], ci, ACCENT, ci_note(ci), strong=True))
    rows = "".join(
        f'<tr><td>{escape(x["name"])}</td><td class="n">{fixed(x["percent"])}%</td>'
        f'<td class="reach-{escape(x["reaches"].replace(" ", "-"))}">{escape(_REACHES[x["reaches"]])}</td></tr>'
        for x in levels
    )
    source = experts_source()
    return (
        '<section id="experts"><h2>Expert human level</h2><div class="panel">'
        + ("" if scope.full else f'<p class="warn" id="experts-scope">Not like for like: {escape(scope.caveat or "")}.</p>')
        + f'<p id="expert-line"><b>{escape(expert_line(overall["accuracy"], ci))}</b></p>'
        f'{bar_chart(bars, title="MMMU validation: human experts and this run", label_width=270, row=19)}'
        '<table class="t"><thead><tr><th>tier</th><th class="n">validation</th><th>this run</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        '<p class="src">A tier is reached when the whole 95% interval is at or above it, missed when the whole '
        "interval is below it, and undecided when the tier lies inside the interval. "
        f'Source: <a href="{escape(source.url)}">{escape(source.title)}</a>. {escape(source.note)}</p>'
        "</div></section>"
    )


def usage_section(results: Results) -> str:
    """Requests, retries, tokens, latency and cost (results.json ``usage``); empty for older files."""
    usage = results.get("usage")  # type: ignore[misc]
    if not usage:
        return ""
    body = "".join(f'<tr><td>{escape(k)}</td><td class="n">{escape(v)}</td></tr>' for k, v in usage_rows(usage))
    return (
        '<section id="usage"><h2>Cost and usage</h2><div class="panel"><table class="t" id="usage-table">'
        f"<tbody>{body}</tbody></table>"
        '<p class="src">Tokens as the servers reported them; reasoning tokens are part of the completion tokens. '
        "Latency: from a request's first attempt to its answer, over the answered requests (nearest rank).</p>"
        "</div></section>"
    )


def mark_loose_images(rows: Sequence[dict], items: Sequence[Item], manifest: Mapping) -> None:
    """Mark each browser row's images that no token refers to, saying whether the run sent them.

    ``row["loose"]`` lists those fields (the browser's filter); each such image gets a ``loose``
    caption. Whether they were sent is read from the manifest's protocol (a run made before the
    official rule became the default recorded the rule that appended them).
    """
    protocol = Manifest.of(manifest).protocol
    sent = protocol.get("unreferenced_images") == UNREFERENCED_RULES["append"]
    caption = "no token refers to it: sent after the referenced images" if sent else "no token refers to it: not sent to the model"
    for row, item in zip(rows, items):
        fields = [ref.field for ref in loose_images(item)]
        row["loose"] = fields
        for image in row["images"]:
            if image["field"] in fields:
                image["loose"] = caption
