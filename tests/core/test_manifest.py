"""manifest.json through its one reader (Manifest) and its one builder (build_manifest)."""

from __future__ import annotations

import json

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.scoring.spec import ScoringSpec
from mmmu_eval.core.manifest import Manifest, build_manifest
from mmmu_eval.run.merge_shards import config_of
from mmmu_eval.store.rundir import RunStore

#: The keys `run` writes, in the order it writes them (what old readers and the tests see).
RUN_KEYS = ["package_version", "status", "started_at", "config", "protocol", "scoring", "dataset", "shard",
            "item_ids", "unreferenced_images", "backend", "sessions", "ended_at", "counts", "answers_bytes"]
DATASET_KEYS = ["benchmark", "split", "setting", "source", "revision", "digest", "files", "problems"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("manifest") / "run"
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(out), "--no-html",
                 "--limit", "3"]) == 0
    return out


def _with(run_dir, tmp_path, change) -> RunStore:
    """A copy of the run whose manifest ``change`` edited (as a person or an old version left it)."""
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("responses.jsonl", "manifest.json"):
        (copy / name).write_bytes((run_dir / name).read_bytes())
    manifest = json.loads((copy / "manifest.json").read_text())
    change(manifest)
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return RunStore.read(copy)


def test_a_run_writes_the_blocks_in_the_one_order(run_dir):
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert list(manifest) == RUN_KEYS
    assert list(manifest["dataset"]) == DATASET_KEYS
    assert manifest["status"] == "complete" and manifest["shard"] is None and len(manifest["item_ids"]) == 3


def test_reading_and_writing_back_changes_nothing_and_keeps_unknown_keys(run_dir, tmp_path):
    text = (run_dir / "manifest.json").read_text()
    record = Manifest.from_json(json.loads(text), run_dir / "manifest.json")
    assert json.dumps(record.to_json(), indent=2, ensure_ascii=False) + "\n" == text  # byte for byte
    store = _with(run_dir, tmp_path, lambda m: m.update(written_by_a_later_version={"x": [1, 2]}))
    RunStore(store.path, writable=True).update_manifest(status="incomplete")
    after = RunStore.read(store.path).manifest()
    assert after["written_by_a_later_version"] == {"x": [1, 2]} and list(after)[-1] == "written_by_a_later_version"
    assert after["status"] == "incomplete"


def test_typed_fields(run_dir):
    record = RunStore.read(run_dir).manifest_record()
    assert record.status == "complete" and record.sessions == 1 and record.has_config
    assert record.config["model"] == "random" and record.prompt_mode == "direct"
    assert record.fingerprint == record.protocol["fingerprint"] and len(record.fingerprint) == 64
    assert record.item_ids == tuple(json.loads((run_dir / "manifest.json").read_text())["item_ids"])
    assert record.counts == {"items": 3, "ok": 3, "truncated": 0, "error": 0, "missing": 0}
    assert record.answers_bytes == (run_dir / "responses.jsonl").stat().st_size
    assert record.dataset["source"] == "sample" and record.rescored_from is None
    assert record.effective_layout is None  # a baseline renders no template


@pytest.mark.parametrize("layout", ["images-first", {"images-first": 15, "interleaved": 5}, None])
def test_the_layout_the_model_saw_reads_back_as_written(layout):
    manifest = build_manifest(config={"model": "hf:/m"}, effective_layout=layout)
    assert Manifest.of(manifest).effective_layout == layout


