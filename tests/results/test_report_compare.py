"""Paired comparison of two runs, with expected values worked out from the fixture."""

from math import comb

import pytest
from rich.console import Console

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Response
from mmmu_eval.rendering.comparison_terminal import print_comparison
from mmmu_eval.results.comparison import compare_runs
from mmmu_eval.results.results_json import build_results

#: Run B's answers. Against run A (conftest.TEXTS): A alone right on Art_1 and Math_3, B alone
#: right on Art_2, Art_3 and Math_2, both right on Math_1; Physics_1 fails in B, Physics_2 only in A.
TEXTS_B = {
    "validation_Art_1": "(B)",
    "validation_Art_2": "(C)",
    "validation_Art_3": "(B)",
    "validation_Math_1": "(C)",
    "validation_Math_2": "(A)",
    "validation_Math_3": "7",
    "validation_Physics_2": "(B)",
}


@pytest.fixture
def run_a(scoring, items, manifest, responses):
    return build_results(scoring, items, manifest, bootstrap=0, responses=responses)


@pytest.fixture
def run_b(items, manifest, build):
    responses = {i: Response(i, "ok", text=t) for i, t in TEXTS_B.items()}
    responses["validation_Physics_1"] = Response("validation_Physics_1", "error", error="timeout")
    return build_results(build.score(items, responses), items, manifest, bootstrap=0, responses=responses)


def _fake(verdicts: dict[str, bool], *, fingerprint="f" * 64, revision="r1") -> dict:
    return {
        "benchmark": "mmmu",
        "setting": None,
        "run": {"protocol_fingerprint": fingerprint, "dataset_revision": revision, "dataset_digest": "d"},
        "verdicts": {i: {"subject": "Art", "pred": "A", "correct": ok, "fallback": False} for i, ok in verdicts.items()},
    }


def test_compare_pairs_the_shared_items(run_a, run_b):
    c = compare_runs(run_a, run_b, label_a="a", label_b="b", resamples=200)
    assert (c.shared, c.only_a, c.only_b) == (6, 1, 1)
    assert (c.acc_a, c.acc_b) == (pytest.approx(3 / 6), pytest.approx(4 / 6))
    assert c.difference == pytest.approx((3 - 4) / 6)
    assert (c.a_only_right, c.b_only_right) == (2, 3)
    assert c.p_value == pytest.approx(min(1.0, 2 * sum(comb(5, k) for k in range(3)) / 2**5))
    low, high = c.ci95
    assert low <= c.difference <= high
    assert [(f.id, f.a_correct) for f in c.flips] == [
        ("validation_Art_1", True),
        ("validation_Art_2", False),
        ("validation_Art_3", False),
        ("validation_Math_2", False),
        ("validation_Math_3", True),
    ]
    assert c.flips[0].pred_a == "A" and c.flips[0].pred_b == "B"
    art = c.by_discipline["Art and Design"]
    assert (art.n, art.acc_a, art.acc_b) == (3, pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert list(c.by_discipline) == ["Art and Design", "Science"]
    assert c.by_discipline["Science"].difference == pytest.approx(0.0)
    assert c.warnings == ()


def test_mcnemar_of_a_comparison_matches_the_hand_value():
    """b=1 (only A right), c=9 (only B right): p = 2 * (1 + 10) / 1024."""
    a = _fake({f"validation_Art_{k}": k == 0 for k in range(10)})
    b = _fake({f"validation_Art_{k}": k != 0 for k in range(10)})
    c = compare_runs(a, b, resamples=0)
    assert (c.a_only_right, c.b_only_right) == (1, 9)
    assert c.p_value == pytest.approx(22 / 1024)


def test_identical_runs_differ_by_nothing(run_a):
    c = compare_runs(run_a, run_a)
    assert c.difference == 0.0 and c.ci95 == (0.0, 0.0) and c.p_value == 1.0 and c.flips == ()


def test_different_protocols_are_refused_unless_allowed():
    a, b = _fake({"x_Art_1": True}), _fake({"x_Art_1": False}, fingerprint="e" * 64)
    with pytest.raises(ConfigError, match="different protocols .*--allow-different-protocols"):
        compare_runs(a, b)
    c = compare_runs(a, b, allow_different_protocols=True)
    assert any("different protocols" in w for w in c.warnings)


def test_different_dataset_revisions_only_warn():
    c = compare_runs(_fake({"x_Art_1": True}), _fake({"x_Art_1": True}, revision="r2"))
    assert c.warnings == ("different dataset revisions: r1 vs r2; the same ids may hold different questions or answers",)


def test_comparison_json_and_print(run_a, run_b):
    c = compare_runs(run_a, run_b, resamples=100)
    data = c.to_json()
    assert data["mcnemar_p"] == c.p_value and len(data["flips"]) == 5 and data["flips"][0]["right"] == "a"
    console = Console(record=True, width=120, color_system=None)
    print_comparison(c, console, max_flips=2)
    out = console.export_text()
    assert "on 6 shared items (1 only in A, 1 only in B, left out)" in out
    assert "difference -16.7 points" in out
    assert "2 items only A got right, 3 only B; p = 1" in out
    assert "validation_Art_2" in out and "validation_Math_3" not in out and "… and 3 more" in out
