"""The entry points' keyword arguments are typed (a TypedDict with ``Unpack``), and hide none.

``evaluate(**overrides)`` once popped ``display`` and ``keep_backend`` out of an untyped
``**overrides: Any``; now each keyword an entry point takes is either a named parameter or a
key of ``RunConfigArgs`` / ``SuiteConfigArgs``, whose keys are held to the config dataclasses
here, and a name that is neither is refused, named.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Sequence
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval import ConfigError, RunConfig, RunConfigArgs, SuiteConfig, SuiteConfigArgs
from mmmu_eval.run.resolve import Unpack
from mmmu_eval.suite.suite_config import _PER_RUN, plan_suite

#: Keys that take a friendlier form than their RunConfig field (lists, "2/8", str paths, model objects).
LENIENT = {"model", "subjects", "ids", "base_urls", "parsers", "shard", "out", "answers", "sample_audit"}

#: entry point -> (its TypedDict, its named keyword-only parameters)
ENTRY_POINTS = {
    mmmu_eval.evaluate: (RunConfigArgs, {"display", "log_to"}),
    mmmu_eval.evaluate_async: (RunConfigArgs, {"display", "keep_backend", "log_to"}),
    mmmu_eval.plan_run: (RunConfigArgs, set()),
    mmmu_eval.evaluate_suite: (SuiteConfigArgs, {"display", "bootstrap", "bootstrap_seed", "log_to"}),
    mmmu_eval.evaluate_suite_async: (SuiteConfigArgs, {"display", "bootstrap", "bootstrap_seed", "log_to"}),
    plan_suite: (SuiteConfigArgs, set()),
}


def test_run_config_args_are_the_run_config_fields_with_their_types():
    fields = {f.name for f in dataclasses.fields(RunConfig)}
    assert set(RunConfigArgs.__annotations__) == set(typing.get_type_hints(RunConfigArgs)) == fields
    config_hints, arg_hints = typing.get_type_hints(RunConfig), typing.get_type_hints(RunConfigArgs)
    for name in fields - LENIENT:
        assert arg_hints[name] == config_hints[name], name
    for name in LENIENT:  # the friendlier form still takes the field's own value
        taken = set(typing.get_args(arg_hints[name])) or {arg_hints[name]}
        for kind in set(typing.get_args(config_hints[name])) or {config_hints[name]}:
            assert kind in taken or (typing.get_origin(kind) is tuple and Sequence[str] in taken), (name, kind)


def test_suite_config_args_are_the_shared_run_fields_and_the_suite_fields():
    run = {f.name for f in dataclasses.fields(RunConfig)} - set(_PER_RUN)
    suite = {f.name for f in dataclasses.fields(SuiteConfig)} - {"run"}
    assert set(typing.get_type_hints(SuiteConfigArgs)) == run | suite


@pytest.mark.parametrize("function", list(ENTRY_POINTS), ids=lambda f: f.__name__)
def test_named_arguments_are_keyword_only_and_the_rest_is_unpacked(function):
    typed, named = ENTRY_POINTS[function]
    parameters = inspect.signature(function).parameters
    assert {n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY} == named
    assert [p.kind for p in parameters.values()][0] is inspect.Parameter.POSITIONAL_ONLY  # the config
    hints = typing.get_type_hints(function)
    assert typing.get_origin(hints["overrides"]) is Unpack and typing.get_args(hints["overrides"]) == (typed,)
    assert not set(named) & set(typing.get_type_hints(typed))  # no name is both


@pytest.mark.parametrize(("call", "name", "hint"), [
    (lambda: mmmu_eval.evaluate(model="random", dispaly=None), "dispaly", "display"),
    (lambda: mmmu_eval.plan_run(model="random", data="sample", lmit=3), "lmit", "limit"),
    (lambda: mmmu_eval.evaluate_suite(model="random", bootstrp=0), "bootstrp", "bootstrap"),
    (lambda: mmmu_eval.evaluate_suite(model="random", keep_backend=True), "keep_backend", None),
])
def test_a_wrong_keyword_is_refused_naming_it(call, name, hint, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=f"unknown (run|suite) setting '{name}'") as caught:
        call()
    assert (f"did you mean {hint}?" in str(caught.value)) if hint else "did you mean" not in str(caught.value)
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_a_path_may_be_given_as_a_string():
    from mmmu_eval.run.resolve import resolve_config

    config, _ = resolve_config(None, {"model": "random", "sample": 5, "sample_audit": "audit.json", "out": "runs/x",
                                      "answers": "answers.json"})
    assert (config.sample_audit, config.out, config.answers) == (Path("audit.json"), Path("runs/x"), Path("answers.json"))


def test_plan_run_takes_the_same_keywords_as_evaluate(tmp_path):
    out = tmp_path / "run"
    by_keywords = mmmu_eval.plan_run(model="openai:m", benchmark="mmmu-pro", data="sample", limit=3, out=str(out))
    by_config = mmmu_eval.plan_run(RunConfig(model="openai:m", benchmark="mmmu-pro", data="sample", limit=3, out=Path(out)))
    assert by_keywords == by_config and by_keywords.items == 3
    changed = mmmu_eval.plan_run(RunConfig(model="openai:m", data="sample", out=out), limit=2)
    assert changed.items == 2
