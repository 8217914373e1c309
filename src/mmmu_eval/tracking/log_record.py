"""The neutral record of what to log: one logged run's name, params, metrics, tags, files, tables.

Built from a finished run's (or suite's) files by ``figures.py`` and ``items.py``, then handed
unchanged to every sink, so MLflow and W&B receive the same figures under the same names and a
sink only translates. Figure names start with the scope of what they were computed on
(``full/overall/accuracy``, ``subset/subject/Art/ci95_low``, ``sample/...`` for the bundled
sample), so a dashboard never puts a subset's accuracy in the column of full-split figures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

__all__ = ["PARAM_CHARS", "TAG_CHARS", "Param", "Record", "Table", "bounded", "flat_params", "metric_name", "param_text",
           "param_value"]

#: Longest param value sent (MLflow refuses longer ones on older servers); the whole value stays
#: in manifest.json, which is logged as a file.
PARAM_CHARS = 500

#: Longest tag value sent (MLflow's limit is 5,000 on older servers).
TAG_CHARS = 2000

#: A param's value: a number or a flag as itself (W&B keeps its type), anything else as text.
Param = Union[str, int, float, bool]


@dataclass(frozen=True)
class Table:
    """A table as columns and rows, the shape both SDKs take."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def by_column(self) -> dict[str, list[Any]]:
        """``{column: [values]}``: MLflow's ``log_table`` form."""
        return {name: [row[i] for row in self.rows] for i, name in enumerate(self.columns)}


@dataclass(frozen=True)
class Record:
    """One logged run: a run directory, a rescored run directory, or a suite with its runs."""

    name: str
    """The logged run's name: the directory's name."""
    kind: str
    """``run``, ``rescore`` or ``suite``."""
    params: dict[str, Param] = field(default_factory=dict)
    """Configuration, protocol, scoring, data and backend (``param_value``)."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Figures by scoped name (``metric_name``); a void figure is absent, never 0."""
    tags: dict[str, str] = field(default_factory=dict)
    """``mmmu_eval.*``: kind, scope, benchmark, model, status, and ``not_logged`` when figures were left out."""
    files: tuple[tuple[Path, str], ...] = ()
    """(file, folder in the logged run's artifacts; ``""`` for the top).
    results.json, manifest.json, report.html; suite.json and each run's under ``runs/NAME``."""
    tables: dict[str, Table] = field(default_factory=dict)
    """Per-item tables by name (``items``, or ``items/RUN`` in a suite); only when asked for."""
    not_logged: tuple[str, ...] = ()
    """Figures left out and why (no gold answers, an empty cell, a Table 1 cell without its runs)."""


_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def metric_name(*parts: str) -> str:
    """Parts joined by ``/``, each made safe for both SDKs (MLflow allows letters, digits, ``_ - . /``
    and spaces; a space in a dashboard's column name is a trap): ``Art and Design`` -> ``Art_and_Design``."""
    return "/".join(_UNSAFE.sub("_", str(part)).strip("_") or "_" for part in parts)


def param_value(value: object) -> Param:
    """A number or flag as it is; text, or JSON for lists and objects, cut at ``PARAM_CHARS``
    characters with the cut said."""
    if isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return bounded(text, PARAM_CHARS, where="; the whole value is in manifest.json")


def param_text(value: Param) -> str:
    """A param as MLflow stores it (text): numbers and flags as JSON writes them (``true``, ``0.5``)."""
    return value if isinstance(value, str) else json.dumps(value)


def bounded(text: str, limit: int, *, where: str = "") -> str:
    """``text`` cut to ``limit`` characters, saying so and how long it was."""
    if len(text) <= limit:
        return text
    note = f"... ({len(text)} characters{where})"
    return text[: limit - len(note)] + note


def flat_params(prefix: str, block: Mapping[str, Any], *, skip: Sequence[str] = ()) -> dict[str, Param]:
    """``{prefix.key: text}`` for every key of ``block`` whose value is not null; one level of
    nested objects becomes ``prefix.key.inner``."""
    out: dict[str, Param] = {}
    for key, value in block.items():
        if key in skip or value is None:
            continue
        if isinstance(value, Mapping) and value and all(not isinstance(v, Mapping) for v in value.values()):
            out.update({f"{prefix}.{key}.{k}": param_value(v) for k, v in value.items() if v is not None})
        else:
            out[f"{prefix}.{key}"] = param_value(value)
    return out
