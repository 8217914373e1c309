"""What the unparsed answers were: named failure kinds, so "no letter found" does not hide them.

Each unparsed (random-fallback) item gets the first kind that fits:

- ``harness_error``: the harness stored an error object instead of an answer (a rescored file's
  named failure, ``results.json`` ``harness.failures``);
- ``empty``: the answer is empty or blank;
- ``refusal``: the server refused (``message.refusal`` or a content filter's stop);
- ``runaway``: the answer ran away: it repeats itself (its text compresses more than
  ``REPEAT_RATIO`` times over ``RUNAWAY_CHARS`` characters or more), or it is cut mid-sentence at
  ``RUNAWAY_CHARS`` characters or more without ``finish_reason`` length (so it was not counted
  as truncated);
- ``no_letter``: an answer that names no option the parser could find.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from mmmu_eval.prompt.layout import question_and_options, token_numbers
from mmmu_eval.core.records import Item, Response, is_refusal
from mmmu_eval.scoring.scorer import Scoring

__all__ = ["KINDS", "failure_kinds"]

KINDS = ("harness_error", "empty", "refusal", "runaway", "no_letter")

#: How long an answer must be before it can count as runaway.
RUNAWAY_CHARS = 4000
#: Compression ratio above which a long answer is repeating itself (prose compresses about 3x).
REPEAT_RATIO = 8.0
#: How many ids each kind shows.
FIRST = 5

_ENDINGS = tuple(".!?)]}\"'`$*") + ("\u3002",)


def _runaway(r: Response) -> str | None:
    text = r.text.rstrip()
    if len(text) < RUNAWAY_CHARS or r.finish_reason == "length" or r.status == "truncated":
        return None
    ratio = len(text) / max(len(zlib.compress(text.encode("utf-8"))), 1)
    if ratio >= REPEAT_RATIO:
        return "repetition"
    if not text.endswith(_ENDINGS):
        return "cut"
    return None


def _image_count(item: Item, setting: str | None) -> int | None:
    """How many images the item was asked with: one screenshot in MMMU-Pro's vision setting; else
    its image references, or the distinct ``<image N>`` tokens of its text (a rescored official
    MMMU-Pro file keeps the question); None when the run kept neither (a rescored file of a format
    without the question, not joined to the dataset)."""
    if setting == "vision":
        return 1
    if not item.images and not item.question:
        return None
    tokens = set(token_numbers(question_and_options(item)))
    return max(len(item.images), len(tokens))


def _multi(ids: list[str], images: Mapping[str, int | None]) -> dict[str, Any]:
    """``multi_image``: how many were asked with several images; when some counts cannot be
    known, None and ``multi_image_unknown`` saying why (never a bare null)."""
    counts = [images[i] for i in ids]
    unknown = sum(1 for c in counts if c is None)
    if not unknown:
        return {"multi_image": sum(1 for c in counts if c is not None and c > 1)}
    return {"multi_image": None,
            "multi_image_unknown": f"the run keeps neither the question text nor the images of {unknown} of these "
                                   "items (a rescored file without the question; rescore it with --data to join "
                                   "the dataset's items)"}


def failure_kinds(
    items: Sequence[Item], responses: Mapping[str, Response], scoring: Scoring, results: Mapping[str, Any]
) -> dict[str, Any]:
    """Kind -> ``{"count", "first", "multi_image"}`` over the headline parser's fallbacks (dataset
    order; ``multi_image`` None with ``multi_image_unknown`` saying why when the run cannot tell), and
    ``runaway_how`` (repetition / cut counts); kinds with no item are left out."""
    verdicts = scoring.verdicts[scoring.parsers[0]]
    harness = results.get("harness") if isinstance(results.get("harness"), Mapping) else {}
    named = (harness or {}).get("failures") or {}
    errors = set((named.get("harness_error") or {}).get("items") or {})
    found: dict[str, list[str]] = {k: [] for k in KINDS}
    how = {"repetition": 0, "cut": 0}
    for item in items:
        v = verdicts.get(item.id)
        r = responses.get(item.id)
        if v is None or r is None or r.status == "error" or not v.fallback:
            continue
        if item.id in errors:
            kind = "harness_error"
        elif not r.text.strip():
            kind = "empty"
        elif is_refusal(r):
            kind = "refusal"
        elif (way := _runaway(r)) is not None:
            kind = "runaway"
            how[way] += 1
        else:
            kind = "no_letter"
        found[kind].append(item.id)
    images = {it.id: _image_count(it, results.get("setting")) for it in items}
    # multi_image: how many of them were asked with more than one image (where failures gather)
    out: dict[str, Any] = {k: {"count": len(v), "first": v[:FIRST], **_multi(v, images)}
                           for k, v in found.items() if v}
    if how["repetition"] or how["cut"]:
        out["runaway_how"] = how
    return out
