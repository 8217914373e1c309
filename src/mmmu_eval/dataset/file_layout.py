"""Which parquet files a selection needs, in the hub's own file layout.

``MMMU/MMMU`` keeps one folder per subject config, ``<Subject>/<split>-0000k-of-0000n.parquet``;
``MMMU/MMMU_Pro`` keeps one folder per config, ``<config>/test-0000k-of-0000n.parquet``. The hub,
a local snapshot and the bundled sample all share this layout, so one function picks the files
for all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from mmmu_eval.dataset.subjects import resolve_subjects
from mmmu_eval.core.errors import ConfigError, DataError

#: Benchmark -> hub dataset repository.
REPOS: dict[str, str] = {"mmmu": "MMMU/MMMU", "mmmu-pro": "MMMU/MMMU_Pro"}

#: MMMU-Pro setting -> hub config (and folder) name, exactly as the hub spells it.
PRO_CONFIGS: dict[str, str] = {
    "standard-10": "standard (10 options)",
    "standard-4": "standard (4 options)",
    "vision": "vision",
}

MMMU_SPLITS = ("dev", "validation", "test")


@dataclass(frozen=True)
class Selection:
    """What to load, validated and spelled one way."""

    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    split: str
    """The hub split (always ``test`` for MMMU-Pro)."""
    setting: str | None
    """MMMU-Pro setting (``standard-10``, ``standard-4``, ``vision``); None for MMMU."""
    subjects: tuple[str, ...]
    """Subjects to keep, in alphabetical order (all 30 when no filter was given)."""
    filtered: bool
    """True when the caller named subjects; an unfiltered snapshot may hold only some."""

    @property
    def repo(self) -> str:
        return REPOS[self.benchmark]

    @property
    def folders(self) -> tuple[str, ...]:
        """The top-level folders whose files are read: subjects (MMMU) or the one config."""
        if self.benchmark == "mmmu":
            return self.subjects
        return (PRO_CONFIGS[self.setting or "standard-10"],)


def select(
    benchmark: str,
    split: str | None = None,
    setting: str | None = None,
    subjects: Sequence[str] | None = None,
) -> Selection:
    """Check and normalise a request; a wrong one raises ConfigError before anything is read.

    Accepts ``mmmu-pro``/``mmmu_pro``/``MMMU_Pro`` and a setting either as ``standard-10`` or as
    the hub's ``standard (10 options)``.
    """
    bench = benchmark.strip().lower().replace("_", "-").removeprefix("mmmu/")
    if bench not in REPOS:
        raise ConfigError(f"unknown benchmark {benchmark!r}; choose mmmu or mmmu-pro")
    if isinstance(subjects, str):
        subjects = [subjects]
    chosen = resolve_subjects(tuple(subjects) if subjects else None)
    if bench == "mmmu":
        if setting is not None:
            raise ConfigError(f"setting {setting!r} applies to mmmu-pro only; MMMU has splits")
        the_split = split or "validation"
        if the_split not in MMMU_SPLITS:
            raise ConfigError(f"unknown MMMU split {split!r}; choose one of {', '.join(MMMU_SPLITS)}")
        return Selection(bench, the_split, None, chosen, bool(subjects))
    if split not in (None, "test"):
        raise ConfigError(f"MMMU-Pro has one split, test (got {split!r})")
    return Selection(bench, "test", _pro_setting(setting), chosen, bool(subjects))


def _pro_setting(setting: str | None) -> str:
    if setting is None:
        return "standard-10"
    if setting in PRO_CONFIGS:
        return setting
    for key, config in PRO_CONFIGS.items():
        if setting.strip().lower() == config:
            return key
    raise ConfigError(
        f"unknown MMMU-Pro setting {setting!r}; choose one of {', '.join(PRO_CONFIGS)}"
    )


def folder_files(folder: str, split: str, available: Iterable[str]) -> list[str]:
    """The shards of one folder's split, in shard order (names are zero-padded)."""
    prefix = f"{folder}/{split}"
    return sorted(
        f for f in available
        if f.startswith(prefix) and f.endswith(".parquet")
        and f[len(prefix)] in "-." and "/" not in f[len(folder) + 1:]
    )


def pick_files(selection: Selection, available: Iterable[str], *, strict: bool) -> list[str]:
    """The files to read, MMMU subjects in alphabetical order, shards in order.

    ``strict`` demands every selected folder (hub downloads, explicit subject filters); a
    local snapshot or the sample read without a filter may hold only some subjects.
    Returns an empty list when nothing matches; the caller says where it looked.
    """
    available = list(available)
    files: list[str] = []
    for folder in selection.folders:
        found = folder_files(folder, selection.split, available)
        if not found and strict:
            raise DataError(
                f"{selection.repo} has no {selection.split} file for {folder!r} "
                f"(expected {folder}/{selection.split}-00000-of-0000N.parquet)"
            )
        files.extend(found)
    return files
