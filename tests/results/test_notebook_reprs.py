"""The records a notebook cell ends with say who they are: one short repr line with the headline
and its scope, and a small escaped HTML table (``results/notebook_view.py``, ``doctor/diagnosis_view.py``).

``Comparison`` printed a 1,600-character line (every flip), ``RunResult`` a raw float without
its scope, and none had an ``_repr_html_``.
"""

from __future__ import annotations

import re

import pytest

import mmmu_eval


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    where = tmp_path_factory.mktemp("reprs")
    a = mmmu_eval.evaluate(benchmark="mmmu-pro", setting="vision", data="sample", model="random",
                           out=str(where / "run<b>a"), display=None)
    b = mmmu_eval.evaluate(benchmark="mmmu-pro", setting="vision", data="sample", model="frequent",
                           out=str(where / "b"), display=None)
    suite = mmmu_eval.evaluate_suite(model="frequent", data="sample", out=str(where / "suite"), mmmu=False,
                                     prompts=["direct"])
    return a, b, suite


def _records(sample_runs):
    a, b, suite = sample_runs
    return {"RunResult": a, "Comparison": mmmu_eval.compare(a.run_dir, b.run_dir),
            "Diagnosis": mmmu_eval.diagnose(a.run_dir, published=58.6), "SuiteResult": suite,
            "SuiteDiagnosis": mmmu_eval.diagnose(suite.suite_dir)}


def test_each_record_s_repr_is_one_short_line_that_names_it(sample_runs):
    for name, record in _records(sample_runs).items():
        text = repr(record)
        assert text.startswith(f"{name}(") and "\n" not in text and len(text) <= 240, (name, len(text), text)


def test_the_reprs_give_the_headline_with_its_scope(sample_runs):
    records = _records(sample_runs)
    sample = "bundled sample: 24 synthetic items"
    assert re.fullmatch(rf"RunResult\(.*run<b>a: \d+\.\d% \(\d+ of 24\), {sample}, not the benchmark; "
                        r"24 items: 24 ok, 0 truncated, 0 errors, 0 missing\)", repr(records["RunResult"]))
    assert re.fullmatch(r"Comparison\(.* vs .*: [+-]\d+\.\d points \[.*\] on 24 shared items, McNemar p=.*, \d+ flips\)",
                        repr(records["Comparison"]))
    assert "published 58.6" in repr(records["Diagnosis"]) and sample in repr(records["SuiteResult"])


def test_each_record_has_a_small_html_table_with_outside_text_escaped(sample_runs):
    for name, record in _records(sample_runs).items():
        page = record._repr_html_()
        assert f"<strong>{name if name != 'SuiteDiagnosis' else 'Diagnosis'}</strong>" in page and "<table>" in page
        assert len(page) < 20_000
        assert "run<b>a" not in page  # the directory's name is text, not a tag
    assert "run&lt;b&gt;a" in _records(sample_runs)["RunResult"]._repr_html_()
    suite_page = _records(sample_runs)["SuiteResult"]._repr_html_()
    assert "Table 1: overall" in suite_page and "bundled sample" in suite_page
