"""The run report's item browser data: one JSON-ready row per item, and which images it embeds.

Images are the stored bytes as ``data:`` URLs (``rendering.page``), not thumbnails: a person
judging a wrong answer needs the real figure. The page's budget (``page.IMAGE_BUDGET``) goes
first to the items that most need looking at (errors, wrong answers, fallbacks); past it an
image shows a note instead. Only sizes are planned up front; each embedded image is read again
and encoded when the page is written, an item at a time (``html.html_chunks``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mmmu_eval.core.errors import DataError
from mmmu_eval.core.records import ImageRef, Item, Response, letters
from mmmu_eval.rendering.page import IMAGE_BUDGET, SHOWABLE, ImageBudget, data_url, data_url_length, url_length
from mmmu_eval.core.untrusted import SHOWN_CHARACTERS as _SHOWN
from mmmu_eval.core.untrusted import capped, capped_or_none

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring

__all__ = ["SHOWN_CHARACTERS", "item_rows", "loaded_url", "marker", "shown_text"]

log = logging.getLogger(__name__)

#: Random, so no dataset or model text contains it (see ``marker``).
_MARKER = f"mmmu-eval-report-image-{uuid.uuid4().hex}-"

#: Most characters of an answer, its reasoning or a prediction the page shows (``untrusted``'s one
#: limit for every copy): a 20 MB answer would make the page as large and the browser slow, and
#: responses.jsonl holds every character.
SHOWN_CHARACTERS = _SHOWN


def shown_text(text: str) -> str:
    """``text``, or its first ``SHOWN_CHARACTERS`` and a line saying it was cut and how much is left out."""
    return capped(text)

def _answers(item: Item) -> list[str]:
    if item.answer is None:
        return []
    return [item.answer] if isinstance(item.answer, str) else list(item.answer)


def item_rows(
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    prompts: Mapping[str, str],
    *,
    images: bool = True,
    image_budget: int = IMAGE_BUDGET,
    embed: bool = True,
) -> list[dict]:
    """The item browser's data: one JSON-ready dict per item, in dataset order.

    ``embed=False`` leaves a marker where each embedded image's data URL goes, for
    ``html_chunks`` to fill in while it writes, so no more than one item's images are in memory.
    """
    headline = scoring.parsers[0]
    verdicts = scoring.verdicts[headline]
    disagree = {d["id"] for d in scoring.disagreements}
    rows: list[dict] = []
    for item in items:
        response = responses.get(item.id)
        verdict = verdicts.get(item.id)
        status = response.status if response is not None else "missing"
        if status in ("missing", "error"):
            judged = status
        elif verdict is None or item.answer is None:
            judged = "ungraded"  # test split without answers: a prediction, no verdict
        else:
            judged = "correct" if verdict.correct else "wrong"
        rows.append(
            {
                "id": item.id,
                "subject": item.subject,
                "discipline": item.discipline,
                "type": item.question_type,
                "question": item.question,
                "options": list(item.options),
                "letters": list(item.choices) or list(letters(len(item.options))),
                "answer": _answers(item),
                "prompt": prompts.get(item.id, ""),
                "response": shown_text(response.text) if response is not None else "",
                "reasoning": shown_text(response.reasoning or "") if response is not None else "",
                "status": status,
                "error": capped(response.error or "") if response is not None else "",
                "finish": (response.finish_reason or "") if response is not None else "",
                "tokens": response.completion_tokens if response is not None else None,
                "pred": capped_or_none(verdict.pred) if verdict is not None else None,
                "verdict": judged,
                "fallback": bool(verdict.fallback) if verdict is not None else False,
                "disagree": item.id in disagree,
                "parsers": {
                    name: capped_or_none(scoring.verdicts[name][item.id].pred)
                    for name in scoring.parsers[1:]
                    if item.id in scoring.verdicts[name]
                },
                "images": [{"field": ref.field, "src": None, "note": ""} for ref in item.images],
            }
        )
    planned = _plan_images(items, rows, images=images, budget=image_budget)
    for i, k in planned:
        rows[i]["images"][k]["src"] = loaded_url(items[i].images[k]) if embed else marker(i, k)
    return rows


def _plan_images(items: Sequence[Item], rows: list[dict], *, images: bool, budget: int) -> list[tuple[int, int]]:
    """Which images the page embeds, as (row, image) pairs; notes on the others are set in ``rows``.

    Items a reader most needs to see get the budget first: failures, wrong answers, fallbacks.
    Only sizes are kept here: known without a read for images the run already sent
    (``ImageRef.peek``), else read in dataset order (neighbouring images share a parquet row
    group). The bytes of the embedded ones are read when the page is written, an item at a time.
    """
    if not images:
        for row in rows:
            for im in row["images"]:
                im["note"] = "not embedded (--no-images)"
        return []
    sizes: dict[tuple[int, int], int] = {}
    for i, item in enumerate(items):
        for k, ref in enumerate(item.images):
            known = ref.peek()  # read for the run's request already: no second read
            if known is not None and known[1] in SHOWABLE:
                sizes[i, k] = url_length(*known)
                continue
            try:
                sizes[i, k] = data_url_length(ref.load())
            except DataError as exc:
                rows[i]["images"][k]["note"] = f"unreadable: {exc}"
            except Exception as exc:  # a corrupt image must not sink the whole report
                rows[i]["images"][k]["note"] = f"unreadable: {type(exc).__name__}: {exc}"
    order = sorted(
        range(len(items)),
        key=lambda i: (rows[i]["verdict"] == "correct" and not rows[i]["fallback"], i),
    )
    spend = ImageBudget(budget)
    planned = []
    for i in order:
        for k in range(len(items[i].images)):
            if (i, k) not in sizes:
                continue
            if not spend.take(sizes[i, k]):
                rows[i]["images"][k]["note"] = f"not embedded: the report's image budget ({budget // (1024 * 1024)} MiB) is spent"
                continue
            planned.append((i, k))
    return sorted(planned)


def marker(i: int, k: int) -> str:
    """Stands in a row's JSON for image k of row i until the page is written (JSON-safe ASCII)."""
    return f"{_MARKER}{i}-{k}-"


def loaded_url(ref: ImageRef) -> str | None:
    """The image's data URL, read again; None if it cannot be read now (it could at planning)."""
    try:
        return data_url(ref.load())
    except Exception as exc:  # changed on disk since: shown as missing, the report still written
        log.warning("%s: cannot be read again for the report (%s); not embedded", ref.field, exc)
        return None
