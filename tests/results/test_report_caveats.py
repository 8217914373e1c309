"""Every headline says what it is: its scope, a void figure as void, a figure of random letters as such.

The cases of issue 28, each a real run through ``evaluate`` and the CLI:

- a test-split run without gold answers headlined "0.0% (95% CI 0.0–0.0, 0/0)", drew empty
  charts and placed itself below Random Choice, and its fallback card said 0 although 40% of
  its answers could not be parsed;
- a run whose answers are 40% unreadable headlined 17.5% with no warning (5.0% with those
  counted wrong);
- ``--subjects art`` printed 25.0% against the human experts on all of MMMU, and the 40-item
  synthetic sample headlined "MMMU validation · random: 10.0%".
"""

from __future__ import annotations

import json
import re

import pytest

from fakes.parquet_rows import mmmu_row, write_mmmu
from fakes.scripted_backend import ScriptedBackend
from mmmu_eval import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.run.progress import NullDisplay

#: Ten items per subject in the fake data folders below; gold answer B for each.
N = 10


def _answers(n: int, unreadable: int, right: int) -> list[str]:
    """``right`` answers (B), then wrong ones (C), and the last ``unreadable`` with no letter at all."""
    out = ["(B)"] * right + ["(C)"] * (n - right - unreadable) + ["I cannot tell from the picture."] * unreadable
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return make_runs(tmp_path_factory.mktemp("caveats"))


def make_runs(root):
    """The four runs of the module doc under ``root`` (also the browser test's pages)."""
    test_data, val_data = root / "test-data", root / "val-data"
    for subject in ("Art", "Math"):
        write_mmmu(test_data, subject, "test", [mmmu_row(f"test_{subject}_{i}", answer="?") for i in range(1, N + 1)])
        write_mmmu(val_data, subject, "validation", [mmmu_row(f"validation_{subject}_{i}") for i in range(1, N + 1)])
    quiet = dict(display=NullDisplay())
    # 20 test items, 8 of them unreadable (40%).
    evaluate(model=ScriptedBackend(_answers(2 * N, 8, 6)), benchmark="mmmu", split="test", data=str(test_data),
             out=root / "void", **quiet)
    # 20 validation items of two subjects; 8 unreadable (40%): 2 right for sure, the rest by the seeded draw.
    evaluate(model=ScriptedBackend(_answers(2 * N, 8, 2)), benchmark="mmmu", split="validation", data=str(val_data),
             out=root / "dice", **quiet)
    # The Art subject of the same data: a subset of the validation split.
    evaluate(model=ScriptedBackend(["(B)"] * 5 + ["(C)"] * 5), benchmark="mmmu", split="validation",
             data=str(val_data), subjects="Art", out=root / "subset", **quiet)
    evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=root / "sample", **quiet)
    return root


def _report(capsys, run_dir, *extra) -> str:
    capsys.readouterr()
    assert main(["report", str(run_dir), *extra]) == 0
    return capsys.readouterr().out


def test_a_run_without_gold_answers_headlines_no_gold_answers_and_counts_its_unparsed(runs, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = _report(capsys, runs / "void")
    head = out.splitlines()[0]
    assert "no gold answers (20 predictions, 8 of them unparsed)" in head and "%" not in head, out
    assert "answer_dict_test.json" in out and "EvalAI" in out
    assert "0/0" not in out and "Official MMMU layout" not in out
    results = json.loads((runs / "void" / "results.json").read_text())
    assert results["gold_available"] is False and results["parse"]["unparsed"] == 8

    page = (runs / "void" / "report.html").read_text()
    assert re.search(r'id="headline">no gold answers<', page)
    assert "8 of 20" in page  # the unparsed answers' card
    assert "no accuracy to place among them" in page and "Published accuracies and this run" not in page
    assert "Accuracy by discipline" not in page and "no score (no gold answers): nothing to chart" in page


def test_a_headline_of_many_random_letters_is_flagged_with_the_figure_without_them(runs, capsys):
    results = json.loads((runs / "dice" / "results.json").read_text())
    parse = results["parse"]
    assert (parse["fallbacks"], results["overall"]["n"]) == (8, 20) and parse["deterministic_correct"] == 2
    out = " ".join(_report(capsys, runs / "dice").split())
    assert ("Warning: 8 of 20 answers (40.0%) could not be parsed and were given a random letter: "
            f"{results['overall']['accuracy'] * 100:.1f}% is partly chance; 10.0% with those counted wrong") in out
    page = (runs / "dice" / "report.html").read_text()
    assert '<div class="fact alert"><dt>Random fallbacks</dt><dd>8 (40.0%)</dd>' in page
    assert '<div class="fact alert"><dt>Fallbacks counted wrong</dt><dd>10.0%</dd>' in page

    calm = (runs / "subset" / "report.html").read_text()  # no unreadable answer: no alert
    assert "fact alert" not in calm and "Warning:" not in _report(capsys, runs / "subset")


def test_a_subset_names_its_scope_beside_the_experts_and_the_published_figures(runs, capsys):
    results = json.loads((runs / "subset" / "results.json").read_text())
    assert results["scope"] == {"kind": "subset", "items": 10, "of": 900, "chosen_by": ["subjects Art"],
                                "split": "validation split", "text": "subset: 10 of 900 items (subjects Art)"}
    out = " ".join(_report(capsys, runs / "subset").split())
    assert "50.0% (95% CI [" in out and "· subset: 10 of 900 items (subjects Art)" in out
    assert "against human experts" in out and "Not like for like: subset: 10 of 900 items (subjects Art)" in out
    page = (runs / "subset" / "report.html").read_text()
    assert 'id="scope">subset: 10 of 900 items (subjects Art)<' in page
    assert 'id="published-scope"' in page and 'id="experts-scope"' in page
    assert "(this run, subset)" in page

    two = json.loads((runs / "dice" / "results.json").read_text())["scope"]
    assert two["text"] == "subset: 20 of 900 items (the data holds only these)"


def test_the_sample_is_never_set_beside_published_models_or_the_experts(runs, capsys):
    results = json.loads((runs / "sample" / "results.json").read_text())
    assert results["scope"]["kind"] == "sample"
    out = _report(capsys, runs / "sample")
    assert "bundled sample: 40 synthetic items, not the benchmark" in " ".join(out.split())
    assert "human experts" not in out
    page = (runs / "sample" / "report.html").read_text()
    assert 'id="experts"' not in page and "Published accuracies and this run" not in page
    assert "no published figure applies" in page


def test_doctor_names_the_scope_and_refuses_a_void_figure(runs, capsys):
    capsys.readouterr()
    assert main(["doctor", str(runs / "subset"), "--published", "69.1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "95% CI [" in out and "; subset: 10 of 900 items (subjects Art)" in out
    assert "not like for like: this run is on a subset: 10 of 900 items (subjects Art)" in out
    assert main(["doctor", str(runs / "void"), "--published", "40"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no gold answers, no figure to diagnose" in out and "published figure not set beside this run" in out
    assert main(["doctor", str(runs / "sample"), "--published", "69.1"]) == 0
    assert "the comparison below shows the method only" in " ".join(capsys.readouterr().out.split())
