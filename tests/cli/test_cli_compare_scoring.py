"""`compare` of runs scored differently: refused unless asked, and each run's scoring printed.

What broke: a run re-scored with ``score --parser strict`` (2.5%) was compared with an
official-scored one (17.5%): "+15.0 points (paired 95% CI +5.0 to +27.5)", with no word that
the two were scored by different parsers, and no parser in ``--json``.
"""

import json

import pytest

from mmmu_eval.cli.main import main


@pytest.fixture
def two_runs(tmp_path, capsys):
    for name, model in (("a", "random"), ("b", "frequent")):
        assert main(["run", "--model", model, "--data", "sample", "--out", str(tmp_path / name), "--no-html"]) == 0
    capsys.readouterr()
    return tmp_path / "a", tmp_path / "b"


def test_runs_scored_by_different_parsers_are_refused_unless_allowed(two_runs, capsys):
    a, b = two_runs
    assert main(["score", str(b), "--parser", "strict", "--save"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "were scored differently (parser differ: parser official, fallback official (seed 42) vs parser strict" in err
    assert "--allow-different-scoring" in err

    assert main(["compare", str(a), str(b), "--allow-different-scoring"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich folds long lines at the console's width
    assert "warning:" in out and "scored differently" in out
    assert "A scored by parser official, fallback official (seed 42)" in out
    assert "B scored by parser strict, fallback official (seed 42)" in out


def test_compare_json_names_each_runs_scoring_and_the_interval_prints_as_brackets(two_runs, capsys):
    a, b = two_runs
    assert main(["score", str(b), "--fallback", "none", "--save"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 2  # fallback policy differs
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--allow-different-scoring"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["scoring_a"] == {"parser": "official", "fallback": "official", "fallback_seed": 42, "answers": None}
    assert doc["scoring_b"] == {"parser": "official", "fallback": "none", "fallback_seed": None, "answers": None}

    assert main(["score", str(b), "--fallback", "official", "--save"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "(paired 95% CI [" in out and "warning:" not in out
