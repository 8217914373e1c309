"""The audit as one self-contained page for reviewers, made with the project's page kit.

Each suspect is one card: the question and its images, every option with the gold and the
consensus marked, which kind of error it points at (the gold, or an option the ten-option
augmentation added, with the four-option form's votes), the counts behind it and each run's
choice, so a reviewer decides from one screen. The suspects come in two ranked lists (gold,
augmentation; a third where no four-option form was read), each holding a card for every flagged
suspect (and the first ``top`` at least), in pages of ``PAGE`` cards that the list's head links
to. Ids break only after an underscore, never inside a word. The page holds no script (the kit's
policy then refuses every one) and nothing that reaches the network; images are ``data:`` URLs
within the kit's image budget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape

from mmmu_eval.auditing import Audit
from mmmu_eval.auditing.card_images import CardImages
from mmmu_eval.auditing.suspects import Suspect
from mmmu_eval.auditing.text import norm
from mmmu_eval.core.errors import MmmuEvalError
from mmmu_eval.core.numbers import fixed, pct
from mmmu_eval.results.caveats import NO_SCORE
from mmmu_eval.core.records import ImageRef, letters
from mmmu_eval.rendering.page import IMAGE_BUDGET, ImageBudget, asset, data_url, head

#: Cards per page of a list.
PAGE = 25

_STYLE = """
.card{border:1px solid #ccd;border-radius:6px;padding:.6em .9em;margin:.8em 0;overflow-wrap:anywhere}
.card h3{margin:.1em 0 .4em;font-size:1.05em}.opts{margin:.3em 0;padding-left:0;list-style:none}
.opts li{padding:.1em .3em}.gold{background:#e3f4e3}.consensus{background:#fbe5e5}
.votes{font-size:.9em;color:#444}.note{color:#555;font-size:.92em}
.id{overflow-wrap:normal;word-break:normal}
.kind{margin:.3em 0;padding:.2em .5em;border-left:4px solid #99a}.kind.augmentation{border-color:#d08a2c}
.kind.gold{border-color:#3a7d3a}.pages a{margin-right:.6em}
.imgs img{max-width:100%;max-height:360px;margin:.2em .4em .2em 0;border:1px solid #dde}
table.audit{border-collapse:collapse;max-width:100%}table.audit td,table.audit th{padding:.2em .6em;
border-bottom:1px solid #dde;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.wrap{overflow-x:auto;max-width:100%}
"""

#: Each list's heading and what it means (``forms.py``).
_LISTS = {
    "gold": ("Gold suspects", "the runs agree on one of the item's original options, against the gold: the label "
             "may be wrong, or the item ambiguous"),
    "augmentation": ("Augmentation suspects", "the runs agree on an option the ten-option augmentation added: that "
                     "option is likely right too (a synonym, a broader term), and the fix is to it, not to the gold"),
    "unknown": ("Suspects of unknown kind", "no four-option form of these items was read (run the four-option "
                "setting, or add the official outputs or their build data mix_data.jsonl): whether the consensus "
                "was added is not known"),
}


def audit_page(result: Audit, *, top: int = 100, images: CardImages | None = None,
               image_budget: int = IMAGE_BUDGET) -> str:
    """The page's HTML: runs, agreement against chance, the two lists of suspects, added options, problems.

    Args:
        top: cards at least per list (every flagged suspect has one whatever ``top``).
        images: each item's images (``card_images.card_images``); None: none shown.
        image_budget: the most bytes of data URLs the page embeds (the page kit's unit).
    """
    budget = ImageBudget(image_budget)
    added_ids = {a.id for a in result.added}
    parts = [head("MMMU audit", style=asset("report.css") + _STYLE), "<main>", "<h1>Benchmark audit</h1>",
             '<p class="note">Suspects are evidence for a person to check, never a verdict. No run and no '
             "official figure is changed.</p>"]
    parts.append(_runs(result))
    parts.append("<h2>Agreement on one wrong option, against chance</h2><ul>")
    for a in result.agreement:
        parts.append(f"<li><b>{escape(', '.join(a.settings))}</b>: {a.flagged} of {a.groups} items flagged; "
                     f"at most {fixed(a.expected_by_chance)} expected by chance</li>")
    parts.append(f'</ul><p class="note">Flagged: {escape(result.agreement[0].rule if result.agreement else "")}.</p>')
    lists = {kind: result.suspects_of(kind) for kind in _LISTS}
    parts.append(f"<h2>Suspect labels ({len(result.suspects)}, {len(result.flagged)} flagged)</h2><ul>")
    for kind, listed in lists.items():
        if listed:
            parts.append(f'<li><a href="#list-{kind}">{_LISTS[kind][0]}</a>: {len(listed)}, '
                         f"{sum(s.flagged for s in listed)} flagged</li>")
    parts.append("</ul>")
    if images is not None and images.note:
        parts.append(f'<p class="note">{escape(images.note)}</p>')
    for kind, listed in lists.items():
        if listed:
            parts.append(_list(kind, listed, top, images, budget, added_ids))
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


def item_id(text: str) -> str:
    """An id escaped for the page, breakable only after its underscores (never inside a word)."""
    return f'<span class="id">{escape(text).replace("_", "_<wbr>")}</span>'


def _anchor(kind: str, suspect_id: str) -> str:
    return escape(f"{kind}-{suspect_id}", quote=True)


def _list(kind: str, listed: Sequence[Suspect], top: int, images: CardImages | None, budget: ImageBudget,
          added_ids: set[str]) -> str:
    shown = listed[:max(top, sum(s.flagged for s in listed))]
    title, meaning = _LISTS[kind]
    pages = " ".join(f'<a href="#{_anchor(kind, shown[i].id)}">{i + 1}–{min(i + PAGE, len(shown))}</a>'
                     for i in range(0, len(shown), PAGE))
    out = [f'<h2 id="list-{kind}">{title} ({len(listed)}, {sum(s.flagged for s in listed)} flagged; '
           f"{len(shown)} shown)</h2><p>{escape(meaning)}. Ranked, strongest evidence first.</p>",
           f'<p class="pages">Pages: {pages}</p>' if len(shown) > PAGE else ""]
    for rank, s in enumerate(shown, 1):
        refs = images.refs.get(s.id, ()) if images is not None else ()
        out.append(_card(kind, rank, s, refs, budget, s.id in added_ids))
    return "".join(out)


def _card(kind: str, rank: int, s: Suspect, refs: Sequence[ImageRef], budget: ImageBudget, in_added: bool) -> str:
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
    return (f'<section class="card" id="{_anchor(kind, s.id)}"><h3>#{rank} {item_id(s.id)} <span class="note">'
            f"({flag}; score {fixed(s.score)}, chance {s.chance:.1e})</span></h3>"
            f"<p>{escape(s.item.question) or '<i>no question text</i>'}</p>{_images(refs, budget)}"
            f'<ul class="opts">{"".join(options)}</ul>{_kind(kind, s, in_added)}'
            f"<p>{s.agree} of {s.answered} runs chose the consensus ({s.strong_agree} of {s.strong_runs} stronger), "
            f"{s.gold_votes} the gold; models: {escape(', '.join(s.models))}</p>"
            f'<p class="votes">{votes}</p><details><summary>each run</summary><p class="votes">{runs}</p></details>'
            "</section>")


def _kind(kind: str, s: Suspect, in_added: bool) -> str:
    if kind == "augmentation":
        said = "The consensus is an option the ten-option augmentation added: the fix is to that option, not the gold."
    elif kind == "gold":
        said = ("The consensus is one of the item's original options: the runs contradict the gold itself."
                if set(s.settings) - {"standard-4", "mmmu"} else "The options are the original ones: the runs "
                "contradict the gold itself.")
    else:
        said = "No four-option form of this item was read: whether the consensus was added is not known."
    four = s.four_option
    if four is not None:
        said += (f" Four-option form: {four.gold} of {four.answered} runs chose the gold, {four.consensus} the "
                 f"consensus, {four.answered - four.gold - four.consensus} another option"
                 + (f" ({four.runs - four.answered} no choice)" if four.runs > four.answered else "") + ".")
    if in_added:
        said += " Also listed under the added options that draw the runs."
    return f'<p class="kind {kind}">{escape(said)}</p>'


def _images(refs: Sequence[ImageRef], budget: ImageBudget) -> str:
    shown = []
    for n, ref in enumerate(refs, 1):
        try:
            url = data_url(ref.load())
        except MmmuEvalError as exc:
            shown.append(f'<span class="note">image {n}: not shown ({escape(str(exc))})</span>')
            continue
        except Exception as exc:  # bytes no browser shows and PIL cannot convert: said, the page still written
            shown.append(f'<span class="note">image {n}: not shown ({escape(type(exc).__name__)}: {escape(str(exc))})</span>')
            continue
        if not budget.take(len(url)):
            shown.append(f'<span class="note">image {n}: not embedded (the page\'s image budget is spent)</span>')
            continue
        shown.append(f'<img src="{url}" alt="image {n}">')
    return f'<div class="imgs">{"".join(shown)}</div>' if shown else ""


def _runs(result: Audit) -> str:
    rows = "".join(
        f"<tr><td>{escape(r.name)}</td><td>{escape(r.model)}</td><td>{escape(r.setting)}</td>"
        f"<td>{len(r.answers)}</td><td>{pct(r.accuracy, none=NO_SCORE)}</td><td>{'yes' if result.strong[r.name] else 'no'}</td></tr>"
        for r in result.runs)
    build = (f'<p class="note">Build data read for the four-option forms (no run): '
             f"{escape(', '.join(result.build_files))}</p>" if result.build_files else "")
    return ('<h2>Runs</h2><div class="wrap"><table class="audit"><tr><th>run</th><th>model</th><th>setting</th>'
            f"<th>items</th><th>acc %</th><th>stronger</th></tr>{rows}</table></div>{build}")


def _added(result: Audit) -> str:
    if not result.added:
        return ""
    rows = "".join(
        f"<tr><td>{item_id(a.id)}</td><td>{escape(a.gold)}</td><td>{escape(a.option)}</td>"
        f"<td>{a.votes}/{a.answered}</td><td>{a.four_right}/{a.four_answered}</td></tr>" for a in result.added)
    return (f"<h2>Added options that draw the runs ({len(result.added)})</h2><div class=\"wrap\"><table class=\"audit\">"
            "<tr><th>id</th><th>gold</th><th>added option</th><th>ten-option votes</th><th>four-option right</th></tr>"
            f"{rows}</table></div>")


def _structural(result: Audit) -> str:
    if not result.structural:
        return "<h2>Structural problems</h2><p>None found.</p>"
    rows = "".join(f"<tr><td>{escape(p.kind)}</td><td>{item_id(p.id)}</td><td>{escape(p.setting)}</td>"
                   f"<td>{escape(p.detail)}</td></tr>" for p in result.structural)
    return (f"<h2>Structural problems ({len(result.structural)})</h2><div class=\"wrap\"><table class=\"audit\">"
            f"<tr><th>kind</th><th>id</th><th>setting</th><th>detail</th></tr>{rows}</table></div>")


__all__ = ["PAGE", "audit_page", "item_id"]
