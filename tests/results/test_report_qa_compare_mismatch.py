"""`compare` of runs that cannot be paired: refused with a message that says why."""

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.results.comparison import compare_runs


def _results(benchmark, split, setting, ids, fingerprint="f" * 64):
    return {
        "benchmark": benchmark,
        "split": split,
        "setting": setting,
        "run": {"protocol_fingerprint": fingerprint, "dataset_revision": "r", "dataset_digest": "d"},
        "verdicts": {i: {"subject": "Art", "pred": "A", "correct": True, "fallback": False} for i in ids},
    }


def test_runs_of_different_benchmarks_are_refused_naming_the_benchmarks():
    """MMMU vs MMMU-Pro was refused only as "different protocols (prompt fingerprint ...)", and with
    --allow-different-protocols it paired the ids MMMU-Pro reuses from MMMU, different questions."""
    mmmu = _results("mmmu", "validation", None, ["validation_Art_1"], fingerprint="a" * 64)
    pro = _results("mmmu-pro", "test", "standard-10", ["validation_Art_1"], fingerprint="b" * 64)
    with pytest.raises(ConfigError) as caught:
        compare_runs(mmmu, pro, label_a="runs/a", label_b="runs/b")
    assert str(caught.value).startswith(
        "runs/a is mmmu validation but runs/b is mmmu-pro standard-10, so their items are not the same questions"
    )
    allowed = compare_runs(mmmu, pro, label_a="runs/a", label_b="runs/b", allow_different_protocols=True)
    assert allowed.warnings[0].startswith("runs/a is mmmu validation but runs/b is mmmu-pro standard-10")


def test_runs_with_no_item_in_common_are_refused():
    """A dev run against a validation run printed "0 shared items ... difference +0.0, p = 1"."""
    dev = _results("mmmu", "dev", None, ["dev_Art_1"])
    val = _results("mmmu", "dev", None, ["validation_Art_1"])
    with pytest.raises(ConfigError, match=r"^runs/a and runs/b have no scored item in common \(1 and 1 scored items\)"):
        compare_runs(dev, val, label_a="runs/a", label_b="runs/b")
