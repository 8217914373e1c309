"""The review of augmented options: ``review.jsonl``, ``review.html``, and applying decisions.

MMMU-Pro's distractors were reviewed by experts. ``augment`` writes, next to the new config:

- ``review.jsonl``: one line per question: its text, original options and answer, the ten
  options with where each came from, the flags, and its current review state;
- ``review.html``: one self-contained page (the page kit's ``rendering/page.py``: our own script,
  no network, images embedded as the run report embeds them, up to the same budget) showing each question with its images, the old and new options, and per question
  *accept*, *edit* (the new options, as text fields) or *drop*, with a note; the decisions are
  kept in the browser as one works, and **Download decisions** saves them as a JSON file.

``mmmu-eval harden augment --data OUT --out OUT --apply decisions.json`` applies such a file:
accepted questions are marked reviewed, edited ones get their edited options (checked by the
same rules as the model's, and placed by the same seeded shuffle), dropped ones leave both
standard configs. A decision for options other than the ones now in the output (the output
changed since the review) is refused for that question, never applied blindly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.harden.distractor_rules import check_options
from mmmu_eval.harden.problems import REFUSED, Problem
from mmmu_eval.harden.record import Record, json_digest
from mmmu_eval.harden.writer import Beside
from mmmu_eval.core.records import Item
from mmmu_eval.rendering.page import IMAGE_BUDGET, ImageBudget, asset, data_url, head, script_json

__all__ = ["DECISIONS_FORMAT", "apply_decisions", "read_decisions", "write_review"]

DECISIONS_FORMAT = "mmmu-eval-review/1"
ACTIONS = ("accept", "edit", "drop")


def write_review(out: Path, record: Record, items: Sequence[Item], *, image_budget: int = IMAGE_BUDGET,
                 beside: Beside | None = None) -> dict[str, Any]:
    """Write review.jsonl and review.html for the items that have an augment entry.

    With ``beside`` they replace the old ones at ``beside.replace_all()``, else at once.

    Returns ``{"state": "unreviewed" | "reviewed" | "partly reviewed (N unreviewed)", "items": N}``.
    """
    rows = [_row(item, record.item(item.id)["augment"]) for item in items if (record.item(item.id).get("augment") or {}).get("options")]
    with Beside() as own:
        files = beside or own
        files.text(out / "review.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        images = _images(items, {r["id"] for r in rows}, image_budget)
        files.text(out / "review.html", _page(rows, images, json_digest(rows)))
    undecided = sum(1 for r in rows if r["review"]["state"] == "unreviewed")
    state = "unreviewed" if undecided == len(rows) else "reviewed" if undecided == 0 else f"partly reviewed ({undecided} unreviewed)"
    return {"state": state, "items": len(rows)}


def read_decisions(path: Path) -> dict[str, dict[str, Any]]:
    """The decisions in a file downloaded from review.html, by item id.

    Raises:
        ConfigError: the file is unreadable, of another format, or a decision is malformed
            (the message names the item).
    """
    try:
        data = loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--apply {path}: cannot read the decisions ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != DECISIONS_FORMAT or not isinstance(data.get("decisions"), dict):
        raise ConfigError(f"--apply {path}: not a decisions file of review.html (format {DECISIONS_FORMAT})")
    out = {}
    for item_id, decision in data["decisions"].items():
        if not isinstance(decision, dict) or decision.get("action") not in ACTIONS:
            raise ConfigError(f"--apply {path}: {item_id}: the action must be one of {', '.join(ACTIONS)}")
        if decision["action"] == "edit" and not isinstance(decision.get("distractors"), list):
            raise ConfigError(f"--apply {path}: {item_id}: an edit needs its list of new options ('distractors')")
        out[str(item_id)] = decision
    return out


def apply_decisions(
    record: Record,
    items: Sequence[Item],
    decisions: Mapping[str, Mapping[str, Any]],
    place: Callable[[Item, Sequence[str]], dict[str, Any]],
) -> tuple[list[Problem], set[str]]:
    """Apply review decisions to the record's augment entries.

    Args:
        record: the augment output's record (changed in place).
        items: the questions of its standard (4 options).
        decisions: from ``read_decisions``.
        place: arranges an edited list of distractors for an item (the step's seeded shuffle).

    Returns:
        The decisions that could not be applied (as problems naming the item) and the ids dropped.
    """
    by_id = {it.id: it for it in items}
    problems: list[Problem] = []
    for item_id, decision in decisions.items():
        entry = (record.items.get(item_id) or {}).get("augment")
        if item_id not in by_id or not entry or not entry.get("options"):
            problems.append(_refused(item_id, "not a question of this augment output", kept=False))
            continue
        shown = decision.get("shown")
        if shown is not None and list(shown) != list(entry["options"]):
            problems.append(_refused(item_id, "its options changed since the review; review it again"))
            continue
        note = str(decision.get("note") or "")
        if decision["action"] == "edit":
            needed = len(entry.get("distractors") or [])
            if not needed:
                problems.append(_refused(item_id, "it has no new options to edit (its options were left unchanged); accept or drop it"))
                continue
            checked = check_options(decision["distractors"], by_id[item_id], needed)
            if checked.error or len(decision["distractors"]) != needed:
                why = checked.error or f"{len(decision['distractors'])} options given, {needed} needed"
                problems.append(_refused(item_id, f"the edited options are not usable: {why}"))
                continue
            entry.update(place(by_id[item_id], checked.accepted), distractors=list(checked.accepted))
        entry["review"] = {"state": {"accept": "accepted", "edit": "edited", "drop": "dropped"}[decision["action"]], "note": note}
    dropped = {i for i, e in record.items.items() if ((e.get("augment") or {}).get("review") or {}).get("state") == "dropped"}
    return problems, dropped


def _refused(item_id: str, why: str, *, kept: bool = True) -> Problem:
    """A decision not applied: the question, if there is one, stays as it was."""
    after = "the question stays as it was" if kept else "nothing changed"
    return Problem(item_id, "review", f"{why}: decision refused, {after}", REFUSED)


def _row(item: Item, entry: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": item.id,
        "subject": item.subject,
        "question": item.question,
        "images": [ref.field for ref in item.images],
        "original_options": list(item.options),
        "original_answer": item.answer,
        "options": entry.get("options"),
        "answer": entry.get("answer"),
        "sources": entry.get("sources"),
        "distractors": entry.get("distractors") or [],
        "status": entry.get("status"),
        "note": entry.get("note") or "",
        "flag": entry.get("flag") or "",
        "held": entry.get("held") or [],
        "review": entry.get("review") or {"state": "unreviewed"},
    }


def _images(items: Sequence[Item], wanted: set[str], budget: int) -> dict[str, dict[str, str]]:
    """Item id -> image field -> data URL (or a note), within the page kit's image budget."""
    out: dict[str, dict[str, str]] = {}
    spend = ImageBudget(budget)
    for item in items:
        if item.id not in wanted:
            continue
        for ref in item.images:
            try:
                url = data_url(ref.load())
            except DataError as exc:
                out.setdefault(item.id, {})[ref.field] = f"note:not shown ({exc})"
                continue
            except Exception as exc:  # bytes no browser shows and PIL cannot convert: a note, the page still written
                out.setdefault(item.id, {})[ref.field] = f"note:not shown ({type(exc).__name__}: {exc})"
                continue
            if not spend.take(len(url)):
                out.setdefault(item.id, {})[ref.field] = "note:not embedded (image budget spent)"
                continue
            out.setdefault(item.id, {})[ref.field] = url
    return out


def _page(rows: list[dict[str, Any]], images: dict[str, dict[str, str]], digest: str) -> str:
    script = asset("review.js", "mmmu_eval.harden")
    return (
        head(f"mmmu-eval harden review ({len(rows)} questions)", style=asset("review.css", "mmmu_eval.harden"), script=script)
        + '<header><h1>Review the augmented options</h1>'
        "<p>For each question: <b>accept</b> the ten options, <b>edit</b> the new ones, or <b>drop</b> the question "
        "(for instance when its image is not needed, or does not fit the text). Decisions are kept in this browser. "
        "<b>Download decisions</b>, then run <code>mmmu-eval harden augment --data OUT --out OUT --apply decisions.json</code>.</p>"
        '<div class="bar"><label>show <select id="show"><option value="all">all</option><option value="undecided">undecided</option>'
        '<option value="flagged">flagged</option><option value="decided">decided</option></select></label>'
        '<span id="progress"></span><button id="accept-shown" type="button">accept every undecided one shown</button>'
        '<button id="download" type="button">Download decisions</button></div></header><main id="items"></main>'
        f'<script type="application/json" id="review-data">{script_json({"digest": digest, "format": DECISIONS_FORMAT, "rows": rows, "images": images})}</script>'
        f"<script>{script}</script></body></html>"
    )
