"""Issue 17, item 7: the better of direct and CoT is read over the same items, or refused.

After ``suite --limit 5 --prompts direct`` and then ``suite --prompts cot`` into the same
directory, the standard-4 cell took CoT over 24 items against direct over 5, said "complete".
"""

from __future__ import annotations

from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet


def test_runs_over_different_items_give_no_better_of_two_and_say_which_differ(tmp_path, served):
    common = dict(model="openai:fake-model", base_urls=[served.url], data="sample", out=tmp_path / "s",
                  display=quiet(), concurrency=8, bootstrap=50, mmmu=False)
    evaluate_suite(prompts=("direct",), limit=5, **common)
    result = evaluate_suite(prompts=("cot",), **common)
    t = result.table1
    assert t["standard_4"] is None and t["standard_10"] is None and t["vision"] is None
    reason = t["reasons"]["standard_4"]
    assert "standard-4-direct and standard-4-cot scored different items (5 and 24" in reason
    assert "19 only in standard-4-cot" in reason and "only in standard-4-direct" not in reason
    assert result.summary["status"] == "incomplete" and t["mismatched"] == ["standard_10", "standard_4", "vision"]
    assert result.exit_status == 1 and "scored different items" in result.message
    effect = result.summary["cot_effect"]["standard_4"]
    assert effect["shared"] == 5 and effect["complete"] is False and "different items" in effect["note"]


def test_runs_over_the_same_items_still_give_the_better_of_two(tmp_path, served):
    result = evaluate_suite(model="openai:fake-model", base_urls=[served.url], data="sample", out=tmp_path / "s",
                            display=quiet(), concurrency=8, bootstrap=50, mmmu=False, limit=5)
    assert result.table1["standard_4"]["n"] == 5 and "standard_4" not in result.table1["reasons"]
    assert result.summary["cot_effect"]["standard_4"]["complete"] is True