@pytest.mark.parametrize(("change", "field", "found"), [
    (lambda m: m.update(config=["random"]), "'config' is list, not an object", None),
    (lambda m: m.update(protocol="direct"), "'protocol' is str, not an object", None),
    (lambda m: m.update(scoring=[]), "'scoring' is list, not an object", None),
    (lambda m: m["dataset"].update(revision=3), "'dataset.revision' must be a string or null", "found 3"),
    (lambda m: m["config"].update(model=7), "'config.model' must be a string or null", "found 7"),
    (lambda m: m["protocol"].update(fingerprint=["ab"]), "'protocol.fingerprint' must be a string or null", None),
    (lambda m: m.update(item_ids=["dev_Art_1", 2]), "'item_ids' must be a list of item ids", None),
    (lambda m: m["counts"].update(ok="3"), "'counts.ok' must be a whole number >= 0", "found '3'"),
    (lambda m: m.update(sessions=0), "'sessions' must be a whole number >= 1", "found 0"),
    (lambda m: m.update(status=None), "'status' must be a string", "found None"),
    (lambda m: m.update(answers_bytes=-1), "'answers_bytes' must be a whole number >= 0", None),
    (lambda m: m.update(effective_layout=["images-first"]), "'effective_layout' must be a layout name, an object", None),
    (lambda m: m.update(effective_layout={"images-first": -2}), "'effective_layout' must be a layout name", None),
])
def test_a_wrong_field_is_named_with_the_file(run_dir, tmp_path, change, field, found):
    store = _with(run_dir, tmp_path, change)
    with pytest.raises(StoreError) as caught:
        store.manifest()
    message = str(caught.value)
    assert message.startswith(f"{store.path / 'manifest.json'}: {field}")
    assert found is None or found in message
    assert "restore it from a copy" in message


def test_a_wrong_field_stops_the_commands_that_read_it(run_dir, tmp_path, capsys):
    store = _with(run_dir, tmp_path, lambda m: m.update(dataset=["sample"]))
    capsys.readouterr()
    assert main(["score", str(store.path)]) == 1
    assert f"{store.path / 'manifest.json'}: 'dataset' is list, not an object" in capsys.readouterr().err
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(store.path),
                 "--no-html", "--limit", "3"]) != 0
    assert "'dataset' is list, not an object" in capsys.readouterr().err


def test_an_old_run_directory_still_reads(run_dir, tmp_path, capsys):
    """A run from before the scoring record, the image rule, sessions, answers' size and item ids."""
    def old(m):
        for key in ("scoring", "unreferenced_images", "sessions", "answers_bytes", "item_ids", "package_version"):
            del m[key]
    store = _with(run_dir, tmp_path, old)
    record = store.manifest_record()
    assert record.sessions == 1 and record.item_ids is None and record.scoring is None and record.package_version is None
    assert ScoringSpec.from_manifest(record) == ScoringSpec.for_mode("direct")
    capsys.readouterr()
    assert main(["report", str(store.path)]) == 0
    assert "random" in capsys.readouterr().out
    # Continuing it is allowed (same protocol and data): the new session is counted from the old one.
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(store.path),
                 "--no-html", "--limit", "3"]) == 0
    assert RunStore.read(store.path).manifest_record().sessions == 2


def test_missing_blocks_fall_back_one_way():
    """No config: a flat manifest, its settings at the top; no protocol or dataset: empty."""
    flat = Manifest.of({"model": "random", "benchmark": "mmmu", "prompt": "cot", "fingerprint": "ab" * 32})
    assert not flat.has_config and flat.config["model"] == "random"
    assert flat.prompt_mode is None  # the mode is read from the blocks only, as it always was
    assert flat.protocol == {} and flat.dataset == {} and flat.fingerprint == "ab" * 32
    assert config_of({"model": "random"}) == {"model": "random"}
    assert ScoringSpec.from_manifest({"parsers": ["strict"]}).parsers == ("strict",)
    nested = Manifest.of({"config": {"model": "m"}, "dataset": {"item_ids": ["a", "b"]}})
    assert nested.config == {"model": "m"} and nested.item_ids == ("a", "b")
    with pytest.raises(StoreError, match="must hold a JSON object, found list"):
        Manifest.from_json([1], "x/manifest.json")


def test_the_builder_leaves_out_what_a_writer_does_not_give_and_checks_the_rest():
    partial = build_manifest(config={"model": "m"}, protocol={"fingerprint": "f"})
    assert list(partial) == ["status", "config", "protocol"]
    full = build_manifest(package_version="1", started_at="t", config={}, protocol={}, scoring={}, dataset={},
                          shard=(2, 4), item_ids=("a",), rescored_from={"format": "x"})
    assert list(full) == ["package_version", "status", "started_at", "config", "protocol", "scoring", "dataset",
                          "shard", "item_ids", "rescored_from"]
    assert full["shard"] == [2, 4] and full["item_ids"] == ["a"]
    with pytest.raises(StoreError, match="the manifest being written: 'config.model' must be a string or null"):
        build_manifest(config={"model": 3})
