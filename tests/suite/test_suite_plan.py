"""Which runs a suite makes, from which settings; how it shares the model between them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import AsyncIterator, Sequence

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request, Response
from mmmu_eval.suite.execute import evaluate_suite
from mmmu_eval.suite.suite_config import backend_sharing, resolve_suite_config

from .conftest import quiet


def names(**overrides) -> list[str]:
    config, _ = resolve_suite_config(None, {"model": "random", "data": "sample", "out": "s", **overrides})
    return [run.name for run in config.runs()]


def test_the_default_suite_is_the_papers_seven_runs_in_table1_order():
    assert names() == ["standard-4-direct", "standard-4-cot", "standard-10-direct", "standard-10-cot",
                       "vision-direct", "vision-cot", "mmmu-validation-direct"]


@pytest.mark.parametrize("overrides, expected", [
    ({"prompts": "direct"}, ["standard-4-direct", "standard-10-direct", "vision-direct", "mmmu-validation-direct"]),
    ({"settings": ["vision"], "ocr": True, "mmmu": False}, ["vision-direct", "vision-cot", "vision-ocr"]),
    ({"settings": "vision,standard-10", "prompts": "cot", "mmmu": False}, ["standard-10-cot", "vision-cot"]),
])
def test_settings_prompts_ocr_and_no_mmmu_narrow_or_widen_it(overrides, expected):
    assert names(**overrides) == expected


def test_every_run_gets_the_run_flags_and_its_own_directory():
    config, _ = resolve_suite_config(None, {"model": "openai:m", "data": "sample", "out": "s", "max_tokens": 77,
                                            "base_urls": "http://a/v1,http://b/v1", "limit": 5, "shard": "2/3"})
    for run in config.runs():
        assert run.config.max_tokens == 77 and run.config.limit == 5 and run.config.shard == (2, 3)
        assert run.config.base_urls == ("http://a/v1", "http://b/v1")
        assert run.config.out == Path("s") / run.name
    mmmu = config.runs()[-1].config
    assert mmmu.benchmark == "mmmu" and mmmu.resolved_split == "validation" and mmmu.prompt == "direct"


@pytest.mark.parametrize("overrides, message", [
    ({"settings": "standard-5"}, "--settings 'standard-5' is not one of"),
    ({"prompts": "boxed"}, "--prompts 'boxed' is not one of"),
    ({"settings": "standard-10", "ocr": True}, "--ocr adds vision"),
    ({"setting": "vision"}, "'setting' is decided per run in a suite: use settings="),
    ({"prompt": "cot"}, "'prompt' is decided per run"),
    ({"setings": "vision"}, "did you mean settings?"),
    ({"max_tokens": 0}, "--max-tokens must be at least 1"),
])
def test_bad_suite_settings_are_refused_before_anything_runs(overrides, message):
    with pytest.raises(ConfigError, match=message.replace("?", r"\?").replace("(", r"\(")):
        names(**overrides)


def test_mmmu_data_follows_data_for_hub_and_sample_and_a_snapshot_holding_mmmu(tmp_path):
    def mmmu_source(**overrides):
        config, _ = resolve_suite_config(None, {"model": "random", "out": "s", **overrides})
        return config.runs()[-1].config.data

    assert mmmu_source(data="sample") == "sample"
    assert mmmu_source() == "hub"
    (tmp_path / "both" / "MMMU").mkdir(parents=True)
    assert mmmu_source(data=str(tmp_path / "both")) == str(tmp_path / "both")
    assert mmmu_source(data=str(tmp_path), mmmu_data="sample") == "sample"
    with pytest.raises(ConfigError, match="give the MMMU validation data with --mmmu-data"):
        mmmu_source(data=str(tmp_path / "both" / "MMMU"))
    assert names(data=str(tmp_path), mmmu=False)[-1] == "vision-cot"


def test_default_suite_directory_has_no_time_stamp_so_the_same_command_continues_it():
    config, _ = resolve_suite_config(None, {"model": "openai:Qwen/Qwen2-VL-7B", "data": "sample"})
    assert config.out == Path("suites") / "openai-Qwen-Qwen2-VL-7B-sample"
    config, _ = resolve_suite_config(None, {"model": "openai:gpt-4o"})
    assert config.out == Path("suites") / "openai-gpt-4o"


@pytest.mark.parametrize("spec, sharing", [
    ("openai:gpt-4o", "concurrent"), ("text-only:openai:gpt-4o", "concurrent"),
    ("hf:/models/x", "sequential"), ("vllm:/models/x", "sequential"), ("text-only:hf:/m", "sequential"),
    ("frequent", "per-run"), ("random", "per-run"), ("text-only:frequent", "per-run"),
])
def test_how_each_kind_of_model_is_shared_between_runs(spec, sharing):
    assert backend_sharing(spec) == sharing


class CountingBackend:
    """Records how many generate() calls are open at once, and how often it is closed.

    Each call waits (up to 5 s) until seven are open, so the count does not depend on timing:
    runs asked one after another would each wait and the most open would stay 1."""

    spec = "counting"

    def __init__(self) -> None:
        self.open_calls = self.most_open = self.closed = self.preflights = 0

    async def preflight(self, requests: Sequence[Request]) -> None:
        self.preflights += 1

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        self.open_calls += 1
        self.most_open = max(self.most_open, self.open_calls)
        for _ in range(500):
            if self.most_open >= 7:
                break
            await asyncio.sleep(0.01)
        try:
            for request in requests:
                await asyncio.sleep(0.001)
                yield Response(request.item_id, "ok", text="A")
        finally:
            self.open_calls -= 1

    async def aclose(self) -> None:
        self.closed += 1

    def describe(self) -> dict[str, object]:
        return {"backend": "counting"}


def test_one_backend_object_serves_every_run_at_once_and_is_closed_once(tmp_path):
    backend = CountingBackend()
    result = evaluate_suite(model=backend, data="sample", out=tmp_path / "s", display=quiet(), bootstrap=20, html=False)
    assert result.exit_status == 0 and len(result.runs) == 7
    assert backend.most_open == 7, "the seven runs asked at the same time"
    assert backend.preflights == 7 and backend.closed == 1
