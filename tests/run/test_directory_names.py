"""Run, suite and harden trial directories name a model spec with one rule (run.resolve.slug).

Each wrote the rule itself once; a spec with a slash, a colon, spaces or nothing usable in it
must give the same piece of name in all three, cut where each cuts it (60, 60, 40 characters).
"""

from __future__ import annotations

from mmmu_eval.core.config import RunConfig
from mmmu_eval.harden.trials import parse_models
from mmmu_eval.run.resolve import default_run_name
from mmmu_eval.suite.suite_config import default_suite_name

SPEC = "openai:Qwen/Qwen2.5-VL 72B"
LONG = "openai:" + "x" * 70


def test_one_model_spec_gives_one_name_in_runs_suites_and_trials():
    run = default_run_name(RunConfig(model=SPEC, split="validation"))
    assert run.startswith("mmmu-validation-openai-Qwen-Qwen2.5-VL-72B-"), run
    assert default_suite_name(RunConfig(model=SPEC)) == "openai-Qwen-Qwen2.5-VL-72B"
    assert parse_models(SPEC)[0].label == "m1-openai-Qwen-Qwen2.5-VL-72B"


def test_the_name_is_cut_where_each_user_cuts_it_and_never_empty():
    assert default_suite_name(RunConfig(model=LONG)) == "openai-" + "x" * 53
    assert parse_models(LONG)[0].label == "m1-openai-" + "x" * 33
    assert default_suite_name(RunConfig(model="::", data="sample")) == "model-sample"
    assert default_suite_name(RunConfig(model="random", data="/data/%%")) == "random-data"
    assert parse_models("text-only:???")[0].label == "m1-model"
