"""A step run again into an output that later steps built on: unchanged, they stay; changed, they go.

filter writes standard (4 options), augment extends the same directory with standard (10
options). When filter runs again and keeps the same questions, the augment output stays as it
was; when it keeps others, the augment config, its harden.json section and its per-item entries
are removed (they were built on the old questions), with a warning naming them.
"""

from __future__ import annotations

import json
import logging

from fakes.fault_server import FaultServer
from fakes.mc_set import A_IDS, IDS, Proposer
from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.harden import AugmentSettings, FilterSettings, harden_augment, harden_filter
from mmmu_eval.harden.writer import config_file


def filtered_then_augmented(mmmu_set, out, quiet):
    harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=1, per_subject=0), display=quiet)
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        augmented = harden_augment(out, out, AugmentSettings(model="openai:fake-model", base_urls=[server.url]), display=quiet)
    assert augmented.status == "complete"
    return json.loads((out / "harden.json").read_text())


def test_the_same_filter_result_keeps_the_augment_output(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    before = filtered_then_augmented(mmmu_set, out, quiet)
    ten = config_file(out, "standard-10").read_bytes()
    # Two trials instead of one: a filter that runs again (not the finished one answered from its
    # record) and keeps the same questions, since the frequent baseline answers every trial alike.
    again = harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=2, per_subject=0), display=quiet)
    assert again.status == "complete"
    record = json.loads((out / "harden.json").read_text())
    assert "augment" in record["steps"], "an unchanged filter result must not drop the augment step"
    assert record["configs"][PRO_CONFIGS["standard-10"]] == before["configs"][PRO_CONFIGS["standard-10"]]
    assert config_file(out, "standard-10").read_bytes() == ten
    assert {i: e.get("augment") for i, e in record["items"].items()} == {i: e.get("augment") for i, e in before["items"].items()}


def test_a_changed_filter_result_removes_the_augment_output_built_on_the_old_one(mmmu_set, tmp_path, quiet, caplog):
    out = tmp_path / "hard"
    before = filtered_then_augmented(mmmu_set, out, quiet)
    assert [it.id for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items] == [i for i in IDS if i not in A_IDS]
    with caplog.at_level(logging.WARNING, logger="mmmu_eval"):
        again = harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=1, per_subject=2), display=quiet)
    assert again.status == "complete"
    record = json.loads((out / "harden.json").read_text())
    assert record["configs"][PRO_CONFIGS["standard-4"]]["items"] == 6 != before["configs"][PRO_CONFIGS["standard-4"]]["items"]
    assert "augment" not in record["steps"], "the augment step was built on the old standard (4 options)"
    assert PRO_CONFIGS["standard-10"] not in record["configs"]
    assert not config_file(out, "standard-10").exists() and not (out / PRO_CONFIGS["standard-10"]).exists()
    assert all("augment" not in entry for entry in record["items"].values())
    assert not (out / "runs" / "augment").exists(), "the proposals were asked about the old questions"
    assert any("the filter result changed, so the augment output" in r.getMessage() for r in caplog.records)
    # The directory is a valid output of the filter alone: augment runs on it again from the new questions.
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        redone = harden_augment(out, out, AugmentSettings(model="openai:fake-model", base_urls=[server.url]), display=quiet)
    assert redone.status == "complete"
    kept = [it.id for it in load_benchmark("mmmu-pro", setting="standard-4", data=out).items]
    assert [it.id for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items] == kept
