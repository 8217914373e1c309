"""The real SDKs, read back with their own readers: MLflow on a local sqlite store through
``MlflowClient``, W&B in offline mode (no network) through ``wandb leet inspect --json``, W&B's
own reader of its ``.wandb`` transaction log.

Without mlflow or wandb installed (the test extra installs both) these tests skip locally and
fail under CI (``fakes.required``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakes import required


@pytest.fixture
def sdks_installed(monkeypatch) -> None:
    """For the checks made before a run: mlflow and wandb found, whether or not this venv has them."""
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name in ("mlflow", "wandb") else found(name, *a))


@pytest.fixture(scope="module")
def mlflow_store(tmp_path_factory) -> str:
    """One sqlite tracking store per module (creating its tables takes seconds); each test logs to
    an experiment of its own in it."""
    required.module("mlflow", "the MLflow tests need the mlflow extra (pip install -e '.[mlflow]')")
    return f"sqlite:///{tmp_path_factory.mktemp('mlflow') / 'mlflow.db'}"


@pytest.fixture
def mlflow_client(mlflow_store, monkeypatch, tmp_path):
    """MLflow pointed at the store by ``MLFLOW_TRACKING_URI``, as a user points it; artifacts under
    the test's folder (MLflow's default artifact root is ``./mlruns``)."""
    from mlflow.tracking import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_store)
    for name in ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return MlflowClient(mlflow_store)


def mlflow_runs(client: Any, experiment: str) -> list[Any]:
    """The runs of the named experiment, as MLflow reads them back."""
    found = client.get_experiment_by_name(experiment)
    return [] if found is None else list(client.search_runs([found.experiment_id]))


def mlflow_files(client: Any, run_id: str, folder: str | None = None) -> list[str]:
    """Every artifact path of a run, recursively."""
    out: list[str] = []
    for entry in client.list_artifacts(run_id, folder):
        out.extend(mlflow_files(client, run_id, entry.path) if entry.is_dir else [entry.path])
    return sorted(out)


def mlflow_file(client: Any, run_id: str, path: str, into: Path) -> bytes:
    """An artifact's bytes, downloaded through the client."""
    return Path(client.download_artifacts(run_id, path, str(into))).read_bytes()


@pytest.fixture
def wandb_home(monkeypatch, tmp_path) -> Iterator[Path]:
    """W&B offline (nothing leaves the machine), every folder it writes under the test's folder.

    W&B reads its environment once per process (``wandb.setup``), so each test tears that down
    before and after: the next test's folders are its own."""
    wandb = required.module("wandb", "the W&B tests need the wandb extra (pip install -e '.[wandb]')")
    wandb.teardown()
    home = tmp_path / "wandb-home"
    monkeypatch.setenv("WANDB_MODE", "offline")
    for name, sub in (("WANDB_DIR", ""), ("WANDB_DATA_DIR", "data"), ("WANDB_CACHE_DIR", "cache"),
                      ("WANDB_CONFIG_DIR", "config"), ("WANDB_ARTIFACT_DIR", "artifacts")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(home / sub))
    for name in ("WANDB_PROJECT", "WANDB_NAME", "WANDB_ENTITY", "WANDB_API_KEY", "WANDB_TAGS", "WANDB_RUN_GROUP"):
        monkeypatch.delenv(name, raising=False)
    yield home
    wandb.teardown()


def wandb_runs(home: Path) -> list[dict[str, Any]]:
    """Each offline run under ``home``, read by ``wandb leet inspect``: its ``summary`` view
    (name, project, tags, notes, config, summary, state) and its ``records`` (every record of the
    .wandb file: the artifacts with their files), oldest first."""
    runs = []
    for log in sorted((home / "wandb").glob("offline-run-*/run-*.wandb")):
        summary = json.loads(_inspect("--summary", "--json", str(log)))
        records = [json.loads(line) for line in _inspect("--json", str(log)).splitlines() if line.strip()]
        runs.append({**summary, "records": records, "folder": log.parent})
    return runs


def wandb_artifacts(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{artifact name: {"type", "files": {path in the artifact: local staged file}}}`` of one run."""
    out = {}
    for record in run["records"]:
        if record["type"] == "artifact":
            artifact = record["artifact"]
            files = {entry["path"]: Path(entry["local_path"]) for entry in artifact["manifest"]["contents"]}
            out[artifact["name"]] = {"type": artifact["type"], "files": files}
    return out


def _inspect(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "wandb", "leet", "inspect", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout
