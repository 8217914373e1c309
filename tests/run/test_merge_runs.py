"""merge_runs on real run directories (RunStore), and the merge command."""

import json
from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.run.merge_shards import merge_runs
from mmmu_eval.store.rundir import RunStore

IDS = [f"dev_Art_{i}" for i in range(1, 6)]  # shard 1/2: 1, 3, 5; shard 2/2: 2, 4


def write_shard(root: Path, k: int, n: int, ids=None, *, fingerprint="f" * 64, revision="r1") -> Path:
    ids = IDS[k - 1:: n] if ids is None else ids
    manifest = {
        "config": {"model": "random", "benchmark": "mmmu", "split": "dev", "setting": None, "data": "sample",
                   "subjects": None, "limit": None, "ids": None, "shard": [k, n]},
        "protocol": {"fingerprint": fingerprint},
        "dataset": {"revision": revision, "digest": "d"},
        "item_ids": list(IDS[k - 1:: n]),
    }
    path = root / f"shard{k}of{n}"
    with RunStore.open(path, manifest, resume=False) as store:
        for item_id in reversed(ids):  # completion order is not dataset order
            store.append(Response(item_id, "ok", text=f"answer {item_id}"))
    return path


def test_shards_merge_into_one_run_in_dataset_order(tmp_path):
    shards = [write_shard(tmp_path, 2, 2), write_shard(tmp_path, 1, 2)]
    out = merge_runs(shards, tmp_path / "merged")
    merged = RunStore.read(out)
    assert list(merged.responses()) == IDS
    assert merged.responses()["dev_Art_4"].text == "answer dev_Art_4"
    manifest = merged.manifest()
    assert manifest["config"]["shard"] is None and manifest["item_ids"] == IDS
    assert [s["shard"] for s in manifest["merged_from"]] == [[1, 2], [2, 2]]
    assert manifest["protocol"]["fingerprint"] == "f" * 64


def test_merge_refuses_to_write_into_a_run(tmp_path):
    shards = [write_shard(tmp_path, 1, 2), write_shard(tmp_path, 2, 2)]
    with pytest.raises(StoreError, match="not empty"):
        merge_runs(shards, shards[0])


def test_a_whole_run_is_not_a_shard(tmp_path):
    path = write_shard(tmp_path, 1, 1)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["config"]["shard"] = None
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError, match="is not a shard"):
        merge_runs([path], tmp_path / "out")


def test_nothing_is_written_when_a_shard_is_unfinished(tmp_path):
    shards = [write_shard(tmp_path, 1, 2, ids=["dev_Art_1", "dev_Art_3"]), write_shard(tmp_path, 2, 2)]
    with pytest.raises(StoreError, match="missing dev_Art_5"):
        merge_runs(shards, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_different_dataset_revisions_are_merged_with_a_recorded_warning(tmp_path, caplog):
    shards = [write_shard(tmp_path, 1, 2), write_shard(tmp_path, 2, 2, revision="r2")]
    out = merge_runs(shards, tmp_path / "out")
    warnings = RunStore.read(out).manifest()["merge_warnings"]
    assert len(warnings) == 1 and "revision" in warnings[0]
    assert "different dataset revisions" in caplog.text


def test_merge_command_joins_and_reports_a_refusal_in_one_line(tmp_path, capsys):
    shards = [write_shard(tmp_path, 1, 2), write_shard(tmp_path, 2, 2)]
    assert main(["merge", *map(str, shards), "--out", str(tmp_path / "m"), "--no-score"]) == 0
    assert "merged 2 shards" in capsys.readouterr().out
    assert main(["merge", str(shards[0]), "--out", str(tmp_path / "m2"), "--no-score"]) == 1
    assert "shard 2/2 missing" in capsys.readouterr().err
