"""The rules that make a set of runs mergeable shards (run/merge_shards.py), on in-memory shards."""

from pathlib import Path

import pytest

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.run.merge_shards import (
    ShardRun,
    check_complete_set,
    check_disjoint,
    check_no_gaps,
    check_same_evaluation,
    dataset_warnings,
    error_warnings,
    merged_manifest,
    selected_ids,
    shard_of,
)

IDS = [f"dev_Art_{i}" for i in range(1, 8)]  # 7 items: shard 1/3 gets 1, 4, 7; 2/3 gets 2, 5; 3/3 gets 3, 6


def manifest(k, n, *, fingerprint="f" * 64, model="random", revision="r1", digest="d1", item_ids=None):
    m = {
        "config": {"model": model, "benchmark": "mmmu", "split": "dev", "setting": None, "data": "sample",
                   "subjects": None, "limit": None, "ids": None, "shard": [k, n], "batch_size": k},
        "protocol": {"fingerprint": fingerprint},
        "dataset": {"revision": revision, "digest": digest},
    }
    if item_ids is not None:
        m["item_ids"] = item_ids
    return m


def shard(k, n=3, ids=None, **kwargs) -> ShardRun:
    ids = IDS[k - 1:: n] if ids is None else ids
    return ShardRun(Path(f"runs/s{k}"), k, n, manifest(k, n, **kwargs), {i: Response(i, "ok", text="A") for i in ids})


def three(**kwargs):
    return [shard(1, **kwargs), shard(2, **kwargs), shard(3, **kwargs)]


@pytest.mark.parametrize(
    "recorded, expected",
    [([2, 4], (2, 4)), ("3/8", (3, 8)), ({"k": 1, "n": 2}, (1, 2)), (None, None)],
)
def test_shard_is_read_from_the_manifests_config(recorded, expected):
    m = manifest(1, 1)
    m["config"]["shard"] = recorded
    assert shard_of(m) == expected


def test_complete_disjoint_shards_pass_every_check():
    shards = three()
    check_same_evaluation(shards)
    check_complete_set(shards)
    check_disjoint(shards)
    check_no_gaps(shards, IDS)
    assert dataset_warnings(shards) == []


def test_a_different_protocol_fingerprint_is_refused():
    shards = [shard(1), shard(2, fingerprint="0" * 64), shard(3)]
    with pytest.raises(StoreError, match="protocol fingerprint 000000000000 differs"):
        check_same_evaluation(shards)


def test_a_different_model_is_refused_but_a_different_batch_size_is_not():
    with pytest.raises(StoreError, match="model is 'openai:x' but 'random'"):
        check_same_evaluation([shard(1), shard(2, model="openai:x"), shard(3)])
    check_same_evaluation(three())  # batch_size differs per shard in the fixture (it is k)


def test_shards_of_different_counts_are_refused():
    with pytest.raises(StoreError, match="is shard 2/4 but"):
        check_same_evaluation([shard(1, n=3), shard(2, n=4)])


def test_a_missing_shard_is_a_gap():
    with pytest.raises(StoreError, match="shard 2/3 missing"):
        check_complete_set([shard(1), shard(3)])


def test_the_same_shard_twice_is_refused():
    with pytest.raises(StoreError, match="shard 1/3 given twice"):
        check_complete_set([shard(1), shard(1), shard(2), shard(3)])


def test_an_item_answered_in_two_shards_is_refused():
    with pytest.raises(StoreError, match="dev_Art_1 is answered in both shard 1/3"):
        check_disjoint([shard(1), shard(2, ids=["dev_Art_2", "dev_Art_5", "dev_Art_1"]), shard(3)])


def test_an_unfinished_shard_is_a_gap_that_names_resume():
    shards = [shard(1), shard(2, ids=["dev_Art_2"]), shard(3)]
    with pytest.raises(StoreError, match=r"shard 2/3 has 1 of its 2 items \(missing dev_Art_5\).*--resume"):
        check_no_gaps(shards, IDS)


def test_an_item_outside_the_shards_slice_is_refused():
    shards = [shard(1, ids=["dev_Art_1", "dev_Art_4", "dev_Art_7", "dev_Art_9"]), shard(2), shard(3)]
    with pytest.raises(StoreError, match="outside its slice"):
        check_no_gaps(shards, IDS)


def test_different_dataset_revisions_warn_but_do_not_refuse():
    shards = [shard(1), shard(2, revision="r2", digest="d2"), shard(3)]
    warnings = dataset_warnings(shards)
    assert len(warnings) == 2 and "revisions" in warnings[0] and "digests" in warnings[1]


def test_failed_items_merge_with_a_warning_naming_the_shard():
    shards = three()
    shards[1].responses["dev_Art_5"] = Response("dev_Art_5", "error", error="dev_Art_5: timeout")
    assert error_warnings(shards) == [
        "shard 2/3 (runs/s2) has 1 failed item(s); rerun that shard's command (it resumes) before merging to retry them"
    ]
    assert error_warnings(three()) == []


def test_dataset_order_is_rebuilt_from_the_shards_id_lists():
    shards = [shard(k, item_ids=IDS[k - 1:: 3]) for k in (3, 1, 2)]
    assert selected_ids(sorted(shards, key=lambda s: s.k)) == IDS


def test_an_id_list_too_long_for_its_slice_is_refused():
    shards = [shard(1, item_ids=IDS[0::3]), shard(2, item_ids=["x", "y", "z", "w"]), shard(3, item_ids=IDS[2::3])]
    with pytest.raises(StoreError, match="lists 4 items"):
        selected_ids(shards)


def test_dataset_order_comes_from_the_dataset_when_manifests_have_no_id_list():
    """The sample's dev split, Art only: the shards' slices of it, rebuilt in file order."""
    shards = [shard(1, n=2), shard(2, n=2)]
    for s in shards:
        s.manifest["config"]["subjects"] = ["Art"]
    assert selected_ids(shards) == ["dev_Art_1", "dev_Art_2"]  # the sample's two dev Art items


def test_merged_manifest_drops_the_shard_and_lists_the_sources():
    shards = three()
    m = merged_manifest(shards, ["a warning"], IDS)
    assert m["config"]["shard"] is None and m["shard"] is None
    assert m["item_ids"] == IDS
    assert m["protocol"] == shards[0].manifest["protocol"]
    assert [s["shard"] for s in m["merged_from"]] == [[1, 3], [2, 3], [3, 3]]
    assert [s["responses"] for s in m["merged_from"]] == [3, 2, 2]
    assert m["merge_warnings"] == ["a warning"]
    assert shards[0].manifest["config"]["shard"] == [1, 3]  # the shard's own manifest is untouched


def test_shards_scored_differently_are_refused_by_name():
    """The merged run is scored once; a shard recorded with other parsers would be rescored silently."""
    shards = three()
    shards[2].manifest["scoring"] = {"parsers": ["boxed", "official"], "fallback": "official", "fallback_seed": 42}
    with pytest.raises(StoreError, match=r"s3.*scored with parsers boxed, official.*runs/s1 with parsers official"):
        check_same_evaluation(shards)
