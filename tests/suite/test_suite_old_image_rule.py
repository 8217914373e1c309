"""A suite directory whose runs were made before the official image rule became the default.

Those runs recorded the rule that appended images no ``<image N>`` token refers to, so their
protocol differs from today's default. The suite refuses them before any run starts, as ``run``
does, and says which flag continues them exactly as they were.
"""

from __future__ import annotations

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet

FLAG = "Add --unreferenced-images append to continue it exactly as it was (marked not official)"


def suite(out, **more):
    return evaluate_suite(model="random", data="sample", settings=("standard-10", "vision"), prompts=("direct",), mmmu=False,
                          limit=2, out=out, display=quiet(), bootstrap=10, **more)


def test_a_suite_of_the_old_image_rule_is_refused_with_the_flag_that_continues_it(tmp_path, capsys):
    out = tmp_path / "suite"
    first = suite(out, unreferenced_images="append")
    assert first.exit_status == 0
    with pytest.raises(StoreError) as refused:
        suite(out)
    message = str(refused.value)
    assert "standard-10-direct" in message and "unreferenced_images" in message
    assert FLAG in message, "the refusal must say how to continue the run as it was"
    # The CLI prints it as one error line and exits 1 (a store error), asking nothing.
    assert main(["suite", "--model", "random", "--data", "sample", "--settings", "standard-10,vision", "--prompts", "direct",
                 "--no-mmmu", "--limit", "2", "--bootstrap", "10", "--out", str(out)]) == 1
    assert FLAG in capsys.readouterr().err
    again = suite(out, unreferenced_images="append")
    assert again.exit_status == 0 and again.summary["status"] == "complete"


def test_a_suite_of_another_protocol_gets_no_image_rule_hint(tmp_path):
    """The hint is for the image rule only: a run refused for another difference does not get it."""
    out = tmp_path / "suite"
    suite(out)
    with pytest.raises(StoreError) as refused:
        suite(out, image_layout="images-first")
    assert "unreferenced-images" not in str(refused.value)
