"""``harden.json``: the record of every decision a harden step made, with its seeds and versions.

One JSON object in the output directory, carried from step to step (a later step reads the
earlier step's record and adds its own section)::

    {
      "format": "mmmu-eval-harden/1",
      "source":   what the first step read (data, kind, revision, item count, content digest),
      "steps":    {"filter": {...}, "augment": {...}, "render": {...}}: each step's settings,
                  seeds, model specs, run directories, versions and counts,
      "items":    {id: {"subject", "filter": {...}, "augment": {...}, "render": {...}}}: per item,
                  each model's trials and correct count, kept or excluded and why, proposed and
                  accepted options, the shuffle, the review decision, the rendering parameters,
      "left_out": [{"where", "step", "kind", "problem"}]: every row or item a step could not use,
      "configs":  {"standard (4 options)": {"items", "digest"}, ...}: what each config holds
    }

The file is rewritten whole and atomically (temporary file, then rename), so a reader never
sees half of one. docs/harden.md lists every field.
"""

from __future__ import annotations

import hashlib
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.core.jsonfile import read_json
from mmmu_eval.core.clock import utc_now
from mmmu_eval.core.errors import StoreError
from mmmu_eval.harden.problems import Problem
from mmmu_eval.core.version import __version__

__all__ = ["FORMAT", "RECORD", "STEPS", "Record", "json_digest", "versions"]

RECORD = "harden.json"
FORMAT = "mmmu-eval-harden/1"
#: The steps, in the order they run; a step's result feeds the next.
STEPS = ("filter", "augment", "render")


class Record:
    """harden.json in memory: plain JSON data with a few named accessors."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @classmethod
    def new(cls, source: dict[str, Any]) -> "Record":
        """A fresh record for a step that reads something other than a harden output."""
        return cls({
            "format": FORMAT,
            "created_at": utc_now(),
            "source": source,
            "steps": {},
            "items": {},
            "left_out": [],
            "configs": {},
        })

    @classmethod
    def load(cls, directory: str | Path) -> "Record":
        """The record in ``directory``.

        Raises:
            StoreError: there is none, it is not valid JSON, or it is of another format.
        """
        path = Path(directory) / RECORD
        try:
            data = read_json(path)  # never through a link; too deep or too long is damage too
        except FileNotFoundError:
            raise StoreError(f"has no {RECORD}: it is not the output of a harden step", directory) from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot be read ({exc}); restore it or start again with a new --out", path) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise StoreError(f"is not a harden record of format {FORMAT} (found {found!r})", path)
        for key, kind in (("steps", dict), ("items", dict), ("left_out", list), ("configs", dict)):
            if not isinstance(data.setdefault(key, kind()), kind):
                raise StoreError(f"{key} must be a JSON {kind.__name__}", path)
        return cls(data)

    def copy(self) -> "Record":
        return Record(json.loads(json.dumps(self.data)))

    def save(self, directory: str | Path) -> Path:
        """Write ``directory/harden.json`` atomically; returns its path."""
        self.data["updated_at"] = utc_now()
        self.data["package_version"] = __version__
        target = Path(directory) / RECORD
        text = json.dumps(self.data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, text)
        except OSError as exc:
            raise StoreError(f"cannot write ({exc.strerror or exc}); choose a writable --out", target) from exc
        return target

    # -- sections -----------------------------------------------------------------------------

    @property
    def items(self) -> dict[str, dict[str, Any]]:
        return self.data["items"]

    def item(self, item_id: str) -> dict[str, Any]:
        """The item's entry, created when missing."""
        return self.items.setdefault(item_id, {})

    def step(self, name: str) -> dict[str, Any] | None:
        """A step's section, or None when that step has not run into this record."""
        return self.data["steps"].get(name)

    def set_step(self, name: str, section: dict[str, Any]) -> None:
        self.data["steps"][name] = section
        self.data.pop("claimed", None)  # the step's own section now says what it runs on

    def claim(self, step: str, input_digest: str) -> None:
        """Mark a new output as begun by ``step`` on that input, before the step writes anything
        else there (``outdir.open_out``): if it is killed before its section is recorded, the
        same command finds its own output to resume, not a folder it must refuse."""
        self.data["claimed"] = {"step": step, "input": input_digest}

    def claimed_by(self, step: str, input_digest: str) -> bool:
        return self.data.get("claimed") == {"step": step, "input": input_digest}

    def left_out(self, step: str | None = None) -> list[Problem]:
        """What was left out, by every step or by one."""
        return [Problem.from_json(p) for p in self.data["left_out"] if step is None or p.get("step") == step]

    def set_left_out(self, step: str, problems: Iterable[Problem]) -> None:
        """Replace one step's problems (a rerun of the step states them afresh)."""
        kept = [p for p in self.data["left_out"] if p.get("step") != step]
        self.data["left_out"] = kept + [p.to_json() for p in problems]

    def forget_after(self, step: str) -> list[str]:
        """Drop the sections of the steps after ``step`` (its result changed, so theirs is stale).

        Returns the names of the steps dropped.
        """
        later = list(STEPS[STEPS.index(step) + 1:])
        dropped = [s for s in later if s in self.data["steps"]]
        for name in later:
            self.data["steps"].pop(name, None)
            for entry in self.items.values():
                entry.pop(name, None)
        self.data["left_out"] = [p for p in self.data["left_out"] if p.get("step") not in later]
        return dropped


def versions(*extra: str) -> dict[str, str]:
    """Versions of what a step's result depends on: Python, this package, and named packages."""
    out = {"python": platform.python_version(), "mmmu-eval": __version__}
    for name in ("pyarrow", "pillow", *extra):
        out[name] = _version(name)
    return out


def json_digest(value: Any) -> str:
    """sha256 of a JSON value, canonically serialised: the identity of a config's content."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


