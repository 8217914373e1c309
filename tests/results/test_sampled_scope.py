"""A ``run --sample K`` figure is named "sampled K of N" wherever it is printed: the terminal's
headline, results.json's scope, the HTML headline, compare and the suite, all through the one
scope record (results/scope.py).

The runs read the bundled data as a local snapshot folder, so they are runs of real-shaped data
(not the synthetic "bundled sample" scope).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval import evaluate, evaluate_suite
from mmmu_eval.cli.main import main
from mmmu_eval.results.scope import Scope, combined_scope, scope_of
from mmmu_eval.run.progress import NullDisplay

SNAPSHOT = Path(mmmu_eval.__file__).parent / "sample_data"
TEXT = "sampled 12 of 40 items (seed 3): an estimate of the score on those 40 items of the 900 in the validation split"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("sampled")
    for name, extra in (("sampled", {"sample": 12, "sample_seed": 3}), ("full", {})):
        evaluate(model="frequent", benchmark="mmmu", split="validation", data=str(SNAPSHOT), out=str(root / name),
                 display=NullDisplay(), **extra)
    return root


@pytest.mark.parametrize(
    ("config", "sample", "items", "kind", "text"),
    [
        ({"benchmark": "mmmu-pro", "setting": "standard-10", "data": "hub"},
         {"k": 200, "seed": 0, "population": 1730, "drawn": 200}, 200, "sampled",
         "sampled 200 of 1,730 items (seed 0): an estimate of the score on the full standard-10 setting, not the full figure"),
        ({"benchmark": "mmmu", "split": "validation", "data": "hub", "subjects": ["Art"]},
         {"k": 10, "seed": 1, "population": 30, "drawn": 10}, 10, "sampled",
         "sampled 10 of 30 items (subjects Art; seed 1): an estimate of the score on those 30 items of the 900 in the "
         "validation split, not the full figure"),
        ({"benchmark": "mmmu", "split": "validation", "data": "hub", "shard": [1, 2]},
         {"k": 9, "seed": 4, "population": 900, "drawn": 9}, 5, "shard", "shard 1/2: 5 of 900 items (sampled 9 of 900, seed 4)"),
        ({"benchmark": "mmmu", "split": "validation", "data": "hub", "limit": 3},
         {"k": 9, "seed": 4, "population": 900, "drawn": 9}, 3, "subset",
         "subset: 3 of 900 items (sampled 9 of 900, seed 4; --limit 3)"),
        ({"benchmark": "mmmu", "split": "validation", "data": "sample"},
         {"k": 12, "seed": 0, "population": 40, "drawn": 12}, 12, "sample",
         "bundled sample: 12 synthetic items (sampled 12 of 40, seed 0), not the benchmark"),
    ],
)
def test_every_sampled_scope_says_sampled_k_of_n(config, sample, items, kind, text):
    scope = scope_of({"config": config, "sample": sample}, items=items)
    assert (scope.kind, scope.text) == (kind, text)
    assert not scope.full and Scope.from_json(scope.to_json()) == scope
    assert kind == "sample" or "sampled" in (scope.caveat or "")


def test_results_json_and_the_terminal_headline(runs, capsys):
    results = json.loads((runs / "sampled" / "results.json").read_text())
    assert results["scope"]["kind"] == "sampled" and results["scope"]["population"] == 40
    assert results["scope"]["text"].startswith(TEXT)
    capsys.readouterr()
    assert main(["report", str(runs / "sampled")]) == 0
    headline = " ".join(capsys.readouterr().out.split()).split(" sampled 12 of 40 items (seed 3): 0")[0]
    assert TEXT in headline and headline.startswith("MMMU validation · frequent:")


def test_the_html_headline(runs):
    page = (runs / "sampled" / "report.html").read_text()
    assert f'id="scope">{TEXT}' in page


def test_compare_names_the_sampled_run(runs, capsys):
    capsys.readouterr()
    main(["compare", str(runs / "sampled"), str(runs / "full")])
    out = " ".join(capsys.readouterr().out.split())
    assert f"{runs / 'sampled'} is {TEXT}" in out


def test_the_suite_names_its_sampled_runs(tmp_path, capsys):
    out = tmp_path / "suite"
    evaluate_suite(model="frequent", data=str(SNAPSHOT), out=str(out), prompts=["direct"], sample=5)
    suite = json.loads((out / "suite.json").read_text())
    assert suite["scope"]["kind"] == "sampled" and "on a sampled 5 of" in suite["scope"]["text"]
    kinds = {run["kind"] for run in suite["scope"]["runs"].values()}
    assert kinds == {"sampled"}
    page = (out / "report.html").read_text()
    assert "mmmu-validation-direct on a sampled 5 of 40 items (seed 0)" in page


def test_a_suite_of_full_and_sampled_runs_is_as_comparable_as_its_sampled_one():
    full = Scope("full", 900, 900, (), "validation split")
    sampled = scope_of({"config": {"benchmark": "mmmu", "split": "validation", "data": "hub"},
                        "sample": {"k": 90, "seed": 0, "population": 900, "drawn": 90}}, items=90)
    combined = combined_scope({"a": full, "b": sampled})
    assert combined["kind"] == "sampled" and combined["text"] == f"not the full splits: b on a {sampled.text}"
