"""``manifest.json`` written: ``build_manifest``, the one builder, and the blocks it is built from.

``build_manifest`` lays the blocks out in one order, so every writer's file has the same shape,
and checks what it built with the one reader, ``Manifest`` (``mmmu_eval/core/manifest.py``, on the
ground floor so that the stages below the store can read a run's record; re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mmmu_eval.core.manifest import MANIFEST, NO_MANIFEST, Manifest

if TYPE_CHECKING:
    from mmmu_eval.dataset.load import Dataset

__all__ = ["MANIFEST", "NO_MANIFEST", "Manifest", "build_manifest", "dataset_block"]

#: The order the blocks are written in; a writer that leaves a block out skips it.
ORDER = ("package_version", "status", "started_at", "config", "protocol", "scoring", "dataset", "shard", "item_ids")

_OMIT: Any = object()


def build_manifest(
    *,
    package_version: str = _OMIT,
    status: str = "running",
    started_at: str | None = _OMIT,
    config: Mapping[str, Any] = _OMIT,
    protocol: Mapping[str, Any] = _OMIT,
    scoring: Mapping[str, Any] = _OMIT,
    dataset: Mapping[str, Any] = _OMIT,
    shard: Sequence[int] | None = _OMIT,
    item_ids: Sequence[str] = _OMIT,
    **extra: Any,
) -> dict[str, Any]:
    """A new run's manifest, blocks in the one order, checked; a block not given is left out.

    ``extra`` (``unreferenced_images``, ``rescored_from``, ``attempts``) follows, in the order
    given. Returns the JSON form (``RunStore.open`` writes it, adding ``sessions``).

    Raises:
        StoreError: a field is not what readers expect (a bug in the caller).
    """
    given = {
        "package_version": package_version, "status": status, "started_at": started_at, "config": config,
        "protocol": protocol, "scoring": scoring, "dataset": dataset,
        "shard": shard if shard is None or shard is _OMIT else list(shard),
        "item_ids": item_ids if item_ids is _OMIT else list(item_ids),
    }
    manifest = {key: given[key] for key in ORDER if given[key] is not _OMIT}
    for key in ("config", "protocol", "scoring", "dataset"):
        if key in manifest:
            manifest[key] = dict(manifest[key])
    manifest.update(extra)
    Manifest.from_json(manifest, "the manifest being written")
    return manifest


def dataset_block(dataset: Dataset) -> dict[str, Any]:
    """The ``dataset`` block for data read by ``dataset.load`` (``run``, ``rescore`` joined to it)."""
    return {
        "benchmark": dataset.benchmark,
        "split": dataset.split,
        "setting": dataset.setting,
        "source": dataset.source,
        "revision": dataset.revision,
        "digest": dataset.digest,
        "files": list(dataset.files),
        "problems": [str(p) for p in dataset.problems],
    }
