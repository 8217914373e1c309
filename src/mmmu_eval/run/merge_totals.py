"""The figures of a merged run's manifest that add up over its shards.

A shard's manifest counts its own items and its own sessions; the merged run's must say what one
process's says of the whole run, so each such figure is totalled here, for the launcher's merge
and ``mmmu-eval merge`` alike (``run/merge_shards.py``):

- ``effective_layout``: the image layouts the model's template gave, summarised over the items
  (``backends/rendered_prompt.layout_summary``); the shards' ``effective_layout_items`` (items per
  layout, which a bare layout name does not say) are summed, then summarised again;
- ``preflight``: the start-up probes each rank sent (requests that cost tokens), summed over the
  shards and over the shards of earlier launches with another number of ranks that were folded
  in and removed (``retired_shards``, ``run/merge_earlier.py``).

- ``unreferenced_images``: the items with images no ``<image N>`` token refers to, joined item
  by item in the merged order.

The status counts and the answers' size are not totalled here: scoring recomputes them from the
merged answers.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from mmmu_eval.backends.rendered_prompt import layout_summary
from mmmu_eval.core.records import Request

__all__ = ["LAYOUT_ITEMS", "RETIRED", "layout_items", "merged_layout", "merged_loose_images", "merged_preflight"]

#: The manifest key of the items per layout behind ``effective_layout``.
LAYOUT_ITEMS = "effective_layout_items"
#: The manifest key listing the shards of other rank counts folded into a merged run and removed.
RETIRED = "retired_shards"


def layout_items(layout: str | Mapping[str, int] | None, requests: Sequence[Request]) -> dict[str, int]:
    """Items per layout behind a run's ``effective_layout`` over ``requests``: a single layout
    name stands for every request with images (the others have no layout)."""
    if layout is None:
        return {}
    if isinstance(layout, str):
        return {layout: sum(1 for r in requests if r.images)}
    return dict(layout)


def _counts(manifest: Mapping[str, Any]) -> dict[str, int] | None:
    """A shard's items per layout; None when its manifest does not say (a bare name, before the counts were kept)."""
    items = manifest.get(LAYOUT_ITEMS)
    if isinstance(items, Mapping):
        return dict(items)
    layout = manifest.get("effective_layout")
    if layout is None:
        return {}
    return dict(layout) if isinstance(layout, Mapping) else None


def merged_layout(manifests: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """``effective_layout`` (and its items) of the run the shards' ``manifests`` make up, and a
    warning when it cannot be known; no field at all when no shard recorded one (a server's
    template is out of sight)."""
    having = [m for m in manifests if "effective_layout" in m]
    if not having:
        return {}, []
    counts = [_counts(m) for m in manifests] if len(having) == len(manifests) else [None]
    if all(c is not None for c in counts):
        total: Counter[str] = Counter()
        for c in counts:
            total.update(c)  # type: ignore[arg-type]
        return {"effective_layout": layout_summary(total), LAYOUT_ITEMS: dict(sorted(total.items()))}, []
    values = {json.dumps(m.get("effective_layout"), sort_keys=True) for m in having}
    if len(having) == len(manifests) and len(values) == 1:
        return {"effective_layout": having[0]["effective_layout"]}, []  # one layout everywhere: the whole run's
    return {"effective_layout": None}, [
        "the shards' effective layouts cannot be added up (some shard recorded no items per layout); "
        "effective_layout is left empty: run the shards again with this version to record it"
    ]


def merged_preflight(shards: Sequence[Mapping[str, Any]], retired: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The probes of every shard (``shards``: their manifests) and of every retired shard that is
    not one of them (a shard is known by its number and the time it started); None when none sent any."""
    from mmmu_eval.results.usage import summed_probes

    current = {_identity(m) for m in shards}
    records = [m.get("preflight") for m in shards]
    records += [r.get("preflight") for r in retired if _identity(r) not in current]
    kept = [r for r in records if isinstance(r, Mapping)]
    return dict(summed_probes(kept)) if kept else None


def merged_loose_images(manifests: Sequence[Mapping[str, Any]], order: Sequence[str]) -> dict[str, Any] | None:
    """The shards' records of items with images no token refers to, as one record in merged order.

    None when the first shard has no such record (a run made before manifests named them).
    """
    records = [m.get("unreferenced_images") for m in manifests]
    if not isinstance(records[0], Mapping):
        return None
    fields: dict[str, Any] = {}
    for record in records:
        if isinstance(record, Mapping) and isinstance(record.get("fields"), Mapping):
            fields.update(record["fields"])
    ids = [i for i in order if i in fields]
    return {**records[0], "count": len(ids), "ids": ids, "fields": {i: fields[i] for i in ids}}


def _identity(record: Mapping[str, Any]) -> tuple[str, str]:
    return json.dumps(record.get("shard")), str(record.get("started_at"))
