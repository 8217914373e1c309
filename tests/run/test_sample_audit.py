"""``run --sample K --sample-audit AUDIT.json``: the audit's runs stratify the sample by difficulty and
add a 2PL estimate of the full score, each only where the hold-one-model-out check on those runs
shows it beats uniform sampling; the check is recorded and printed, and every estimate says it is
one, with its interval.

The audit is made as a user makes it: answer files of twelve "models" (plain ``{"id", "response"}``
JSONL rows, answers drawn from a 2PL over the bundled MMMU validation sample), read by
``mmmu-eval audit --json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mmmu_eval import ConfigError, evaluate, load_dataset
from mmmu_eval.cli.main import main
from mmmu_eval.core.records import letters
from mmmu_eval.stats.irt import map_ability
from mmmu_eval.stats.sample_check import allocate, hold_out_check, stratified_estimate, strata_labels, tie_keys
from mmmu_eval.stats.sampled import exact_interval
from mmmu_eval.run.progress import NullDisplay

K = 20


def _write_answers(folder: Path, *, flat: bool = False) -> list[Path]:
    """Twelve models' answer files; ``flat``: half the models right on every item, half on none."""
    items = [it for it in load_dataset("mmmu", split="validation", data="sample").items
             if it.question_type == "multiple-choice"]
    rng = np.random.default_rng(3)
    ability = np.linspace(-2, 2, 12)
    difficulty = np.linspace(-3, 3, len(items))
    paths = []
    for m, theta in enumerate(ability):
        rows = []
        for it, b in zip(items, difficulty):
            labels = letters(len(it.options))
            right = (m % 2 == 0) if flat else rng.random() < 1 / (1 + np.exp(-2.0 * (theta - b)))
            wrong = [x for x in labels if x != it.answer]
            letter = it.answer if right else wrong[int(rng.integers(len(wrong)))]
            rows.append(json.dumps({"id": it.id, "response": f"The answer is ({letter}).", "benchmark": "mmmu",
                                    "split": "validation"}))
        path = folder / f"model{m:02d}.jsonl"
        path.write_text("\n".join(rows) + "\n")
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def audit_json(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("answers")
    out = folder / "audit.json"
    assert main(["audit", *map(str, _write_answers(folder)), "--data", "sample", "--json", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def sampled_run(audit_json, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "sampled"
    result = evaluate(model="frequent", benchmark="mmmu", split="validation", data="sample", out=str(out),
                      display=NullDisplay(), sample=K, sample_audit=str(audit_json))
    return out, result


def test_the_audit_json_carries_each_runs_answers(audit_json):
    doc = json.loads(audit_json.read_text())
    responses = doc["items"]["responses"]
    ids = sorted(doc["items"]["per_item"])
    assert set(responses) == {r["name"] for r in doc["runs"]} and len(responses) == 12
    for run in doc["runs"]:
        row = responses[run["name"]]
        assert len(row) == len(ids) and set(row) <= set("01.")
        assert row.count("1") / (row.count("1") + row.count("0")) == pytest.approx(run["accuracy"])
    right = [sum(responses[r][j] == "1" for r in responses) for j in range(len(ids))]
    assert right == [doc["items"]["per_item"][i]["right"] for i in ids]


def test_the_sample_is_stratified_and_the_check_recorded(sampled_run, audit_json):
    out, _ = sampled_run
    manifest = json.loads((out / "manifest.json").read_text())
    sample = manifest["sample"]
    check = sample["check"]
    assert check["models"] == 12 and check["held_out_sets"] == 12 and check["k"] == K
    assert check["design"] == "stratified" and sample["method"].startswith("stratified by difficulty")
    assert check["mae"]["stratified"] < check["mae"]["uniform"]  # why the draw is stratified
    assert set(check["offered"]) == {n for n in ("stratified", "2pl") if check["mae"][n] < check["mae"]["uniform"]}
    assert sample["audit"]["sha256"] and sample["audit"]["runs"] == 12
    strata = sample["strata"]
    audited = set(json.loads(audit_json.read_text())["items"]["per_item"])
    unaudited = sample["population"] - len(audited)  # the open questions: the answer files hold none
    assert unaudited > 0 and strata[-1]["p_right"] is None and strata[-1]["population"] == unaudited
    assert [s["population"] for s in strata[:2]] == [len(audited) // 2] * 2
    assert sum(s["drawn"] for s in strata) == K
    for s in strata:  # in proportion to the strata's sizes
        assert abs(s["drawn"] - K * s["population"] / sample["population"]) < 1
    assert strata[0]["p_right"][1] <= strata[1]["p_right"][0]  # hardest first
    drawn = [i for s in strata for i in s["ids"]]
    assert sorted(drawn) == sorted(manifest["item_ids"]) and len(drawn) == K
    # the same audit, K and seed draw the same items again (a resume, a shard)
    again = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=str(out.parent / "again"),
                     display=NullDisplay(), html=False, sample=K, sample_audit=str(audit_json))
    assert json.loads((out.parent / "again" / "manifest.json").read_text())["item_ids"] == manifest["item_ids"]
    assert again.results["sample"]["check"] == sample["check"]


def test_the_estimates_sit_beside_the_exact_interval_with_their_own(sampled_run):
    out, result = sampled_run
    section = result.results["sample"]
    assert section["full_set_interval95"] == list(exact_interval(section["correct"], K, 40))
    by_name = {e["estimator"]: e for e in section["estimates"]}
    assert set(by_name) == set(section["check"]["offered"]) and "stratified" in by_name
    verdicts = result.results["verdicts"]
    strata = json.loads((out / "manifest.json").read_text())["sample"]["strata"]
    got = [sum(verdicts[i]["correct"] for i in s["ids"]) for s in strata]
    value, error = stratified_estimate(np.array(got), np.array([s["drawn"] for s in strata]),
                                       np.array([s["population"] for s in strata]))
    assert by_name["stratified"]["estimate"] == pytest.approx(value)
    low, high = by_name["stratified"]["interval95"]
    assert low == pytest.approx(max(value - 1.959963984540054 * error, section["correct"] / 40))
    assert low <= value <= high
    for estimate in section["estimates"]:
        assert estimate["what"] == "an estimate of the full set's score from a sample, not the official figure"


def test_the_2pl_estimate_is_the_answers_seen_plus_the_predictions(sampled_run):
    out, result = sampled_run
    section = result.results["sample"]
    if "2pl" not in section["check"]["offered"]:
        pytest.fail(f"the 2PL should beat uniform on answers drawn from a 2PL: {section['check']}")
    irt = json.loads((out / "manifest.json").read_text())["sample"]["irt"]
    verdicts = result.results["verdicts"]
    ids = list(irt["drawn"])
    a = np.array([irt["drawn"][i][0] for i in ids])
    b = np.array([irt["drawn"][i][1] for i in ids])
    y = np.array([float(verdicts[i]["correct"]) for i in ids])
    theta = map_ability(y, a, b)[0]
    rest = np.interp(theta, irt["theta"], irt["rest_expected_right"])
    estimate = next(e for e in section["estimates"] if e["estimator"] == "2pl")
    assert estimate["estimate"] == pytest.approx(min(max((y.sum() + rest) / 40, section["correct"] / 40),
                                                     (section["correct"] + 20) / 40))
    coverage = section["check"]["irt_coverage"]  # calibrated on each held-out model, not one pooled percentile
    assert coverage["margin"] >= section["check"]["q95"]["2pl"] - 1e-12
    assert min(coverage["each_model"].values()) >= 0.95
    assert estimate["interval95"][1] - estimate["interval95"][0] <= 2 * coverage["margin"] + 1e-12
    assert (estimate["coverage"], estimate["nominal"]) == (coverage["held_out"], None)  # its measured coverage, no nominal 95%
    assert "for a model left out of that calibration" in estimate["interval_method"]


def test_the_report_prints_the_check_and_each_estimate(sampled_run, capsys):
    out, result = sampled_run
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "sampled 20 of 40 items (seed 0, stratified by difficulty)" in text
    assert "check, holding out one model at a time (12 models, 12 held-out sets" in text
    assert "mean absolute error against the full score, in points: uniform" in text
    for estimate in result.results["sample"]["estimates"]:
        named = "95% interval" if estimate["estimator"] == "stratified" else "2PL item response estimate"
        assert "estimate: " in text and named in text
    if any(e["estimator"] == "2pl" for e in result.results["sample"]["estimates"]):
        line = text[text.index("2PL item response estimate"):]
        assert line.split("(")[0].count("95%") == 0  # not called a 95% interval: its measured coverage follows
        assert "its draws or more; for a model left out of that calibration" in line
    assert text.count("an estimate of the full set's score from a sample, not the official figure") == len(
        result.results["sample"]["estimates"])
    assert "sampled 20 of 40, seed 0" in text  # the headline's scope
    page = " ".join((out / "report.html").read_text().split())
    assert "check, holding out one model at a time (12 models" in page
    assert page.count("an estimate of the full set&#x27;s score from a sample, not the official figure") == len(
        result.results["sample"]["estimates"])


def test_no_estimator_is_offered_when_none_beats_uniform(tmp_path, capsys):
    out = tmp_path / "audit.json"
    assert main(["audit", *map(str, _write_answers(tmp_path, flat=True)), "--data", "sample", "--json", str(out)]) == 0
    result = evaluate(model="frequent", benchmark="mmmu", split="validation", data="sample", out=str(tmp_path / "r"),
                      display=NullDisplay(), html=False, sample=K, sample_audit=str(out))
    section = result.results["sample"]
    # every held-out set is all right or all wrong: uniform sampling is exact, nothing beats it
    assert section["check"]["mae"]["uniform"] == 0 and section["check"]["offered"] == []
    assert section["design"] == "uniform" and section["estimates"] == []
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert "strata" not in manifest["sample"] and "irt" not in manifest["sample"]
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r")]) == 0
    assert "offered: none beats uniform" in " ".join(capsys.readouterr().out.split())


def test_a_bad_audit_file_is_one_clear_error(tmp_path, audit_json):
    def run(path, **kw):
        return evaluate(model="frequent", benchmark="mmmu", split="validation", data="sample", out=str(tmp_path / "r"),
                        display=NullDisplay(), html=False, sample_audit=str(path), **kw)

    with pytest.raises(ConfigError, match="--sample-audit applies to a sampled run"):
        run(audit_json)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="bad.json: cannot be read as JSON"):
        run(tmp_path / "bad.json", sample=K)
    old = json.loads(audit_json.read_text())
    del old["items"]["responses"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(ConfigError, match="no items.responses"):
        run(tmp_path / "old.json", sample=K)
    with pytest.raises(ConfigError, match="none of its 12 runs is of mmmu-pro"):
        evaluate(model="frequent", benchmark="mmmu-pro", data="sample", out=str(tmp_path / "p"), display=NullDisplay(),
                 html=False, sample=K, sample_audit=str(audit_json))
    assert main(["run", "--model", "frequent", "--data", "sample", "--sample", "5", "--sample-audit",
                 str(tmp_path / "bad.json"), "--out", str(tmp_path / "cli")]) != 0


def test_strata_cut_by_difficulty_and_allocate_in_proportion():
    p = np.array([0.9, 0.1, np.nan, 0.5, 0.3, 0.7])
    labels = strata_labels(p, tie_keys([f"i{n}" for n in range(6)]), 2)
    assert labels.tolist() == [1, 0, 2, 0, 0, 1]  # hardest first, equal sizes; the unaudited item apart
    assert allocate(np.array([100, 50, 50]), 20).tolist() == [10, 5, 5]
    assert allocate(np.array([97, 2, 1]), 10).tolist() == [8, 1, 1]  # every stratum drawn from
    assert allocate(np.array([3, 3]), 10).tolist() == [3, 3]


def test_the_check_refuses_the_2pl_without_enough_runs():
    rng = np.random.default_rng(0)
    right = (rng.random((4, 60)) < 0.5).astype(float)
    check = hold_out_check(right, np.ones_like(right), ["a", "b", "c", "d"], [f"i{n}" for n in range(60)], 20)
    assert "2pl" not in check.mae and any("no 2PL" in n for n in check.notes)


def test_the_stratified_estimate_weights_strata_by_size():
    value, error = stratified_estimate(np.array([2, 5]), np.array([5, 5]), np.array([10, 30]))
    assert value == pytest.approx(0.25 * 2 / 5 + 0.75 * 5 / 5)
    smooth = (3 / 7, 6 / 7)  # (x + 1) / (n + 2)
    variance = (0.25**2 * (1 - 5 / 10) * smooth[0] * (1 - smooth[0]) / 5
                + 0.75**2 * (1 - 5 / 30) * smooth[1] * (1 - smooth[1]) / 5)
    assert error == pytest.approx(variance**0.5)
    # every item of a stratum drawn: it adds no uncertainty
    assert stratified_estimate(np.array([3, 1]), np.array([4, 2]), np.array([4, 10]))[1] == pytest.approx(
        ((10 / 14) ** 2 * (1 - 2 / 10) * 0.5 * 0.5 / 2) ** 0.5)


def test_the_ability_is_the_maximum_of_the_posterior():
    a = np.array([1.0, 2.0, 0.5, 1.5])
    b = np.array([-1.0, 0.0, 1.0, 2.0])
    y = np.array([1.0, 1.0, 0.0, 0.0])
    theta = map_ability(y, a, b)[0]
    p = 1 / (1 + np.exp(-a * (theta - b)))
    assert (a * (y - p)).sum() - theta == pytest.approx(0, abs=1e-9)  # the standard normal prior's pull included
    everything = map_ability(np.ones(4), a, b)[0]
    assert theta < everything < 5  # all right: higher, and finite


def test_one_model_alone_offers_nothing():
    rng = np.random.default_rng(1)
    right = (rng.random((10, 60)) < np.linspace(0.05, 0.95, 60)).astype(float)
    check = hold_out_check(right, np.ones_like(right), ["m"] * 10, [f"i{n}" for n in range(60)], 20)
    assert check.offered == () and check.design == "uniform" and check.held_out_sets == 0
    assert any("two models" in n for n in check.notes)


def test_shards_of_one_audit_merge_however_its_path_was_spelled_and_another_audit_is_refused(
        audit_json, tmp_path, monkeypatch, capsys):
    """The shards of a sampled run are one evaluation when their audits hold the same bytes: a
    relative path, an absolute one and a copy elsewhere draw the same items."""
    common = {"model": "random", "benchmark": "mmmu", "split": "validation", "data": "sample",
              "display": NullDisplay(), "html": False, "sample": K}
    copy = tmp_path / "elsewhere" / "audit.json"
    copy.parent.mkdir()
    copy.write_bytes(audit_json.read_bytes())
    monkeypatch.chdir(audit_json.parent)
    evaluate(out=str(tmp_path / "one"), shard="1/2", sample_audit=audit_json.name, **common)
    evaluate(out=str(tmp_path / "two"), shard="2/2", sample_audit=str(copy), **common)
    whole = evaluate(out=str(tmp_path / "whole"), sample_audit=str(audit_json), **common)
    assert main(["merge", str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(tmp_path / "merged")]) == 0
    merged = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert merged["overall"] == whole.results["overall"]

    other = tmp_path / "other" / "audit.json"
    other.parent.mkdir()
    assert main(["audit", *map(str, _write_answers(other.parent, flat=True)), "--data", "sample",
                 "--json", str(other)]) == 0
    evaluate(out=str(tmp_path / "two-other"), shard="2/2", sample_audit=str(other), **common)
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "one"), str(tmp_path / "two-other"), "--out", str(tmp_path / "no")]) != 0
    err = capsys.readouterr().err
    assert "sample_audit is 'the audit file with sha256" in err and "not shards of one evaluation" in err
