"""A run made before ``seed`` became ``generation_seed`` (issue 39) resumes, answers from its files
and keeps its protocol fingerprint: its manifest says ``seed``, and the manifest's reader gives it
under the new name (``core.manifest.RENAMED_SETTINGS``)."""

from __future__ import annotations

import json
from pathlib import Path

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.manifest import Manifest
from mmmu_eval.prompt.protocol import EvalProtocol
from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.store.rundir import RunStore

DEV = dict(benchmark="mmmu", split="dev", data="sample", display=NullDisplay())


def as_made_before_the_rename(run_dir: Path) -> None:
    """The manifest as the package wrote it before: the RunConfig field under its old name,
    in its old place (``RunConfig.to_manifest`` lists the fields in order)."""
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["config"] = {("seed" if key == "generation_seed" else key): value
                          for key, value in manifest["config"].items()}
    path.write_text(json.dumps(manifest, indent=2))


def test_the_fingerprint_of_a_seeded_protocol_is_the_one_runs_recorded_before():
    """The generation seed is in the fingerprint under the request's own name, ``seed``: these
    are the fingerprints the package computed before the rename (main at e2f2586)."""
    assert EvalProtocol.from_config(RunConfig(model="random", generation_seed=3)).fingerprint() == \
        "232eaf2de2b5d7f9313fe523e944021e0af4c6797c7221d568c1209a0d2bf855"
    assert EvalProtocol.from_config(
        RunConfig(model="random", benchmark="mmmu-pro", generation_seed=7, temperature=0.5)).fingerprint() == \
        "5df98dc9b3707f984412f74c336c51d10a22e2a7873380f2c375d4fcf15bef24"


def test_an_old_finished_run_answers_from_its_files(tmp_path):
    first = evaluate(model="random", generation_seed=3, out=tmp_path / "run", **DEV)
    as_made_before_the_rename(tmp_path / "run")
    assert Manifest.of(json.loads((tmp_path / "run" / "manifest.json").read_text())).config["generation_seed"] == 3
    again = evaluate(model="random", generation_seed=3, out=tmp_path / "run", **DEV)
    assert again.results == first.results
    assert RunStore.read(tmp_path / "run").manifest()["sessions"] == 1  # nothing asked, nothing opened


def test_an_old_unfinished_run_resumes_asking_only_what_is_missing(tmp_path):
    out = tmp_path / "run"
    full = evaluate(model="random", generation_seed=3, out=out, **DEV)
    as_made_before_the_rename(out)
    # as if the first session had been stopped after two answers
    lines = (out / "responses.jsonl").read_text().splitlines(keepends=True)
    (out / "responses.jsonl").write_text("".join(lines[:2]))
    (out / "results.json").unlink()
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "status": "interrupted"}, indent=2))
    result = evaluate(model="random", generation_seed=3, out=out, **DEV)
    assert RunStore.read(out).manifest()["sessions"] == 2
    assert result.counts == full.counts and result.results["overall"] == full.results["overall"]
