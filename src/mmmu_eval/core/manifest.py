"""``manifest.json``: ``build_manifest``, the one builder, and ``Manifest``, the one checked
record of what a run is.

Four commands write a manifest (``run``, ``rescore --out``, ``harden augment``, and ``suite``,
which drafts one to check a run directory before it starts), all through the one builder,
``build_manifest``, which lays the blocks out in one order and checks what it built with the
reader; a dozen places read one (``RunStore.manifest`` writes and reads the file). ``Manifest`` is the only reader:
it checks a decoded manifest field by field, so a wrong value is refused once, with the field
and the file named, instead of each reader guarding (and falling back) in its own way. It sits
on the ground floor, beside ``records`` and ``config``, because stages below the store read a
run's record too (the score stage reads how a run is scored, ``scoring/spec.py``) and may not
import the store. The ``dataset`` block is the dataset's own (``Benchmark.manifest_block``).

What is typed and what stays a mapping: the scalar fields every reader needs (status, version,
times, sessions, item ids, shard, answers' size) are checked and typed here. The blocks whose
content another stage owns stay mappings, checked only for the fields readers rely on:
``config`` (``RunConfig.to_manifest``), ``protocol`` (``EvalProtocol.describe``), ``scoring``
(``ScoringSpec.to_manifest``), ``dataset``, ``backend``, ``rescored_from``, ``preflight``,
``unreferenced_images``. A key this module does not know is kept as it is: ``to_json`` gives back
the object it was read from, key order included, so a read/write round trip changes nothing.

One fallback rule for old run directories: a manifest without a ``config`` block is a flat one,
whose settings sit at the top (``config`` is then the whole manifest); a missing ``protocol`` or
``dataset`` is an empty one. A block that is present but not an object is an error. And one
for renamed settings: a run made before a RunConfig field was renamed recorded it under its old
name (``seed``, now ``generation_seed``); ``config`` gives it under the new one
(``RENAMED_SETTINGS``), so such a run resumes, answers from its files and is read as it was made.

>>> import json
>>> from mmmu_eval import evaluate
>>> _ = evaluate(model="random", benchmark="mmmu-pro", setting="vision", data="sample", out="runs/demo")
>>> text = Path("runs/demo/manifest.json").read_text()
>>> record = Manifest.from_json(json.loads(text), "runs/demo/manifest.json")
>>> record.config.get("model"), len(record.fingerprint), len(record.item_ids)
('random', 64, 24)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Callable

from mmmu_eval.core.errors import StoreError

__all__ = ["MANIFEST", "NO_MANIFEST", "RENAMED_SETTINGS", "Manifest", "build_manifest", "current_settings",
           "how_it_stopped"]

MANIFEST = "manifest.json"

#: RunConfig fields renamed since runs recorded them: old name -> new name.
RENAMED_SETTINGS = {"seed": "generation_seed"}


def current_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded configuration with its renamed settings under their new names (key order kept;
    where both are present the new one wins)."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        new = RENAMED_SETTINGS.get(key)
        if new is None:
            out[key] = value
        elif new not in config:
            out[new] = value
    return out


# Blocks that must be an object (or null, read as absent) when present.
_BLOCKS = ("config", "protocol", "scoring", "dataset", "backend", "rescored_from", "counts", "unreferenced_images")



def _str(v: Any) -> bool:
    return isinstance(v, str)


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# What each checked field must hold, with the words used when it does not. Dotted names are
# fields inside a block.
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "package_version": (_str, "a string"),
    "status": (_str, "a string"),
    "started_at": (_opt_str, "a string or null"),
    "ended_at": (_opt_str, "a string or null"),
    "sessions": (lambda v: _count(v) and v >= 1, "a whole number >= 1"),
    "answers_bytes": (_count, "a whole number >= 0"),
    "item_ids": (lambda v: v is None or _str_list(v), "a list of item ids (strings) or null"),
    "merge_warnings": (_str_list, "a list of strings"),
    "sample": (lambda v: isinstance(v, dict), "an object (k, seed, population, drawn)"),
    "sample.k": (lambda v: _count(v) and v >= 1, "a whole number >= 1"),
    "sample.seed": (_count, "a whole number >= 0"),
    "sample.population": (_count, "a whole number >= 0"),
    "sample.drawn": (_count, "a whole number >= 0"),
    "merged_from": (lambda v: isinstance(v, list), "a list"),
    "counts.*": (_count, "a whole number >= 0"),
    "config.model": (_opt_str, "a string or null"),
    "config.benchmark": (_opt_str, "a string or null"),
    "config.split": (_opt_str, "a string or null"),
    "config.setting": (_opt_str, "a string or null"),
    "protocol.fingerprint": (_opt_str, "a string or null"),
    "protocol.mode": (_opt_str, "a string or null"),
    "dataset.source": (_opt_str, "a string or null"),
    "dataset.revision": (_opt_str, "a string or null"),
    "dataset.digest": (_opt_str, "a string or null"),
    "dataset.files": (lambda v: isinstance(v, list), "a list"),
    "dataset.problems": (lambda v: isinstance(v, list), "a list"),
    "effective_layout": (
        lambda v: v is None or _str(v) or (isinstance(v, dict) and all(_str(k) and _count(n) for k, n in v.items())),
        "a layout name, an object of item counts per layout, or null",
    ),
    "effective_layout_items": (
        lambda v: isinstance(v, dict) and all(_str(k) and _count(n) for k, n in v.items()),
        "an object of item counts per layout",
    ),
    "failure": (lambda v: isinstance(v, dict), "an object (type, message)"),
    "failure.type": (_str, "a string"),
    "failure.message": (_str, "a string"),
    "retired_shards": (lambda v: isinstance(v, list) and all(isinstance(r, dict) for r in v), "a list of objects"),
}
# What to do about a manifest.json that fails a check: without it the run's data and protocol are unknown.
NO_MANIFEST = "; restore it from a copy, or start again with a new --out (a run cannot go on without it)"
_FIX = "; fix that field" + NO_MANIFEST.replace("; restore", ", or restore", 1)


class Manifest:
    """A checked manifest: typed fields for what readers need, the whole object kept.

    Build it with ``from_json`` (a decoded manifest.json) or ``of`` (a manifest in memory);
    both check every known field. It is read-only: writers change the stored file through
    ``RunStore.update_manifest`` and read it again.
    """

    __slots__ = ("_fields", "where")

    def __init__(self, fields: Mapping[str, Any], where: str | Path = MANIFEST) -> None:
        """Use ``from_json`` or ``of``."""
        self._fields: dict[str, Any] = dict(fields)
        self.where = where

    @classmethod
    def from_json(cls, value: Any, where: str | Path = MANIFEST) -> Manifest:
        """Check a decoded manifest.json field by field.

        Args:
            value: the decoded JSON value.
            where: the file, named in an error.

        Raises:
            StoreError: naming ``where`` and the field that is wrong.
        """
        if not isinstance(value, dict):
            raise StoreError(f"must hold a JSON object, found {type(value).__name__}{NO_MANIFEST}", where)
        for name in _BLOCKS:
            block = value.get(name)
            if block is not None and not isinstance(block, dict):
                raise StoreError(f"{name!r} is {type(block).__name__}, not an object{_FIX}", where)
        for name, (check, words) in _CHECKS.items():
            block_name, _, key = name.partition(".")
            if not key:
                if name in value and not check(value[name]):
                    raise StoreError(f"{name!r} must be {words}, found {value[name]!r}"[:300] + _FIX, where)
                continue
            block = value.get(block_name) or {}
            for field in (block if key == "*" else (key,)):
                if field in block and not check(block[field]):
                    raise StoreError(f"'{block_name}.{field}' must be {words}, found {block[field]!r}"[:300] + _FIX, where)
        return cls(value, where)

    @classmethod
    def of(cls, manifest: Manifest | Mapping[str, Any], where: str | Path = MANIFEST) -> Manifest:
        """``manifest`` as a checked record (a Manifest is returned as it is)."""
        if isinstance(manifest, Manifest):
            return manifest
        return cls.from_json(dict(manifest), where)

    def to_json(self) -> dict[str, Any]:
        """The object this record was read from (a copy), every key kept in its order."""
        return copy.deepcopy(self._fields)

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level field as stored; for the fields this module does not type."""
        return self._fields.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Manifest) and other._fields == self._fields

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Manifest({str(self.where)!r}, status={self.status!r})"

    # -- typed fields ---------------------------------------------------------------------------

    @property
    def status(self) -> str | None:
        """``running``, ``complete``, ``incomplete``, ``interrupted``, ``failed``; None when unrecorded."""
        return self._fields.get("status")

    @property
    def failure(self) -> dict[str, str] | None:
        """What stopped a ``failed`` run: ``type`` and ``message`` of the exception (outside text,
        bounded when written); None for any other run."""
        found = self._fields.get("failure")
        return dict(found) if self._fields.get("status") == "failed" and isinstance(found, dict) else None

    @property
    def package_version(self) -> str | None:
        """The version of mmmu-eval that wrote the run."""
        return self._fields.get("package_version")

    @property
    def sessions(self) -> int:
        """How many times the run was opened (1 for a run never resumed)."""
        return int(self._fields.get("sessions", 1))

    @property
    def has_config(self) -> bool:
        """Whether the manifest has a ``config`` block (a flat old one has none)."""
        return isinstance(self._fields.get("config"), dict)

    @property
    def config(self) -> Mapping[str, Any]:
        """The run configuration (``RunConfig.to_manifest``), renamed settings under their new
        names (``current_settings``); a flat old manifest's top level."""
        config = self._fields.get("config")
        config = config if isinstance(config, dict) else self._fields
        return current_settings(config) if any(k in config for k in RENAMED_SETTINGS) else config

    @property
    def protocol(self) -> Mapping[str, Any]:
        """The protocol (``EvalProtocol.describe``); empty when unrecorded."""
        return self._fields.get("protocol") or {}

    @property
    def fingerprint(self) -> str | None:
        """The protocol fingerprint, or a flat manifest's top-level one."""
        value = self.protocol.get("fingerprint") or self._fields.get("fingerprint")
        return str(value) if value else None

    @property
    def prompt_mode(self) -> str | None:
        """The prompt mode the run was asked with: the protocol's, else the configuration's."""
        for block, key in (("protocol", "mode"), ("config", "prompt")):
            part = self._fields.get(block)
            if isinstance(part, dict) and isinstance(part.get(key), str):
                return part[key]
        return None

    @property
    def scoring(self) -> Mapping[str, Any] | None:
        """The run's scoring record (``ScoringSpec.to_manifest``); None when unrecorded."""
        return self._fields.get("scoring")

    @property
    def dataset(self) -> Mapping[str, Any]:
        """The data the run read (``Benchmark.manifest_block``); empty when unrecorded."""
        return self._fields.get("dataset") or {}

    @property
    def backend(self) -> Mapping[str, Any] | None:
        """What the backend said about itself (``Backend.describe``)."""
        return self._fields.get("backend")

    @property
    def counts(self) -> Mapping[str, int] | None:
        """Statuses over the selected items, as the run last counted them."""
        return self._fields.get("counts")

    @property
    def item_ids(self) -> tuple[str, ...] | None:
        """The selected items in dataset order, when recorded (top level, else the dataset block)."""
        for holder in (self._fields, self.dataset):
            ids = holder.get("item_ids")
            if isinstance(ids, list):
                return tuple(str(i) for i in ids)
        return None

    @property
    def answers_bytes(self) -> int | None:
        """The size responses.jsonl had when the run was last scored."""
        return self._fields.get("answers_bytes")

    @property
    def rescored_from(self) -> Mapping[str, Any] | None:
        """For a rescored run, the harness file its responses came from."""
        return self._fields.get("rescored_from")

    @property
    def effective_layout(self) -> str | Mapping[str, int] | None:
        """The image layout the model saw, where its own chat template rendered the prompt
        (``hf``): a layout name, or ``{layout: items}`` when items differed; None when unrecorded
        (API backends: the server's template is not seen). See ``backends/rendered_prompt.py``."""
        return self._fields.get("effective_layout")

    @property
    def sample(self) -> Mapping[str, Any] | None:
        """``run --sample K``: K, the seed, the population drawn from and how many were drawn; None otherwise."""
        return self._fields.get("sample")

    @property
    def preflight(self) -> Any:
        """The probe requests the run's preflights sent (``results.usage.add_probes``), or None."""
        return self._fields.get("preflight")


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


def how_it_stopped(manifest: Manifest | Mapping[str, Any]) -> str | None:
    """The sentence ``report``, ``read_run``, the doctor and a resumed session give a run an
    exception stopped (``store/run_stop.py``); None for any other. The message is outside text:
    one line here, at most 200 characters; escaping it for a terminal is the printer's.

    >>> how_it_stopped({"status": "failed", "failure": {"type": "RuntimeError", "message": "boom"}})
    'the run failed (RuntimeError: boom); run the same command again (or add --resume) to ask what lacks an answer'
    """
    failure = Manifest.of(manifest).failure
    if failure is None:
        return None
    kind, message = str(failure.get("type") or "an exception"), " ".join(str(failure.get("message") or "").split())
    what = f"{kind}: {message[:200]}" if message else kind
    return f"the run failed ({what}); run the same command again (or add --resume) to ask what lacks an answer"
