"""Load MMMU or MMMU-Pro items from the hub, a local snapshot, or the bundled sample.

MMMU: Yue et al., "MMMU: A Massive Multi-discipline Multimodal Understanding and Reasoning
Benchmark for Expert AGI" (arXiv:2311.16502). MMMU-Pro: Yue et al., "MMMU-Pro: A More Robust
Multi-discipline Multimodal Understanding Benchmark" (arXiv:2409.02813). Official code:
github.com/MMMU-Benchmark/MMMU. Data: huggingface.co/datasets/MMMU/MMMU and MMMU/MMMU_Pro.

One function, ``load_dataset``, picks the files (``layout``), gets them (``hub``, ``snapshot``,
``sample``), reads their text cells (``parquet``) and turns each row into an Item
(``normalize``). Rows that cannot become an Item are kept as ``Dataset.problems`` instead of
stopping the load; images stay on disk until an ``ImageRef.load()``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from mmmu_eval.dataset import file_layout, hub, sample, snapshot
from mmmu_eval.dataset.digest import files_digest
from mmmu_eval.dataset.hub import DEFAULT_REVISIONS
from mmmu_eval.dataset.file_layout import Selection
from mmmu_eval.dataset.normalize import to_item
from mmmu_eval.dataset.parquet import read_rows
from mmmu_eval.core.errors import ConfigError, DataError, did_you_mean
from mmmu_eval.core.records import Item

__all__ = ["DEFAULT_REVISIONS", "Dataset", "dataset_identity", "find_item", "load_dataset", "locate_files"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Dataset:
    """The items of one benchmark split or setting, with where they came from."""

    items: tuple[Item, ...]
    """MMMU: subjects alphabetical, file order within; MMMU-Pro: file order."""
    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    split: str
    """The hub split read (``test`` for MMMU-Pro)."""
    setting: str | None
    """MMMU-Pro setting; None for MMMU."""
    source: str
    """``hub``, ``sample``, or the snapshot directory."""
    revision: str
    """Resolved commit hash (hub, or a snapshot made by ``hub.download``), ``bundled-<version>``
    (sample), or ``local`` (a snapshot that does not say)."""
    files: tuple[str, ...]
    """The parquet files read, relative to the repository or snapshot root, in order."""
    digest: str
    """sha256 over the bytes of those files, in order: the data a score was computed on."""
    problems: tuple[DataError, ...]
    """Rows that could not become an Item at all, each naming its id (or file and row)."""

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        where = self.setting or self.split
        rev = self.revision[:12] if len(self.revision) == 40 else self.revision
        return (
            f"Dataset({self.benchmark} {where}, {len(self.items)} items, "
            f"{len(self.problems)} problems, {self.source}@{rev})"
        )

    def manifest_block(self) -> dict[str, Any]:
        """The ``dataset`` block of a run's manifest (``core.manifest.build_manifest``): what was
        read, so a report, a resume and a merge can tell whether another run read the same data."""
        return {
            "benchmark": self.benchmark,
            "split": self.split,
            "setting": self.setting,
            "source": self.source,
            "revision": self.revision,
            "digest": self.digest,
            "files": list(self.files),
            "problems": [str(p) for p in self.problems],
        }


def load_dataset(
    benchmark: str,
    *,
    split: str | None = None,
    setting: str | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
    subjects: Sequence[str] | None = None,
) -> Dataset:
    """Load the items of a benchmark.

    Args:
        benchmark: ``mmmu`` or ``mmmu-pro``.
        split: MMMU ``dev``, ``validation`` (default) or ``test``; MMMU-Pro has only ``test``.
        setting: MMMU-Pro ``standard-10`` (default), ``standard-4`` or ``vision``.
        data: ``hub``, ``sample`` (bundled), or a snapshot directory in the hub's layout.
        revision: hub revision (hash, tag, branch); None means ``DEFAULT_REVISIONS``.
        subjects: long or short subject names to keep; None keeps all.

    Returns:
        A Dataset; rows that could not be read are in ``problems``, not raised.

    Raises:
        ConfigError: an unknown benchmark, split, setting or subject, or a bad ``data``.
        DataError: the files cannot be found or read at all.

    Examples:
        >>> ds = load_dataset("mmmu", split="dev", data="sample", subjects=["acc"])
        >>> ds.items[0].id
        'dev_Accounting_1'
    """
    selection = file_layout.select(benchmark, split, setting, subjects)
    source, rev, files = _locate(selection, data, revision)
    items, problems = _read(selection, files)
    digest = files_digest(path for _, path in files)
    for problem in problems:
        log.warning("%s; the row is left out of the run", problem)
    return Dataset(
        items=tuple(items),
        benchmark=selection.benchmark,
        split=selection.split,
        setting=selection.setting,
        source=source,
        revision=rev,
        files=tuple(name for name, _ in files),
        digest=digest,
        problems=tuple(problems),
    )


def dataset_identity(
    benchmark: str,
    *,
    split: str | None = None,
    setting: str | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
    subjects: Sequence[str] | None = None,
) -> tuple[str, str, str]:
    """``(source, revision, digest)`` of what ``load_dataset`` would read, without reading a row.

    The digest comes from the per-file-set cache (``dataset/digest.py``) when the files are
    unchanged, so a finished run can tell it would read the same data in milliseconds.
    """
    source, rev, files = locate_files(benchmark, split=split, setting=setting, data=data, revision=revision,
                                      subjects=subjects)
    return source, rev, files_digest(path for _, path in files)


def locate_files(
    benchmark: str,
    *,
    split: str | None = None,
    setting: str | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
    subjects: Sequence[str] | None = None,
) -> tuple[str, str, tuple[tuple[str, Path], ...]]:
    """``(source, revision, files)`` that ``load_dataset`` would read, found without reading them.

    Raises:
        ConfigError, DataError: as ``load_dataset`` would, before it reads a row.
    """
    selection = file_layout.select(benchmark, split, setting, subjects)
    return _locate(selection, data, revision)


def find_item(dataset_or_items: Dataset | Iterable[Item], item_id: str) -> Item:
    """The item with this id; DataError with the closest ids when there is none.

    >>> find_item(load_dataset("mmmu", split="dev", data="sample"), "dev_Accounting_1").subject
    'Accounting'
    """
    items = dataset_or_items.items if isinstance(dataset_or_items, Dataset) else tuple(dataset_or_items)
    for item in items:
        if item.id == item_id:
            return item
    if isinstance(dataset_or_items, Dataset):
        # The row is there but could not become an item: say why, not "no item with this id".
        for problem in dataset_or_items.problems:
            if problem.item_id == item_id:
                message = str(problem)
                raise DataError(message.removeprefix(f"{item_id}: ") + " (the row is in the data but cannot be used)", item_id)
    hint = did_you_mean(item_id, [i.id for i in items], n=3)
    raise DataError(f"no item with this id among {len(items)} items{hint}", item_id)


def _locate(
    selection: Selection, data: str | Path, revision: str | None
) -> tuple[str, str, tuple[tuple[str, Path], ...]]:
    if isinstance(data, str) and data == "hub":
        got = hub.fetch(selection, revision)
        return "hub", got.commit, got.files
    if revision is not None:
        raise ConfigError(f"--revision {revision} applies to --data hub only (got --data {data})")
    if isinstance(data, str) and data == "sample":
        found = snapshot.locate(sample.SAMPLE_ROOT, selection, partial_ok=True, name="--data sample (a few subjects only)")
        return "sample", sample.sample_revision(), found.files
    found = snapshot.locate(data, selection)
    return str(Path(data)), found.commit or "local", found.files


def _read(
    selection: Selection, files: Sequence[tuple[str, Path]]
) -> tuple[list[Item], list[DataError]]:
    items: list[Item] = []
    problems: list[DataError] = []
    seen: set[str] = set()
    keep = set(selection.subjects)
    for name, path in files:
        folder = name.split("/", 1)[0]
        for row in read_rows(path, name):
            try:
                item = to_item(
                    row, benchmark=selection.benchmark, split=selection.split,
                    setting=selection.setting, folder=folder,
                )
            except DataError as exc:
                problems.append(exc)
                continue
            if item.subject not in keep:
                continue  # MMMU-Pro files mix subjects; MMMU files are already one subject
            if item.id in seen:
                problems.append(DataError(f"duplicate id (again in {name} row {row.index}); the first kept", item.id))
                continue
            seen.add(item.id)
            items.append(item)
    return items, problems
