"""Join the run directories of ``--shard K/N`` runs into one run, as if it had run whole.

Sharding splits the selected items round-robin: item ``i`` (0-based, in dataset order) belongs
to shard ``(i % N) + 1``. So the shards of one evaluation are exactly the runs that share a
protocol fingerprint, a model and an item selection, with the same N and every K from 1 to N
once. ``merge_runs`` refuses anything else, because a merged run is scored as the whole
benchmark and a silent hole or double count would change the score:

- a different protocol fingerprint, model or item selection (different evaluations);
- the same K twice, or a K missing (a gap), or N that disagree;
- an item answered in two shards, or an item a shard should have answered but did not
  (an unfinished shard: finish it with ``--resume`` first);

and it warns (and records in the manifest) when the shards read different dataset revisions or
files. The merged ``responses.jsonl`` is in dataset order; the manifest is the first shard's,
with the shard removed and the sources listed. Scores are not merged: ``mmmu-eval score OUT``
recomputes them from the joined responses.

    merged = merge_runs(["runs/a-1of2", "runs/a-2of2"], "runs/a")
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from mmmu_eval.core.atomic import holds_anything
from mmmu_eval.core.writer_lock import hold_directory, refuse_while_written
from mmmu_eval.core.errors import MmmuEvalError, StoreError, argument
from mmmu_eval.core.records import Response
from mmmu_eval.run.merge_totals import LAYOUT_ITEMS, RETIRED, merged_layout, merged_loose_images, merged_preflight
from mmmu_eval.core.manifest import Manifest

log = logging.getLogger(__name__)

# Configuration fields that define *which evaluation* a shard belongs to. Generation settings,
# prompt mode and layout are inside the protocol fingerprint; throughput knobs (batch size,
# concurrency, device) may differ between machines.
SAME_EVALUATION = ("model", "benchmark", "split", "setting", "data", "subjects", "limit", "ids", "sample", "sample_seed", "sample_audit")


@dataclass(frozen=True)
class ShardRun:
    """One shard's run directory, read."""

    path: Path
    k: int
    """This shard's number, 1-based."""
    n: int
    """How many shards the evaluation was cut into."""
    manifest: dict[str, Any]
    responses: dict[str, Response]


def merge_runs(
    run_dirs: Sequence[str | Path], out: str | Path, *, expected_ids: Sequence[str] | None = None,
    update: bool = False, earlier: Sequence[str | Path] = (),
) -> Path:
    """Join shard runs into one run directory.

    Args:
        run_dirs: the shards' run directories, in any order.
        out: the merged run directory; must not exist yet, or be empty.
        expected_ids: every selected item id in dataset order, when the caller has them; None
            takes them from the shards' manifests, or else reloads the dataset they name.
        update: ``out`` may already hold a run merged from these shards (a distributed run
            merges again after each session, ``run/distributed.py``) and the shards' ``ranks``
            folder: only the responses that differ from its stored ones are appended, so its
            ``responses.jsonl`` stays append-only, and an item it holds a finished answer for
            keeps that answer (a later launch of a sampling model never replaces it).
        earlier: with ``update``, the shards of the same run from a launch with another number
            of ranks (``run/merge_earlier.py``): their answers ``out`` lacks are folded in, then
            they are removed.

    Returns:
        ``out``, ready for ``mmmu-eval score``.

    Raises:
        StoreError: the runs are not the complete, disjoint shards of one evaluation, or
            ``out`` already holds something.
    """
    if not run_dirs:
        raise StoreError("merge needs the run directories of the shards")
    out = Path(out)
    with hold_directory(out, "merge"):  # one writer: a second merge into out is refused at once
        return _merge_held(run_dirs, out, expected_ids, update, earlier)


