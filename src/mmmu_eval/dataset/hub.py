"""Fetch the parquet files a selection needs from the Hugging Face hub, at a pinned revision.

Only the files of the selected subjects (MMMU) or setting (MMMU-Pro) are downloaded, never the
whole repository. The revision is resolved to its commit hash first and everything after that
uses the hash, so the files read and the hash recorded in the manifest cannot disagree even if
the branch moves during the download.

All network access goes through one ``HubClient`` (``set_client`` swaps it), the seam tests use
to serve a local copy instead of the hub.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

from mmmu_eval.dataset import file_layout
from mmmu_eval.dataset.file_layout import Selection
from mmmu_eval.core.errors import DataError, argument

log = logging.getLogger(__name__)

#: The revision read when none is given. The hub data is mutable (MMMU-Pro answers and options
#: were corrected in 2024 and again in 2026), so a score means little without its data version.
#: These are commit hashes of the hub repositories that other public harnesses pin and report
#: results on: MMMU/MMMU 98e6ac0c (the 30 configs with dev/validation/test) and MMMU/MMMU_Pro
#: 563f3e84 (the three configs standard (10 options), standard (4 options), vision, 1730 rows
#: each). Whether 563f3e84 already holds the 2026-07 answer fixes (issue #84) is not verified
#: here; pass ``revision="main"`` for the newest data.
DEFAULT_REVISIONS: dict[str, str] = {
    "mmmu": "98e6ac0cb9b7b2cd2c991b85a50762edc4aedc68",
    "mmmu-pro": "563f3e84bb3b90893083a1f039cfa13077f2302b",
}

#: Written into a downloaded snapshot so that loading it later reports the commit it came from.
PROVENANCE_FILE = "mmmu-eval-source.json"


class HubClient(Protocol):
    """The three hub operations the loader needs."""

    def resolve(self, repo_id: str, revision: str) -> str:
        """The commit hash a revision (hash, tag or branch) points to now."""

    def list_files(self, repo_id: str, commit: str) -> list[str]:
        """Every file path in the dataset repository at that commit."""

    def fetch(self, repo_id: str, filename: str, commit: str) -> Path:
        """A local path holding that file's bytes (downloaded or cached)."""


class HfHubClient:
    """The real hub, through ``huggingface_hub`` (its cache, token and offline settings apply).

    With ``HF_HUB_OFFLINE=1`` a full commit hash (the pinned default is one) is read from the
    local HF cache, so a machine that loaded the data once can evaluate again without network.
    """

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self.cache_dir = cache_dir
        """The HF cache to use; None means huggingface_hub's own default."""

    def resolve(self, repo_id: str, revision: str) -> str:
        if _offline():
            if _is_commit(revision):
                return revision  # nothing to ask: a hash names itself
            raise DataError(
                f"HF_HUB_OFFLINE is set, so revision {revision!r} of {repo_id} cannot be resolved; "
                f"pass a full commit hash that is in the HF cache, or use {argument('data')} DIR"
            )
        from huggingface_hub import HfApi

        try:
            return HfApi().dataset_info(repo_id, revision=revision).sha
        except Exception as exc:  # network, auth, unknown revision: all end the same way
            raise DataError(_unreachable(repo_id, revision, exc)) from exc

    def list_files(self, repo_id: str, commit: str) -> list[str]:
        try:
            if _offline():  # only what the cache holds for this commit
                from huggingface_hub import snapshot_download

                folder = Path(snapshot_download(repo_id, repo_type="dataset", revision=commit,
                                                local_files_only=True, cache_dir=self.cache_dir))
                return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
            from huggingface_hub import HfApi

            return list(HfApi().list_repo_files(repo_id, repo_type="dataset", revision=commit))
        except Exception as exc:
            raise DataError(_unreachable(repo_id, commit, exc)) from exc

    def fetch(self, repo_id: str, filename: str, commit: str) -> Path:
        from huggingface_hub import hf_hub_download

        try:
            return Path(hf_hub_download(repo_id, filename, repo_type="dataset", revision=commit,
                                        cache_dir=self.cache_dir))
        except Exception as exc:
            raise DataError(_unreachable(repo_id, commit, exc) + f" (file {filename})") from exc


def _offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _is_commit(revision: str) -> bool:
    return len(revision) == 40 and all(c in "0123456789abcdef" for c in revision)


_client: HubClient = HfHubClient()


def get_client() -> HubClient:
    return _client


def set_client(client: HubClient) -> HubClient:
    """Route every hub call through ``client``; returns the previous one (to restore it)."""
    global _client
    previous, _client = _client, client
    return previous


@dataclass(frozen=True)
class HubFiles:
    """The files of one selection, fetched."""

    commit: str
    """The resolved commit hash."""
    files: tuple[tuple[str, Path], ...]
    """(path in the repository, local path), in reading order."""


def fetch(selection: Selection, revision: str | None = None) -> HubFiles:
    """Resolve the revision and fetch exactly the files the selection reads."""
    repo = selection.repo
    wanted = revision or DEFAULT_REVISIONS[selection.benchmark]
    commit = _client.resolve(repo, wanted)
    names = file_layout.pick_files(selection, _client.list_files(repo, commit), strict=True)
    log.info("reading %d file(s) of %s at %s", len(names), repo, commit)
    return HubFiles(commit, tuple((n, _client.fetch(repo, n, commit)) for n in names))


def download(
    benchmark: str,
    *,
    split: str | None = None,
    setting: str | None = None,
    subjects: Sequence[str] | None = None,
    revision: str | None = None,
    dest: str | Path,
) -> Path:
    """Copy the hub files a selection needs into a snapshot directory, for air-gapped use.

    The files land in ``dest/<MMMU|MMMU_Pro>/`` in the hub's layout, with a provenance file
    naming the commit, so ``load_benchmark(..., data=dest)`` reads them offline and reports the
    commit they came from. Returns the benchmark's folder.

    For example (it reaches the hub, so it is a sketch, not a doctest)::

        download("mmmu", split="validation", subjects=["acc"], dest="mmmu-data")
        # returns PosixPath('mmmu-data/MMMU')
    """
    selection = file_layout.select(benchmark, split, setting, subjects)
    got = fetch(selection, revision)
    base = Path(dest) / selection.repo.split("/", 1)[1]
    for name, local in got.files:
        target = base / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local, target)
    record_path = base / PROVENANCE_FILE
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    if record.get("commit") not in (None, got.commit):
        log.warning("%s already held files from commit %s; now mixed with %s", base, record["commit"], got.commit)
        record["commit"] = "mixed"
    else:
        record["commit"] = got.commit
    record["repo"] = selection.repo
    record["files"] = sorted(set(record.get("files", [])) | {n for n, _ in got.files})
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    return base


def _unreachable(repo_id: str, revision: str, exc: Exception) -> str:
    return (
        f"cannot read {repo_id} at {revision} from the Hugging Face hub ({type(exc).__name__}: "
        f"{exc}); check the revision and the network, or use {argument('data')} DIR with a snapshot made "
        "by `mmmu-eval data download` on a connected machine"
    )
