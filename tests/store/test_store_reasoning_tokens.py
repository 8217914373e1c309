"""``reasoning_tokens`` in responses.jsonl: stored, checked, and absent from older lines."""

from __future__ import annotations

import json

import pytest

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore, response_from_json, response_to_json


def test_reasoning_tokens_survive_the_round_trip(tmp_path):
    manifest = {"config": {"model": "m", "benchmark": "mmmu", "split": "dev", "setting": None},
                "protocol": {"fingerprint": "f" * 64}}
    store = RunStore.open(tmp_path / "run", manifest, resume=False)
    response = Response("dev_Art_1", "ok", text="A", prompt_tokens=10, completion_tokens=300, reasoning_tokens=290)
    store.append(response)
    store.close()
    assert RunStore.read(tmp_path / "run").responses()["dev_Art_1"] == response
    assert response_to_json(response)["reasoning_tokens"] == 290


def test_a_line_written_before_reasoning_tokens_existed_still_loads(tmp_path):
    old = {"item_id": "dev_Art_1", "status": "ok", "text": "A", "reasoning": None, "finish_reason": "stop",
           "prompt_tokens": 10, "completion_tokens": 2, "latency_s": 0.5, "attempts": 1, "error": None, "notes": []}
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"config": {"model": "m"}}))
    (run / "responses.jsonl").write_text(json.dumps(old) + "\n")
    loaded = RunStore.read(run).responses()["dev_Art_1"]
    assert loaded.reasoning_tokens is None and loaded.completion_tokens == 2


@pytest.mark.parametrize("value", [-1, 2.5, "10", True])
def test_a_bad_reasoning_token_count_names_the_line(value):
    with pytest.raises(StoreError, match=r"^responses.jsonl line 3: reasoning_tokens must be a whole number from 0 to \d+ or null"):
        response_from_json({"item_id": "x", "status": "ok", "reasoning_tokens": value}, "responses.jsonl line 3")
