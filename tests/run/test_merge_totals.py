"""A merged manifest's figures are the run's totals, not its first shard's (run/merge_totals.py, issue 41)."""

from pathlib import Path

from mmmu_eval.core.records import ImagePart, ImageRef, Request, Response, TextPart
from mmmu_eval.run.merge_shards import ShardRun, merged_manifest
from mmmu_eval.run.merge_totals import layout_items, merged_layout, merged_preflight

IDS = [f"dev_Art_{i}" for i in range(1, 8)]


def _shard(k: int, n: int, **fields) -> ShardRun:
    manifest = {"config": {"model": "hf:/m", "shard": [k, n]}, "protocol": {"fingerprint": "f" * 64}, "shard": [k, n],
                "started_at": f"2026-01-0{k}T00:00:00Z", **fields}
    return ShardRun(Path(f"runs/s{k}"), k, n, manifest, {i: Response(i, "ok", text="A") for i in IDS[k - 1::n]})


def test_the_layouts_of_the_shards_are_added_up_as_one_process_counts_them():
    """One process: {images-first: 5, interleaved: 2}; three ranks saw 2+1, 2+0 and 1+1 of them."""
    shards = [
        _shard(1, 3, effective_layout={"images-first": 2, "interleaved": 1}, effective_layout_items={"images-first": 2, "interleaved": 1}),
        _shard(2, 3, effective_layout="images-first", effective_layout_items={"images-first": 2}),
        _shard(3, 3, effective_layout={"images-first": 1, "interleaved": 1}, effective_layout_items={"images-first": 1, "interleaved": 1}),
    ]
    manifest = merged_manifest(shards, [], IDS)
    assert manifest["effective_layout"] == {"images-first": 5, "interleaved": 2}
    assert manifest["effective_layout_items"] == {"images-first": 5, "interleaved": 2}
    assert manifest["merge_warnings"] == []


def test_one_layout_everywhere_stays_one_name_and_a_shard_without_counts_is_not_guessed():
    same = [_shard(1, 2, effective_layout="interleaved"), _shard(2, 2, effective_layout="interleaved")]
    assert merged_layout([s.manifest for s in same]) == ({"effective_layout": "interleaved"}, [])
    mixed = [_shard(1, 2, effective_layout="interleaved"), _shard(2, 2, effective_layout="images-first")]
    fields, warnings = merged_layout([s.manifest for s in mixed])
    assert fields == {"effective_layout": None} and "cannot be added up" in warnings[0]
    assert merged_layout([_shard(1, 2).manifest, _shard(2, 2).manifest]) == ({}, [])  # a server's run: none recorded


def test_a_single_layout_name_counts_every_request_with_images():
    image = ImagePart(ImageRef("image_1", lambda: b""))
    requests = [Request("a", (image, TextPart("q"))), Request("b", (TextPart("q"),)), Request("c", (image,))]
    assert layout_items("images-first", requests) == {"images-first": 2}
    assert layout_items({"images-first": 1, "interleaved": 1}, requests) == {"images-first": 1, "interleaved": 1}
    assert layout_items(None, requests) == {}


def test_the_probes_of_every_shard_and_of_retired_shards_are_summed_once():
    probe = {"probes": 1, "attempts": 2, "bytes": 100, "prompt_tokens": 10, "completion_tokens": 1}
    shards = [_shard(1, 2, preflight=probe), _shard(2, 2, preflight={**probe, "probes": 2, "prompt_tokens": None})]
    retired = [{"shard": [1, 3], "started_at": "t", "preflight": probe},
               {"shard": [1, 2], "started_at": "2026-01-01T00:00:00Z", "preflight": probe}]  # shard 1/2 itself: counted once
    total = merged_preflight([s.manifest for s in shards], retired)
    assert total == {"probes": 4, "attempts": 6, "bytes": 300, "prompt_tokens": 20, "completion_tokens": 3}
    manifest = merged_manifest(shards, [], IDS, retired=retired)
    assert manifest["preflight"] == total and manifest["retired_shards"] == retired
    assert "preflight" not in merged_manifest([_shard(1, 2), _shard(2, 2)], [], IDS)
