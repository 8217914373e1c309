"""The same-run rule: a run directory continues only the run it holds.

Responses asked under another protocol (prompt texts, generation settings), on other data, or
of another model or selection would be scored as if they belonged together, so ``RunStore``
refuses to resume such a run and says what differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.manifest import Manifest

__all__ = ["ANSWERS_FILE", "ANSWER_SETTINGS", "SAME_RUN", "check_same_run", "data_changes"]

# Configuration keys that decide *what* was evaluated; a resumed run must keep them, because
# its old and new responses are scored together. (Prompt texts and generation settings are in
# the protocol fingerprint; throughput knobs such as concurrency may change between sessions.)
SAME_RUN = ("model", "benchmark", "split", "setting")
#: Configuration keys outside the protocol fingerprint that change what a model is shown, so
#: its answers: kept beside the fingerprint rather than in it, which would move the fingerprint
#: of every run made before (issue 29).
ANSWER_SETTINGS = ("max_image_pixels",)
#: The manifest key recording the ``--answers`` file a run's golds come from: its path and sha256.
ANSWERS_FILE = "answers_file"


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
    for what, before, now in data_changes(old_record, new_record):
        if new_config.get("allow_different_data") or (what == "data" and fixes_unreadable_rows(old_record)):
            continue
        # Same files, other bytes (another snapshot, a corrected dataset or answers file): the
        # answers stored would be scored against other questions or other golds.
        raise StoreError(
            f"holds a run on {what} with digest {before}, but the {what} read now has digest {now} "
            f"({'the same files with other contents: questions or answers changed' if what == 'data' else 'other gold answers'}). "
            "Its answers cannot be scored together with new ones: use a new --out, rerun with the old "
            f"{what} to continue, or pass --allow-different-data to continue anyway (recorded in manifest.json)",
            path,
        )
    for key in ANSWER_SETTINGS:
        if old_config.get(key) != new_config.get(key):
            flag = "--" + key.replace("_", "-")
            raise StoreError(
                f"holds a run asked with {flag} {_flag_value(old_config.get(key))}, not {_flag_value(new_config.get(key))}; "
                f"it changes what the model is shown, so the answers would not belong together. Rerun with "
                f"{flag} {_flag_value(old_config.get(key))} to continue, or use a new --out",
                path,
            )
    for key in SAME_RUN:
        if old_config.get(key) != new_config.get(key):
            raise StoreError(
                f"holds a run with {key} {old_config.get(key)!r}, not {new_config.get(key)!r}; "
                "use a new --out for a different run",
                path,
            )


def fixes_unreadable_rows(old: Manifest) -> bool:
    """Whether the stored run had dataset rows it could not read: then the run itself told the
    user to fix the data and run the same command again, so the files' new digest is that fix
    (continued, warned about and recorded in ``data_changes``, as with --allow-different-data)."""
    return bool(old.dataset.get("problems"))


def data_changes(old: Manifest, new: Manifest) -> list[tuple[str, str, str]]:
    """``(what, old digest, new digest)`` for the run's data (``data``: the same files, other
    bytes) and its answers file (``answers file``), where they changed. Nothing where either
    manifest does not say (a run from before digests; another selection of files, where
    ``_data_of`` and the item ids decide)."""
    out = []
    a, b = old.dataset, new.dataset
    same_files = a.get("files") is None or b.get("files") is None or list(a["files"]) == list(b["files"])
    if a.get("digest") and b.get("digest") and a["digest"] != b["digest"] and same_files:
        out.append(("data", str(a["digest"]), str(b["digest"])))
    x, y = (m.get(ANSWERS_FILE) or {} for m in (old, new))
    if isinstance(x, Mapping) and isinstance(y, Mapping) and x.get("digest") and y.get("digest") \
            and x["digest"] != y["digest"]:
        out.append(("answers file", str(x["digest"]), str(y["digest"])))
    return out


def _flag_value(value: Any) -> str:
    return "unset" if value is None else str(value)


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
