"""The same-run rule: a run directory continues only the run it holds.

Responses asked under another protocol (prompt texts, generation settings), on other data, or
of another model or selection would be scored as if they belonged together, so ``RunStore``
refuses to resume such a run and says what differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmmu_eval.errors import StoreError
from mmmu_eval.store.manifest import Manifest

__all__ = ["SAME_RUN", "check_same_run"]

# Configuration keys that decide *what* was evaluated; a resumed run must keep them, because
# its old and new responses are scored together. (Prompt texts and generation settings are in
# the protocol fingerprint; throughput knobs such as concurrency may change between sessions.)
SAME_RUN = ("model", "benchmark", "split", "setting")


def check_same_run(path: Path, old: Manifest | Mapping[str, Any], new: Manifest | Mapping[str, Any]) -> None:
    """Refuse to continue a run under another protocol, model or benchmark."""
    old_record, new_record = Manifest.of(old, path), Manifest.of(new, "the new run's manifest")
    old_protocol, new_protocol = old_record.protocol, new_record.protocol
    a, b = old_protocol.get("fingerprint"), new_protocol.get("fingerprint")
    if a != b:
        differences = _differences(old_protocol, new_protocol) or ["the template texts"]
        raise StoreError(
            f"was run under protocol {str(a)[:12]}, but this run's protocol is {str(b)[:12]} "
            f"(it differs in {'; '.join(differences)}). Its responses cannot be scored together "
            "with new ones: use a new --out for this protocol, or rerun with the old settings to continue",
            path,
        )
    old_data, new_data = _data_of(old_record), _data_of(new_record)
    if old_data and new_data and old_data != new_data:
        # Answers to one dataset revision scored with another's items would mix two datasets.
        # A fixed file in the same snapshot keeps its source and revision, so it may continue.
        raise StoreError(
            f"holds a run on data {old_data[0]} at revision {old_data[1]}, not {new_data[0]} at "
            f"{new_data[1]}; use a new --out for other data, or rerun with the old --data/--revision to continue",
            path,
        )
    old_config, new_config = old_record.config, new_record.config
    for key in SAME_RUN:
        if old_config.get(key) != new_config.get(key):
            raise StoreError(
                f"holds a run with {key} {old_config.get(key)!r}, not {new_config.get(key)!r}; "
                "use a new --out for a different run",
                path,
            )


def _data_of(manifest: Manifest) -> tuple[str, str] | None:
    """(source kind, revision) of a manifest's dataset: ``hub``, ``sample`` or ``a snapshot``.

    A snapshot counts by kind, not path, so a run directory still continues after ``cd``.
    """
    dataset = manifest.dataset
    if "source" not in dataset or "revision" not in dataset:
        return None
    source = str(dataset["source"])
    return (source if source in ("hub", "sample") else "a snapshot directory"), str(dataset["revision"])


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``key: old -> new`` for each setting that differs (templates named, not printed)."""
    out = []
    for key in sorted(set(old) | set(new)):
        if key in ("fingerprint", "official", "notes"):
            continue
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        name = f"{prefix}{key}"
        if key == "templates":
            out.append("the template texts")
        elif isinstance(a, Mapping) and isinstance(b, Mapping):
            out.extend(_differences(a, b, prefix=f"{name}."))
        else:
            out.append(f"{name}: {a!r} -> {b!r}")
    return out
