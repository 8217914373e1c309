"""The images a suspect's card shows, where the data is at hand.

Five of the paper-era audit's first twenty suspects cannot be judged without their image, so the
reviewers' page shows them. They come from what the audit read, first found first:

- the items of the runs: a run directory's items hold their images (read lazily), the standard
  settings' before the vision setting's, whose one image is the question's screenshot;
- the dataset ``--data`` names, for items whose files carry no image (the official outputs name
  their images' files but hold none): read only when the user names it, never fetched unasked.

Nothing is loaded here; the page reads each image within the page kit's budget (``audit_page``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mmmu_eval.auditing.sources import RunAnswers
from mmmu_eval.core.errors import MmmuEvalError
from mmmu_eval.core.records import ImageRef, Item

__all__ = ["CardImages", "card_images"]


@dataclass(frozen=True)
class CardImages:
    """Item id -> its images, and what the page should say of the rest."""

    refs: dict[str, tuple[ImageRef, ...]] = field(default_factory=dict)
    note: str = ""
    """Why some items have no image on the page (empty when every card has its images)."""


def card_images(ids: Iterable[str], runs: Iterable[RunAnswers], data: str | Path | None = None) -> CardImages:
    """The images of the items ``ids`` (see the module)."""
    wanted = list(dict.fromkeys(ids))
    refs: dict[str, tuple[ImageRef, ...]] = {}
    screenshots: dict[str, tuple[ImageRef, ...]] = {}
    kinds: dict[str, Item] = {}
    for run in runs:
        for item_id in wanted:
            item = run.items.get(item_id)
            if item is None:
                continue
            kinds.setdefault(item_id, item)
            if item.images:
                (screenshots if run.setting == "vision" else refs).setdefault(item_id, tuple(item.images))
    missing = [i for i in wanted if i not in refs and i not in screenshots]
    note = ""
    if missing and data is not None:
        found, failed = _from_dataset([kinds[i] for i in missing if i in kinds], data)
        refs.update(found)
        if failed:
            note = f"images from --data {data}: {failed}"
    for item_id, shot in screenshots.items():
        refs.setdefault(item_id, shot)
    left = [i for i in wanted if i not in refs]
    if left and not note:
        note = (f"{len(left)} item(s) without an image here: the files read hold none"
                + ("" if data is not None else " (name the dataset with --data to show them)"))
    return CardImages(refs, note)


def _from_dataset(items: list[Item], data: str | Path) -> tuple[dict[str, tuple[ImageRef, ...]], str]:
    """Each item's images from the dataset, by id; and what failed, in words."""
    from mmmu_eval.dataset.load import load_dataset

    wanted: dict[tuple[str, str | None], set[str]] = {}
    for item in items:
        if item.benchmark == "mmmu-pro":
            key = ("mmmu-pro", None)
        else:
            key = ("mmmu", item.id.split("_", 1)[0])
        wanted.setdefault(key, set()).add(item.id)
    found: dict[str, tuple[ImageRef, ...]] = {}
    failed: list[str] = []
    for (benchmark, split), ids in wanted.items():
        try:
            dataset = (load_dataset(benchmark, setting="standard-10", data=data) if benchmark == "mmmu-pro"
                       else load_dataset(benchmark, split=split, data=data))
        except MmmuEvalError as exc:
            failed.append(f"{benchmark}{'' if split is None else ' ' + split} not read ({exc})")
            continue
        for item in dataset.items:
            if item.id in ids and item.images:
                found[item.id] = tuple(item.images)
    return found, "; ".join(failed)
