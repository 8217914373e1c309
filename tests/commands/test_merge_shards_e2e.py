"""Shards run with --shard K/N and joined by `mmmu-eval merge` equal the unsharded run."""

import json

import pytest
from fakes.tiny_models import build_tiny_llava

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.store.rundir import RunStore


@pytest.mark.hf
def test_merged_shards_equal_the_unsharded_run(hf_extra, tmp_path, capsys):
    """A deterministic local model (greedy) answers each item the same in any shard, so the
    merged run must hold the same responses, in the same order, and score the same."""
    model = f"hf:{build_tiny_llava(tmp_path / 'llava')}"
    common = dict(model=model, data="sample", benchmark="mmmu", split="validation", max_tokens=3,
                  batch_size=8, device="cpu", html=False)
    whole = evaluate(**common, out=tmp_path / "whole")
    shards = [evaluate(**common, shard=(k, 3), out=tmp_path / f"shard{k}") for k in (1, 2, 3)]
    assert sum(s.counts["items"] for s in shards) == whole.counts["items"] == 40

    assert main(["merge", *(str(s.run_dir) for s in reversed(shards)), "--out", str(tmp_path / "merged")]) == 0
    capsys.readouterr()

    merged, reference = RunStore.read(tmp_path / "merged"), RunStore.read(whole.run_dir)
    assert list(merged.responses()) == merged.manifest()["item_ids"] == reference.manifest()["item_ids"]
    assert ({k: (r.status, r.text) for k, r in merged.responses().items()}
            == {k: (r.status, r.text) for k, r in reference.responses().items()})
    merged_results = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert merged_results["overall"] == whole.results["overall"]
    # The manifest's per-item figures are the run's totals, not the first shard's (issue 41).
    layouts = [RunStore.read(r.run_dir).manifest() for r in (whole, *shards)]
    assert isinstance(layouts[0]["effective_layout"], dict)  # the template moves the images of some items only
    assert layouts[1]["effective_layout"] != layouts[0]["effective_layout"]
    for key in ("effective_layout", "effective_layout_items", "unreferenced_images"):
        assert merged.manifest()[key] == reference.manifest()[key], key


def test_merge_refuses_shards_of_different_protocols(tmp_path, capsys):
    common = dict(model="frequent", data="sample", benchmark="mmmu", split="dev", html=False)
    first = evaluate(**common, shard=(1, 2), out=tmp_path / "a")
    second = evaluate(**common, shard=(2, 2), out=tmp_path / "b", max_tokens=7)
    assert main(["merge", str(first.run_dir), str(second.run_dir), "--out", str(tmp_path / "m")]) == 1
    assert "protocol fingerprint" in capsys.readouterr().err
