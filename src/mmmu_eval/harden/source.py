"""What a harden step reads: ``--data`` as items, whatever form it takes.

- ``sample``: the bundled sample's MMMU split (``validation`` unless ``split`` says otherwise).
- ``hub``: MMMU on the Hugging Face hub at the pinned revision (only the subjects asked for).
- a directory in MMMU's hub layout (``Accounting/validation-...parquet``), as ``--data DIR`` of
  ``mmmu-eval run`` reads it.
- a directory in MMMU-Pro's hub layout: a harden output (it holds ``harden.json``, whose record
  the step carries on) or any MMMU-Pro snapshot; ``setting`` picks the config to read.
- a ``.jsonl`` file (``harden/jsonl.py``): the official screenshot tool's format.

Every item then passes ``problems.usable``; what fails is left out with its reason, and
``Source.problems`` holds it for the summary.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.dataset.subjects import resolve_subjects
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden.jsonl import read_jsonl
from mmmu_eval.harden.problems import Problem, usable
from mmmu_eval.harden.record import RECORD, Record
from mmmu_eval.core.records import Item

__all__ = ["Source", "content_digest", "has_config", "read_source"]


@dataclass(frozen=True)
class Source:
    """The usable items of ``--data`` and what was left out."""

    items: tuple[Item, ...]
    """In the data's order."""
    problems: tuple[Problem, ...]
    """Rows or items that could not be used, each naming itself."""
    kind: str
    """``mmmu`` (an MMMU-layout set), ``mmmu-pro``, ``jsonl`` or ``harden`` (an earlier step's output)."""
    data: str
    """``--data`` as given."""
    path: Path | None
    """The directory or file read; None for ``sample`` and ``hub``."""
    revision: str
    """The dataset revision (a hub commit, ``bundled-...``, ``local``), or ``file`` for JSONL."""
    setting: str | None = None
    """The MMMU-Pro config read (``standard-4``, ``standard-10``); None for the other kinds."""
    record: Record | None = None
    """The harden.json of an earlier step's output; None otherwise."""
    split: str | None = None
    """The MMMU split read (``mmmu`` kind only)."""

    def describe(self) -> dict[str, Any]:
        """For harden.json: what was read, how much, and a digest of the items' content."""
        return {
            "data": self.data,
            "kind": self.kind,
            "path": str(self.path.resolve()) if self.path else None,
            "split": self.split,
            "setting": self.setting,
            "revision": self.revision,
            "items": len(self.items),
            "left_out": len(self.problems),
            "digest": content_digest(self.items),
        }


def read_source(
    data: str | Path,
    *,
    split: str | None = None,
    setting: str | None = None,
    subjects: Sequence[str] | None = None,
    limit: int | None = None,
    default_subject: str | None = None,
) -> Source:
    """Read ``--data`` into usable items.

    Args:
        data: ``sample``, ``hub``, a directory, or a ``.jsonl`` file.
        split: MMMU split for ``sample``, ``hub`` and MMMU-layout directories (default validation).
        setting: the MMMU-Pro config to read from an MMMU-Pro directory (default ``standard-4``).
        subjects: keep only these subjects (long or short names).
        limit: keep the first N usable items (a trial run).
        default_subject: subject of JSONL rows that name none.

    Raises:
        ConfigError: ``data`` is none of the above, or a flag does not fit it.
    """
    text = str(data)
    path = None if text in ("sample", "hub") else Path(text).expanduser()
    chosen = resolve_subjects(tuple(subjects)) if subjects else None
    if path is not None and path.is_file():
        if path.suffix != ".jsonl":
            raise ConfigError(f"--data {text}: a file must be a .jsonl (one JSON object a line); a directory is read as a snapshot")
        got = read_jsonl(path, default_subject=default_subject)
        items, problems, kind, revision, got_setting, record = list(got.items), list(got.problems), "jsonl", "file", None, None
    elif path is not None and not path.is_dir():
        raise ConfigError(f"--data {text}: no such file or directory (expected sample, hub, a directory or a .jsonl file)")
    elif path is not None and (has_config(path, "standard-4") or has_config(path, "standard-10")):
        record = Record.load(path) if (path / RECORD).exists() else None
        got_setting = setting or ("standard-4" if has_config(path, "standard-4") else "standard-10")
        if not has_config(path, got_setting):
            raise ConfigError(f"--data {text} has no {PRO_CONFIGS[got_setting]!r} config")
        ds = load_benchmark("mmmu-pro", setting=got_setting, data=path, subjects=subjects)
        items, problems = list(ds.items), [Problem.from_error(p, "input", "row") for p in ds.problems]
        kind, revision = ("harden" if record else "mmmu-pro"), ds.revision
    else:
        ds = load_benchmark("mmmu", split=split or "validation", data=text if path is None else path, subjects=subjects)
        items, problems = list(ds.items), [Problem.from_error(p, "input", "row") for p in ds.problems]
        kind, revision, got_setting, record = "mmmu", ds.revision, None, None
    if chosen is not None and kind == "jsonl":
        items = [it for it in items if it.subject in chosen]
    kept: list[Item] = []
    for item in items:
        problem = usable(item)
        if problem is not None:
            problems.append(problem)
        elif limit is None or len(kept) < limit:
            kept.append(item)
    return Source(
        items=tuple(kept), problems=tuple(problems), kind=kind, data=text, path=path, revision=revision,
        setting=got_setting, record=record, split=(split or "validation") if kind == "mmmu" else None,
    )


def has_config(root: Path, setting: str) -> bool:
    """True when ``root`` (or ``root/MMMU_Pro``) holds parquet files of that MMMU-Pro config."""
    for base in (root, root / "MMMU_Pro"):
        folder = base / PRO_CONFIGS[setting]
        if folder.is_dir() and any(folder.glob("test*.parquet")):
            return True
    return False


def content_digest(items: Sequence[Item]) -> str:
    """sha256 over each item's id, subject, question, options, answer and image fields.

    It tells whether two reads hold the same questions without reading a single image, so a
    resumed step can check cheaply that its input did not change under it.
    """
    h = hashlib.sha256()
    for it in items:
        row = [it.id, it.subject, it.question, list(it.options), it.answer, [r.field for r in it.images]]
        h.update(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
    return h.hexdigest()