def _merge_held(run_dirs: Sequence[str | Path], out: Path, expected_ids: Sequence[str] | None,
                update: bool, earlier_dirs: Sequence[str | Path]) -> Path:
    """``merge_runs`` once it holds ``out``."""
    from mmmu_eval.run.merge_earlier import answers_to_fold, read_earlier, remove_earlier, retired_records
    from mmmu_eval.run.resume import FINISHED
    from mmmu_eval.store.rundir import MANIFEST, RunStore, holds_more_than_ranks

    stored: dict[str, Response] = {}
    retired: Any = None
    if update and (out / MANIFEST).exists():
        before = RunStore.read(out)
        stored, retired = before.responses(), before.manifest().get(RETIRED)
    elif holds_more_than_ranks(out) if update else holds_anything(out):
        raise StoreError("already exists and is not empty; merge into a new directory", out)
    shards = sorted((read_shard(p) for p in run_dirs), key=lambda s: s.k)
    check_same_evaluation(shards)
    check_complete_set(shards)
    check_disjoint(shards)
    earlier = read_earlier([Path(p) for p in earlier_dirs], shards[0].manifest) if update else []
    warnings = dataset_warnings(shards) + error_warnings(shards)
    order = list(expected_ids) if expected_ids is not None else selected_ids(shards)
    check_no_gaps(shards, order)

    manifest = merged_manifest(shards, warnings, order, retired=retired_records(earlier, retired) if earlier else retired)
    for warning in manifest["merge_warnings"]:
        log.warning("%s", warning)
    merged: dict[str, Response] = {}
    for shard in shards:
        merged.update(shard.responses)
    kept = {i for i, r in stored.items() if r.status in FINISHED}  # a stored answer is the run's
    with RunStore.open(out, manifest, resume=update) as store:
        for item_id in order:
            if item_id not in kept and stored.get(item_id) != merged[item_id]:
                store.append(merged[item_id])
        answered = kept | {i for i, r in merged.items() if r.status in FINISHED}
        for response in answers_to_fold(earlier, answered.__contains__):
            store.append(response)
    remove_earlier(earlier)  # only now: out is closed, its answers on disk
    log.info("merged %d shards (%d responses) into %s", len(shards), len(order), out)
    return out


# -- reading --------------------------------------------------------------------------------

def read_shard(path: str | Path) -> ShardRun:
    """Read a run directory and its shard number; StoreError when it was not a sharded run."""
    from mmmu_eval.store.rundir import RunStore

    store = RunStore.read(path)
    refuse_while_written(path, "a merge now would take only the answers it holds so far")  # one writer (issue 40)
    manifest = store.manifest()
    shard = shard_of(manifest)
    if shard is None:
        raise StoreError(f"is not a shard (its manifest has no {argument('shard')} K/N); only shards can be merged", path)
    return ShardRun(Path(path), shard[0], shard[1], manifest, store.responses())


def config_of(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    """The run configuration recorded in a manifest (``RunConfig.to_manifest()``)."""
    return Manifest.of(manifest).config


def shard_of(manifest: Mapping[str, Any]) -> tuple[int, int] | None:
    """(K, N) of a shard run, or None for a whole run; accepts ``[K, N]``, ``"K/N"`` or a dict."""
    raw = manifest.get("shard", config_of(manifest).get("shard"))
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = raw.split("/")
    elif isinstance(raw, Mapping):
        raw = (raw.get("k", raw.get("index")), raw.get("n", raw.get("count")))
    try:
        k, n = (int(x) for x in raw)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"manifest has an unreadable shard {raw!r}") from exc
    return k, n


def fingerprint_of(manifest: Mapping[str, Any]) -> str | None:
    """The protocol fingerprint (``EvalProtocol.describe()["fingerprint"]``)."""
    return Manifest.of(manifest).fingerprint or None


