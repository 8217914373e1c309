"""Read a local directory laid out like the hub repository (air-gapped use, the bundled sample).

A snapshot directory is either the repository itself (``DIR/Accounting/validation-...``) or a
folder holding one repository per benchmark (``DIR/MMMU/...``, ``DIR/MMMU_Pro/...``), which is
what ``hub.download`` writes and how the bundled sample is laid out.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from mmmu_eval.dataset import file_layout
from mmmu_eval.dataset.hub import PROVENANCE_FILE
from mmmu_eval.dataset.file_layout import Selection
from mmmu_eval.dataset.subjects import SUBJECTS
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SnapshotFiles:
    """The files of one selection in a snapshot."""

    base: Path
    """The repository folder the relative names start from."""
    files: tuple[tuple[str, Path], ...]
    """(path relative to ``base``, absolute path), in reading order."""
    commit: str | None
    """The hub commit recorded by ``hub.download``; None when the snapshot does not say."""


def locate(
    root: str | Path, selection: Selection, *, partial_ok: bool = False, name: str | None = None
) -> SnapshotFiles:
    """Find the selection's files under ``root``; DataError saying what is there when none match.

    ``name`` is how messages refer to the snapshot (default ``--data ROOT``).
    Without a subject filter a snapshot may hold only some MMMU subjects; that is logged as a
    warning unless ``partial_ok`` (the bundled sample is partial by design).
    """
    root = Path(root).expanduser()
    if not root.is_dir():
        raise ConfigError(f"--data {root}: no such directory (expected hub, sample, or a snapshot directory)")
    nested = root / selection.repo.split("/", 1)[1]
    base = nested if nested.is_dir() else root
    available = sorted(p.relative_to(base).as_posix() for p in base.rglob("*.parquet"))
    folders = sorted({a.split("/", 1)[0] for a in available if "/" in a})
    try:
        names = file_layout.pick_files(selection, available, strict=selection.filtered)
    except DataError as exc:
        # A subject the snapshot lacks: say which snapshot, and what it does hold.
        raise DataError(f"{name or f'--data {root}'}: {exc} (it holds: {', '.join(folders) or 'no parquet files'})") from None
    if not names:
        raise DataError(
            f"{base} has no {selection.split} files for {selection.repo}"
            + (f" {selection.setting}" if selection.setting else "")
            + f" (it holds: {', '.join(folders) or 'no parquet files'})"
        )
    if selection.benchmark == "mmmu" and not selection.filtered and not partial_ok:
        present = {n.split("/", 1)[0] for n in names}
        if len(present) < len(SUBJECTS):
            log.warning("%s holds %d of the 30 MMMU subjects for %s", base, len(present), selection.split)
    return SnapshotFiles(base, tuple((n, base / n) for n in names), _recorded_commit(base))


def _recorded_commit(base: Path) -> str | None:
    path = base / PROVENANCE_FILE
    try:
        commit = loads(path.read_text()).get("commit")
    except (OSError, ValueError, AttributeError):
        return None
    return commit if isinstance(commit, str) and commit else None
