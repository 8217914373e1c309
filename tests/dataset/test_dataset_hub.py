"""The hub path, with the hub replaced by a local copy (no network): pinned revision, only the
needed files, commit hash in the Benchmark, and ``download`` into a snapshot directory."""

from __future__ import annotations

import json

import pytest

from fakes.parquet_rows import mmmu_row, pro_row, vision_row, write_mmmu, write_pro
from mmmu_eval.dataset import DEFAULT_REVISIONS, hub, load_benchmark
from mmmu_eval.dataset.hub import HfHubClient, PROVENANCE_FILE, download
from mmmu_eval.core.errors import DataError


@pytest.fixture
def hub_data(local_hub):
    """MMMU with three subjects (dev, validation, test) and MMMU-Pro with all three configs."""
    mmmu = local_hub.root / "MMMU" / "MMMU"
    for subject in ("Accounting", "Art", "Physics"):
        for split, n in (("dev", 1), ("validation", 2), ("test", 3)):
            write_mmmu(mmmu, subject, split, [mmmu_row(f"{split}_{subject}_{i}") for i in range(1, n + 1)])
    (mmmu / "README.md").write_text("card")
    pro = local_hub.root / "MMMU" / "MMMU_Pro"
    write_pro(pro, "standard-10", [pro_row("test_Art_1"), pro_row("test_Physics_2")], shards=2)
    write_pro(pro, "standard-4", [pro_row("test_Art_1", options="['a', 'b', 'c', 'd']")])
    write_pro(pro, "vision", [vision_row("test_Art_1")])
    local_hub.branches.add(DEFAULT_REVISIONS["mmmu"])
    local_hub.branches.add(DEFAULT_REVISIONS["mmmu-pro"])
    return local_hub


def test_default_revisions_are_pinned_commit_hashes():
    assert set(DEFAULT_REVISIONS) == {"mmmu", "mmmu-pro"}
    for rev in DEFAULT_REVISIONS.values():
        assert len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)


def test_hub_resolves_the_pinned_revision_and_fetches_only_needed_files(hub_data):
    ds = load_benchmark("mmmu", split="validation", subjects=["acc", "phys"])
    assert hub_data.resolved == [DEFAULT_REVISIONS["mmmu"]]
    assert hub_data.fetched == ["Accounting/validation-00000-of-00001.parquet", "Physics/validation-00000-of-00001.parquet"]
    assert (ds.source, ds.revision) == ("hub", hub_data.commit)
    assert ds.files == tuple(hub_data.fetched)
    assert [i.id for i in ds.items] == [
        "validation_Accounting_1", "validation_Accounting_2", "validation_Physics_1", "validation_Physics_2",
    ]
    assert ds.items[0].images[0].load().startswith(b"\x89PNG")


def test_revision_override_is_resolved_to_its_commit(hub_data):
    ds = load_benchmark("mmmu", split="dev", revision="main", subjects=["acc", "art", "phys"])
    assert hub_data.resolved == ["main"] and ds.revision == hub_data.commit
    assert len(ds.items) == 3


def test_hub_without_a_filter_needs_all_thirty_subjects(hub_data):
    """A hub read claims the whole benchmark, so a subject missing there is an error, not a gap."""
    with pytest.raises(DataError, match="no dev file for 'Agriculture'"):
        load_benchmark("mmmu", split="dev")


def test_unknown_revision_is_a_data_error(hub_data):
    with pytest.raises(DataError, match="unknown revision"):
        load_benchmark("mmmu", split="dev", revision="v9")


def test_pro_fetches_only_its_config(hub_data):
    ds = load_benchmark("mmmu-pro", setting="standard-10")
    assert hub_data.fetched == [
        "standard (10 options)/test-00000-of-00002.parquet", "standard (10 options)/test-00001-of-00002.parquet",
    ]
    assert [i.id for i in ds.items] == ["test_Art_1", "test_Physics_2"]
    vision = load_benchmark("mmmu-pro", setting="vision")
    assert hub_data.fetched[-1] == "vision/test-00000-of-00001.parquet" and vision.items[0].question == ""


def test_a_subject_missing_on_the_hub_is_an_error(hub_data):
    with pytest.raises(DataError, match="MMMU/MMMU has no validation file for 'Math'"):
        load_benchmark("mmmu", subjects=["math"])


def test_download_then_load_offline_reports_the_commit(hub_data, tmp_path):
    dest = tmp_path / "mmmu-data"
    base = download("mmmu", split="validation", subjects=["art"], dest=dest)
    download("mmmu-pro", setting="vision", dest=dest)
    assert base == dest / "MMMU"
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.parquet")) == [
        "MMMU/Art/validation-00000-of-00001.parquet", "MMMU_Pro/vision/test-00000-of-00001.parquet",
    ]
    record = json.loads((base / PROVENANCE_FILE).read_text())
    assert record == {"commit": hub_data.commit, "repo": "MMMU/MMMU", "files": ["Art/validation-00000-of-00001.parquet"]}

    hub.set_client(_NoNetwork())  # from here on, any hub call fails the test
    ds = load_benchmark("mmmu", data=dest)
    assert (ds.revision, [i.id for i in ds.items]) == (hub_data.commit, ["validation_Art_1", "validation_Art_2"])
    assert load_benchmark("mmmu-pro", setting="vision", data=dest).revision == hub_data.commit


def test_sample_and_snapshots_never_touch_the_hub(local_hub):
    hub.set_client(_NoNetwork())
    assert len(load_benchmark("mmmu", split="dev", data="sample")) > 0


def test_offline_real_client_refuses_a_branch_and_says_what_to_do():
    """tests/conftest.py sets HF_HUB_OFFLINE=1: a branch cannot be resolved without the network."""
    with pytest.raises(DataError, match="HF_HUB_OFFLINE is set, so revision 'main' of MMMU/MMMU cannot be resolved"):
        HfHubClient().resolve("MMMU/MMMU", "main")


def test_offline_real_client_reads_a_pinned_commit_from_the_hf_cache(tmp_path):
    """A machine that downloaded once evaluates again offline, from huggingface_hub's cache."""
    commit = DEFAULT_REVISIONS["mmmu"]
    cached = tmp_path / "hf" / "datasets--MMMU--MMMU" / "snapshots" / commit
    write_mmmu(cached, "Art", "dev", [mmmu_row("dev_Art_1")])
    previous = hub.set_client(HfHubClient(cache_dir=tmp_path / "hf"))
    try:
        ds = load_benchmark("mmmu", split="dev", subjects=["art"])
        assert (ds.revision, [i.id for i in ds.items]) == (commit, ["dev_Art_1"])
        with pytest.raises(DataError, match="cannot read MMMU/MMMU_Pro at .* data= DIR"):
            load_benchmark("mmmu-pro")  # nothing cached for MMMU-Pro
    finally:
        hub.set_client(previous)


class _NoNetwork:
    def resolve(self, *a):
        raise AssertionError("hub used")

    list_files = fetch = resolve