def dataset_of(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    """The dataset record (revision, digest, files...), empty when absent."""
    return Manifest.of(manifest).dataset


def item_ids_of(manifest: Mapping[str, Any]) -> list[str] | None:
    """The shard's own item ids in dataset order, when the manifest lists them."""
    ids = Manifest.of(manifest).item_ids
    return None if ids is None else list(ids)


# -- checks ---------------------------------------------------------------------------------

def check_same_evaluation(shards: Sequence[ShardRun]) -> None:
    """Every shard ran the same protocol, model and item selection, and is scored the same way."""
    from mmmu_eval.scoring.spec import ScoringSpec

    first = shards[0]
    for shard in shards[1:]:
        a, b = fingerprint_of(first.manifest), fingerprint_of(shard.manifest)
        if a != b:
            raise StoreError(
                f"protocol fingerprint {str(b)[:12]} differs from {str(a)[:12]} of {first.path}: "
                "these runs used different prompts or generation settings and cannot be merged",
                shard.path,
            )
        for key in SAME_EVALUATION:
            x, y = evaluation_value(first.manifest, key), evaluation_value(shard.manifest, key)
            if x != y:
                raise StoreError(f"{key} is {y!r} but {x!r} in {first.path}: not shards of one evaluation", shard.path)
        if shard.n != first.n:
            raise StoreError(f"is shard {shard.k}/{shard.n} but {first.path} is {first.k}/{first.n}", shard.path)
        x, y = ScoringSpec.from_manifest(first.manifest), ScoringSpec.from_manifest(shard.manifest)
        if x != y:
            # The merged run is scored once, by one record; picking one shard's would hide the other's.
            raise StoreError(
                f"is scored with {y.describe()} but {first.path} with {x.describe()}; make them agree "
                f"(e.g. `mmmu-eval score {shard.path} --parser ...`) before merging",
                shard.path,
            )


def evaluation_value(manifest: Mapping[str, Any], key: str) -> Any:
    """What ``key`` of SAME_EVALUATION says about a shard's evaluation.

    ``--sample-audit`` is compared by the audit file's content (the sha256 its draw recorded), not
    by how the path was spelled: shards started from other directories, or on other machines with
    a copy of the same audit, drew the same items.
    """
    if key == "sample_audit":
        sample = Manifest.of(manifest).sample
        audit = sample.get("audit") if isinstance(sample, Mapping) else None
        if isinstance(audit, Mapping) and audit.get("sha256"):
            return f"the audit file with sha256 {audit['sha256']}"
    return config_of(manifest).get(key)


def check_complete_set(shards: Sequence[ShardRun]) -> None:
    """Each K from 1 to N exactly once."""
    n = shards[0].n
    seen: dict[int, Path] = {}
    for shard in shards:
        if shard.k in seen:
            raise StoreError(f"shard {shard.k}/{n} given twice: {seen[shard.k]} and {shard.path}")
        seen[shard.k] = shard.path
    missing = [k for k in range(1, n + 1) if k not in seen]
    if missing:
        names = ", ".join(f"{k}/{n}" for k in missing)
        raise StoreError(f"shard {names} missing: run it with {argument('shard')} and merge all {n} shards")


def check_disjoint(shards: Sequence[ShardRun]) -> None:
    """No item answered in two shards."""
    owner: dict[str, ShardRun] = {}
    for shard in shards:
        for item_id in shard.responses:
            if item_id in owner:
                raise StoreError(
                    f"{item_id} is answered in both shard {owner[item_id].k}/{shard.n} ({owner[item_id].path}) "
                    f"and shard {shard.k}/{shard.n} ({shard.path})"
                )
            owner[item_id] = shard


def check_no_gaps(shards: Sequence[ShardRun], order: Sequence[str]) -> None:
    """Each shard answered exactly its round-robin slice of ``order``."""
    n = shards[0].n
    for shard in shards:
        expected = order[shard.k - 1:: n]
        missing = [i for i in expected if i not in shard.responses]
        if missing:
            raise StoreError(
                f"shard {shard.k}/{n} has {len(expected) - len(missing)} of its {len(expected)} items "
                f"(missing {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}); "
                f"finish it with {argument('resume', True)} before merging",
                shard.path,
            )
        extra = set(shard.responses) - set(expected)
        if extra:
            raise StoreError(
                f"shard {shard.k}/{n} holds {len(extra)} items outside its slice "
                f"({', '.join(sorted(extra)[:3])}); was it run with another selection?",
                shard.path,
            )


def dataset_warnings(shards: Sequence[ShardRun]) -> list[str]:
    """One line per dataset field (revision, digest) on which the shards disagree."""
    warnings = []
    for key in ("revision", "digest"):
        values = {str(dataset_of(s.manifest).get(key)): s.path for s in shards}
        if len(values) > 1:
            listed = "; ".join(f"{value[:16]} ({path})" for value, path in values.items())
            warnings.append(f"the shards read different dataset {key}s: {listed}")
    return warnings


def error_warnings(shards: Sequence[ShardRun]) -> list[str]:
    """One line per shard that holds failed items: they merge (and score as failed) as they are."""
    warnings = []
    for s in shards:
        failed = sum(1 for r in s.responses.values() if r.status == "error")
        if failed:
            warnings.append(
                f"shard {s.k}/{s.n} ({s.path}) has {failed} failed item(s); rerun that shard's command "
                "(it resumes) before merging to retry them"
            )
    return warnings


# -- order and manifest ---------------------------------------------------------------------

def selected_ids(shards: Sequence[ShardRun]) -> list[str]:
    """Every selected item id in dataset order.

    From the shards' own id lists when their manifests have them (interleaved back: shard K
    holds items K-1, K-1+N, ...); otherwise by loading the dataset the manifest names and
    applying the same selection the run did.
    """
    lists = [item_ids_of(s.manifest) for s in shards]
    if all(ids is not None for ids in lists):
        n = shards[0].n
        total = sum(len(ids) for ids in lists)  # type: ignore[arg-type]
        order: list[str | None] = [None] * total
        for shard, ids in zip(shards, lists):
            slots = range(shard.k - 1, total, n)
            if len(slots) != len(ids):  # type: ignore[arg-type]
                raise StoreError(f"lists {len(ids)} items but its slice of {total} has {len(slots)}", shard.path)  # type: ignore[arg-type]
            for slot, item_id in zip(slots, ids):  # type: ignore[arg-type]
                order[slot] = item_id
        return [i for i in order if i is not None]
    return _ids_from_dataset(shards[0])


def _ids_from_dataset(shard: ShardRun) -> list[str]:
    from mmmu_eval.dataset.load import load_benchmark

    config = config_of(shard.manifest)
    data = config.get("data") or "hub"
    revision = dataset_of(shard.manifest).get("revision") if data == "hub" else None
    try:
        dataset = load_benchmark(
            str(config.get("benchmark", "mmmu")),
            split=config.get("split"),
            setting=config.get("setting"),
            data=data,
            revision=revision,
            subjects=config.get("subjects"),
        )
    except MmmuEvalError as exc:
        raise StoreError(
            f"cannot reload the dataset to check the shards for gaps ({exc}); merge where the data is available",
            shard.path,
        ) from exc
    ids = [item.id for item in dataset.items]
    wanted = config.get("ids")
    if wanted:
        keep = set(wanted)
        ids = [i for i in ids if i in keep]
    limit = config.get("limit")
    if limit:
        ids = ids[: int(limit)]
    return ids


def merged_manifest(shards: Sequence[ShardRun], warnings: Sequence[str], order: Sequence[str], *,
                    retired: Any = None) -> dict[str, Any]:
    """The first shard's manifest as if the run had not been sharded, listing the sources.

    ``item_ids`` becomes the whole selection, which is what score and report read back; the
    figures that count items or sessions are the shards' totals (``run/merge_totals.py``), the
    probes of ``retired`` shards (``retired_shards``: earlier launches' shards folded in) included.
    """
    manifest = copy.deepcopy(shards[0].manifest)
    manifest["shard"] = None
    manifest["item_ids"] = list(order)
    config = manifest.get("config")
    if isinstance(config, dict):
        config["shard"] = None
    for stale in ("counts", "summary", "results", "effective_layout", LAYOUT_ITEMS, "preflight"):
        manifest.pop(stale, None)  # per-shard figures; `score` recomputes the counts, the rest is totalled below
    layout, layout_warnings = merged_layout([s.manifest for s in shards])
    manifest.update(layout)
    probes = merged_preflight([s.manifest for s in shards], retired if isinstance(retired, list) else [])
    if probes is not None:
        manifest["preflight"] = probes
    if retired:
        manifest[RETIRED] = retired
    warnings = [*warnings, *layout_warnings]
    manifest["merged_from"] = [
        {
            "path": str(s.path),
            "shard": [s.k, s.n],
            "responses": len(s.responses),
            "dataset_revision": dataset_of(s.manifest).get("revision"),
            "dataset_digest": dataset_of(s.manifest).get("digest"),
        }
        for s in shards
    ]
    manifest["merge_warnings"] = list(warnings)
    loose = merged_loose_images([s.manifest for s in shards], order)
    if loose is not None:
        manifest["unreferenced_images"] = loose
    return manifest
