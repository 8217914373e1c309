"""``mmmu-eval harden all`` turns an MMMU-layout set into an MMMU-Pro-layout one that ``mmmu-eval run`` evaluates."""

from __future__ import annotations

import json

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import A_IDS, Proposer
from mmmu_eval.cli.main import main
from mmmu_eval.dataset.load import load_benchmark



@pytest.mark.slow
@pytest.mark.usefixtures("chromium")
def test_harden_all_then_run_evaluates_every_setting(mmmu_set, tmp_path, capsys):
    out = tmp_path / "hard"
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        status = main([
            "harden", "all", "--data", str(mmmu_set), "--out", str(out), "--models", "frequent,frequent,frequent,random",
            "--trials", "3", "--per-subject", "3", "--augment-model", "openai:fake-model", "--augment-base-url", server.url,
        ])
    printed = capsys.readouterr()
    assert status == 0, printed.err[-3000:]
    assert "Text-only accuracy (Figure 5)" in printed.out and "all: complete" in printed.out
    assert "unreviewed" in printed.err
    record = json.loads((out / "harden.json").read_text())
    assert set(record["steps"]) == {"filter", "augment", "render"}
    kept = {it.id for it in load_benchmark("mmmu-pro", setting="standard-4", data=out).items}
    assert len(kept) == 9 and not kept & A_IDS
    ten = load_benchmark("mmmu-pro", setting="standard-10", data=out).items
    vision = load_benchmark("mmmu-pro", setting="vision", data=out).items
    assert {it.id for it in ten} == {it.id for it in vision} == kept
    assert all(len(it.options) == 10 for it in ten)
    assert [it.options for it in vision] == [it.options for it in ten]
    assert record["steps"]["augment"]["check"]["accuracy"].keys() == {"m1-frequent", "m2-frequent", "m3-frequent", "m4-random"}
    html = (out / "report.html").read_text()
    assert "<svg" in html and "after augmenting (10 options)" in html

    for setting, model in (("vision", "random"), ("standard-10", "frequent"), ("standard-4", "random")):
        assert main(["run", "--benchmark", "mmmu-pro", "--setting", setting, "--data", str(out), "--model", model,
                     "--out", str(tmp_path / f"run-{setting}")]) == 0
        results = json.loads((tmp_path / f"run-{setting}" / "results.json").read_text())
        assert results["overall"]["n"] == 9


def test_harden_without_a_step_prints_its_help(capsys):
    assert main(["harden"]) == 2
    assert "filter" in capsys.readouterr().out


def test_a_bad_flag_is_one_line_and_status_2(mmmu_set, tmp_path, capsys):
    assert main(["harden", "filter", "--data", str(mmmu_set), "--out", str(tmp_path / "x"), "--models", "frequent",
                 "--min-models", "2"]) == 2
    assert "--min-models must be between 1 and the number of models (1)" in capsys.readouterr().err


def test_filter_on_the_bundled_sample_from_the_command_line(tmp_path, capsys):
    status = main(["harden", "filter", "--data", "sample", "--out", str(tmp_path / "s"), "--models", "frequent,random", "--trials", "2"])
    assert status == 0, "open questions are left out and counted, but are not bad input"
    assert "open question 14" in capsys.readouterr().out


@pytest.mark.parametrize("step", [["augment", "--model", "frequent"], ["render"]])
def test_only_filter_runs_under_a_launcher(step, mmmu_set, tmp_path, capsys, monkeypatch):
    """augment and render write one output with one writer: under torchrun they are refused at
    once, saying what to do, before any rank reads or writes anything."""
    for name, value in {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}.items():
        monkeypatch.setenv(name, value)
    status = main(["harden", step[0], "--data", str(mmmu_set), "--out", str(tmp_path / "out"), *step[1:]])
    assert status != 0
    err = capsys.readouterr().err
    assert f"harden {step[0]} does not run under torchrun / accelerate launch (rank 1 of 2)" in err
    assert "only harden filter does" in err and not (tmp_path / "out").exists()
