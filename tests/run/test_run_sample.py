"""``run --sample K``: a seeded sample of K items, recorded in the manifest, reported with an exact
interval for the full set's score."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import pytest

from mmmu_eval import ConfigError, evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.stats.sampled import exact_interval
from mmmu_eval.run.progress import NullDisplay


def _run(out, **kw):
    return evaluate(model="frequent", benchmark="mmmu", split="validation", data="sample", out=str(out),
                    display=NullDisplay(), html=False, **kw)


def test_the_sample_is_seeded_and_recorded_in_the_manifest(tmp_path):
    a = _run(tmp_path / "a", sample=10, sample_seed=7)
    b = _run(tmp_path / "b", sample=10, sample_seed=7)
    c = _run(tmp_path / "c", sample=10, sample_seed=8)
    full = _run(tmp_path / "full")
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    ids = manifest["item_ids"]
    assert len(ids) == 10 and ids == json.loads((tmp_path / "b" / "manifest.json").read_text())["item_ids"]
    assert ids != json.loads((tmp_path / "c" / "manifest.json").read_text())["item_ids"]
    everything = json.loads((tmp_path / "full" / "manifest.json").read_text())["item_ids"]
    assert set(ids) < set(everything) and ids == [i for i in everything if i in set(ids)]  # dataset order
    assert manifest["sample"]["k"] == 10 and manifest["sample"]["seed"] == 7
    assert manifest["sample"]["population"] == len(everything)
    section = a.results["sample"]
    low, high = exact_interval(section["correct"], 10, len(everything))
    assert section["full_set_interval95"] == [low, high] and low <= section["accuracy"] <= high
    assert "sample" not in full.results and b.results["sample"] == section and c.results["sample"]["seed"] == 8


def test_the_report_prints_the_interval_beside_the_sample_score(tmp_path, capsys):
    _run(tmp_path / "s", sample=12)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "s")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "sampled 12 of 40 items (seed 0)" in out and "the full set's score lies in" in out


def test_a_sample_of_zero_is_refused():
    with pytest.raises(ConfigError, match="--sample must be at least 1"):
        _run("unused", sample=0)


def test_shards_of_a_sample_merge_without_gaps(tmp_path, capsys):
    for k in (1, 2):
        _run(tmp_path / f"shard{k}", sample=9, sample_seed=4, shard=(k, 2))
    assert main(["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--out", str(tmp_path / "merged")]) == 0
    merged = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert len(merged["item_ids"]) == 9 and merged["sample"]["k"] == 9
    _run(tmp_path / "other", sample=9, sample_seed=5, shard=(2, 2))  # another sample's half
    assert main(["merge", str(tmp_path / "shard1"), str(tmp_path / "other"), "--out", str(tmp_path / "bad")]) != 0
    assert "sample_seed" in capsys.readouterr().err


def _brute(correct, drawn, population, level=0.95):
    """Every full-set count not rejected by either 2.5% tail, in exact fractions."""
    tail = Fraction(1 - level) / 2
    kept = []
    for m in range(population + 1):
        pmf = [Fraction(comb(m, i) * comb(population - m, drawn - i), comb(population, drawn)) for i in range(drawn + 1)]
        if sum(pmf[correct:]) > tail and sum(pmf[: correct + 1]) > tail:
            kept.append(m)
    return kept[0] / population, kept[-1] / population


@pytest.mark.parametrize("correct,drawn,population", [(0, 5, 20), (3, 5, 20), (5, 5, 20), (7, 15, 30), (12, 30, 30),
                                                       (1, 10, 61)])
def test_the_interval_is_the_exact_hypergeometric_one(correct, drawn, population):
    assert exact_interval(correct, drawn, population) == pytest.approx(_brute(correct, drawn, population), abs=1e-12)
