"""The audit as one self-contained page for reviewers, made with the project's page kit.

Each suspect is one card: the question, every option with the gold and the consensus marked, the
counts behind it and each run's choice, so a reviewer decides from one screen. The page holds no
script (the kit's policy then refuses every one) and nothing that reaches the network.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from mmmu_eval.auditing import Audit
from mmmu_eval.auditing.text import norm
from mmmu_eval.core.records import letters
from mmmu_eval.core.numbers import fixed, pct
from mmmu_eval.results.caveats import NO_SCORE
from mmmu_eval.rendering.page import asset, head

_STYLE = """
.card{border:1px solid #ccd;border-radius:6px;padding:.6em .9em;margin:.8em 0;overflow-wrap:anywhere}
.card h3{margin:.1em 0 .4em;font-size:1.05em}.opts{margin:.3em 0;padding-left:0;list-style:none}
.opts li{padding:.1em .3em}.gold{background:#e3f4e3}.consensus{background:#fbe5e5}
.votes{font-size:.9em;color:#444}.note{color:#555;font-size:.92em}
table.audit{border-collapse:collapse;max-width:100%}table.audit td,table.audit th{padding:.2em .6em;
border-bottom:1px solid #dde;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.wrap{overflow-x:auto;max-width:100%}
"""


def audit_page(result: Audit, *, top: int = 100) -> str:
    """The page's HTML: runs, agreement against chance, the first ``top`` suspects, added options, problems."""
    parts = [head("MMMU audit", style=asset("report.css") + _STYLE), "<main>", "<h1>Benchmark audit</h1>",
             '<p class="note">Suspects are evidence for a person to check, never a verdict. No run and no '
             "official figure is changed.</p>"]
    parts.append(_runs(result))
    parts.append("<h2>Agreement on one wrong option, against chance</h2><ul>")
    for a in result.agreement:
        parts.append(f"<li><b>{escape(', '.join(a.settings))}</b>: {a.flagged} of {a.groups} items flagged; "
                     f"at most {fixed(a.expected_by_chance)} expected by chance</li>")
    parts.append(f'</ul><p class="note">Flagged: {escape(result.agreement[0].rule if result.agreement else "")}.</p>')
    parts.append(f"<h2>Suspect labels ({len(result.suspects)}, {len(result.flagged)} flagged; first "
                 f"{min(top, len(result.suspects))} shown)</h2>")
    parts.extend(_card(s) for s in result.suspects[:top])
    parts.append(_added(result))
    parts.append(_structural(result))
    stats = result.stats.to_json()
    parts.append(f"<h2>Items</h2><p>{len(stats['per_item'])} items across {stats['runs']} runs; "
                 f"{len(stats['none_right'])} no run gets right, {len(stats['all_right'])} every run gets right, "
                 f"{len(stats['negative_discrimination'])} with negative point-biserial discrimination. "
                 f"{escape(stats['irt'])}.</p>")
    parts.append(f"<h2>Data revisions</h2><p>{len(result.revisions['differences'])} item(s) differ between runs.</p>")
    parts.append("</main></body></html>")
    return "".join(parts)


def _runs(result: Audit) -> str:
    rows = "".join(
        f"<tr><td>{escape(r.name)}</td><td>{escape(r.model)}</td><td>{escape(r.setting)}</td>"
        f"<td>{len(r.answers)}</td><td>{pct(r.accuracy, none=NO_SCORE)}</td><td>{'yes' if result.strong[r.name] else 'no'}</td></tr>"
        for r in result.runs)
    return ('<h2>Runs</h2><div class="wrap"><table class="audit"><tr><th>run</th><th>model</th><th>setting</th>'
            f"<th>items</th><th>acc %</th><th>stronger</th></tr>{rows}</table></div>")


def _card(s) -> str:
    labels = letters(len(s.item.options))
    options = []
    for label, text in zip(labels, s.item.options):
        text = text if isinstance(text, str) else repr(text)
        cls = "gold" if norm(text) == norm(s.gold) else "consensus" if norm(text) == norm(s.consensus) else ""
        tag = " (gold)" if cls == "gold" else " (consensus)" if cls == "consensus" else ""
        options.append(f'<li class="{cls}">{label}. {escape(text)}<b>{tag}</b></li>')
    choices = Counter(v.choice if v.choice is not None else "(no choice)" for v in s.votes)
    votes = "; ".join(f"{escape(c)}: {n}" for c, n in choices.most_common())
    runs = ", ".join(f"{escape(v.run)} → {escape(v.choice or '(no choice)')}" for v in s.votes)
    flag = "flagged" if s.flagged else "not flagged"
    return (f'<section class="card"><h3>{escape(s.id)} <span class="note">({flag}; score {fixed(s.score)}, '
            f"chance {s.chance:.1e})</span></h3><p>{escape(s.item.question) or '<i>no question text</i>'}</p>"
            f'<ul class="opts">{"".join(options)}</ul>'
            f"<p>{s.agree} of {s.answered} runs chose the consensus ({s.strong_agree} of {s.strong_runs} stronger), "
            f"{s.gold_votes} the gold; models: {escape(', '.join(s.models))}</p>"
            f'<p class="votes">{votes}</p><details><summary>each run</summary><p class="votes">{runs}</p></details>'
            "</section>")


def _added(result: Audit) -> str:
    if not result.added:
        return ""
    rows = "".join(
        f"<tr><td>{escape(a.id)}</td><td>{escape(a.gold)}</td><td>{escape(a.option)}</td>"
        f"<td>{a.votes}/{a.answered}</td><td>{a.four_right}/{a.four_answered}</td></tr>" for a in result.added)
    return (f"<h2>Added options that draw the runs ({len(result.added)})</h2><div class=\"wrap\"><table class=\"audit\">"
            "<tr><th>id</th><th>gold</th><th>added option</th><th>ten-option votes</th><th>four-option right</th></tr>"
            f"{rows}</table></div>")


def _structural(result: Audit) -> str:
    if not result.structural:
        return "<h2>Structural problems</h2><p>None found.</p>"
    rows = "".join(f"<tr><td>{escape(p.kind)}</td><td>{escape(p.id)}</td><td>{escape(p.setting)}</td>"
                   f"<td>{escape(p.detail)}</td></tr>" for p in result.structural)
    return (f"<h2>Structural problems ({len(result.structural)})</h2><div class=\"wrap\"><table class=\"audit\">"
            f"<tr><th>kind</th><th>id</th><th>setting</th><th>detail</th></tr>{rows}</table></div>")
