"""Missing and incomplete runs give null cells with reasons, never a number; a rerun finishes them;
a changed protocol in one run is refused as ``run`` refuses it, naming the run."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from fakes.fault_server import FaultServer
from mmmu_eval.core.errors import StoreError
from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet


def test_settings_left_out_give_null_cells_that_say_what_to_add(tmp_path):
    result = evaluate_suite(model="frequent", data="sample", settings="standard-10", prompts="direct", mmmu=False,
                            out=tmp_path / "s", display=quiet(), bootstrap=50)
    t = result.table1
    assert t["standard_10"]["mode"] == "direct" and t["standard_10"]["percent"] is not None
    for key in ("standard_4", "vision", "overall", "mmmu_val", "delta_1", "delta_2", "delta_3"):
        assert t[key] is None, key
    assert "add standard-4 to --settings" in t["reasons"]["standard_4"]
    assert "--no-mmmu" in t["reasons"]["mmmu_val"]
    assert "Vision" in t["reasons"]["overall"] and "add vision to --settings" in t["reasons"]["overall"]
    assert t["reasons"]["delta_3"].startswith("needs ")
    cot = result.summary["cot_effect"]
    assert cot["standard_10"] is None and "no standard-10 cot run" in cot["reasons"]["standard_10"]
    assert result.summary["ocr_effect"]["vision"] is None and "--ocr" in result.summary["ocr_effect"]["reasons"]["vision"]
    assert result.summary["flips"]["right_4_wrong_10"] is None and result.summary["flips"]["reasons"]["right_4_wrong_10"]
    # Only what was asked for was run; the suite itself is complete.
    assert sorted(result.summary["runs"]) == ["standard-10-direct"] and result.exit_status == 0


def test_an_incomplete_run_gives_a_null_cell_that_counts_what_it_lacks_and_a_rerun_finishes_it(tmp_path, pattern):
    # Two vision-cot items fail on every attempt: the vision cell (best of direct and cot) cannot be known.
    failing = _cot_vision_keys(pattern, [it.id for it in pattern.items[("vision", "cot")]][:2])
    answer = pattern.answer
    out = tmp_path / "s"
    args = dict(model="openai:fake-model", data="sample", out=out, display=quiet(), concurrency=4, bootstrap=50,
                max_attempts=1)
    with FaultServer(fault_rate=0.0, always_fail=frozenset(failing), answer=answer) as server:
        first = evaluate_suite(base_urls=[server.url], **args)
    t = first.table1
    assert t["vision"] is None and t["overall"] is None and t["delta_2"] is None and t["delta_3"] is None
    assert "vision-cot lacks 2 of 24 items (2 failed)" in t["reasons"]["vision"]
    assert t["standard_10"] is not None and t["delta_1"] is not None and t["mmmu_val"] is not None
    assert first.exit_status == 1 and "vision-cot" in first.message()
    assert first.summary["runs"]["vision-cot"]["lacking"] == 2
    # The CoT effect in vision is still computed, on the 22 items both runs scored, and says so.
    effect = first.summary["cot_effect"]["vision"]
    assert effect["shared"] == 22 and effect["complete"] is False and "lacks 2" in effect["note"]

    with FaultServer(fault_rate=0.0, answer=answer) as server:
        second = evaluate_suite(base_urls=[server.url], **args)
        asked = Counter(server.answered)
    assert second.exit_status == 0 and second.table1["reasons"] == {}
    assert sum(asked.values()) == 2 + 1, "the two failed items and one probe, by the one run with items left"
    lines = [json.loads(x) for x in (out / "vision-cot" / "responses.jsonl").read_text().splitlines()]
    ok = Counter(line["item_id"] for line in lines if line["status"] == "ok")
    assert len(ok) == 24 and max(ok.values()) == 1


def _cot_vision_keys(pattern, ids):
    """Server keys of the vision-cot requests of ``ids``, rebuilt as the conftest builds them."""
    from fakes.fault_server import request_key
    from mmmu_eval.backends.openai_api import OpenAIBackend
    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.prompt.protocol import EvalProtocol, build_request

    encoder = OpenAIBackend("fake-model", base_urls=["http://127.0.0.1:9/v1"], api_key="k")
    protocol = EvalProtocol.from_config(RunConfig(model="openai:fake-model", benchmark="mmmu-pro", setting="vision",
                                                  prompt="cot", data="sample"))
    items = {it.id: it for it in pattern.items[("vision", "cot")]}
    return {request_key(json.loads(encoder.encode_body(build_request(items[i], protocol))[0])) for i in ids}


def test_a_changed_protocol_is_refused_naming_the_run_before_anything_is_asked(tmp_path, served):
    args = dict(model="openai:fake-model", base_urls=[served.url], data="sample", out=tmp_path / "s",
                display=quiet(), bootstrap=20)
    evaluate_suite(settings="standard-4", prompts="direct", mmmu=False, **args)
    before = sum(served.stats.values())
    with pytest.raises(StoreError) as refused:
        evaluate_suite(settings="standard-4", prompts="direct", mmmu=False, max_tokens=64, **args)
    message = str(refused.value)
    assert str(tmp_path / "s" / "standard-4-direct") in message and "protocol" in message and "max_tokens" in message
    assert sum(served.stats.values()) == before, "no request (not even a preflight probe) after the refusal"


def test_a_folder_that_is_not_a_suite_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="without a suite.json"):
        evaluate_suite(model="random", data="sample", out=tmp_path, display=quiet())
    run = tmp_path / "run"
    from mmmu_eval.run.pipeline import evaluate
    from mmmu_eval.run.progress import NullDisplay

    evaluate(model="random", data="sample", out=run, display=NullDisplay(), html=False, limit=2)
    with pytest.raises(StoreError, match="is a run directory, not a suite"):
        evaluate_suite(model="random", data="sample", out=run, display=quiet())
