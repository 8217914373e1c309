"""Inspect logs (.eval archives and .json) of inspect_evals' MMMU tasks, hand-written, on the sample.

inspect_evals gives its MMMU samples no id, so Inspect numbers them from 1 among the task's
question type: of the sample's 40 validation items 26 are multiple choice (14 open); sample 1 is
validation_Accounting_2, 2 is validation_Accounting_3, 5 is validation_Art_4; open sample 1 is
validation_Accounting_1 and 3 is validation_Art_3.
"""

from __future__ import annotations

import json

import pytest
from fakes.harness_outputs import write_eval_zip, write_json

from mmmu_eval.core.errors import DataError
from mmmu_eval.harnesses.read import rescore


def _spec(task):
    return {"task": task, "task_id": "t1", "created": "2025-01-01T00:00:00+00:00", "model": "openai/gpt-4o",
            "dataset": {"name": "MMMU", "location": "MMMU/MMMU", "samples": 3}, "config": {}}


def _sample(sample_id, completion, value=None, answer=None, scorer="choice", target="A", **extra):
    sample = {"id": sample_id, "epoch": 1, "input": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
              "target": target, "messages": [],
              "output": {"model": "gpt-4o", "choices": [{"message": {"role": "assistant", "content": completion},
                                                         "stop_reason": "stop"}], "completion": completion}}
    if value is not None:
        sample["scores"] = {scorer: {"value": value, "answer": answer, "explanation": completion}}
    sample.update(extra)
    return sample


HEADER = {"version": 2, "status": "success", "eval": _spec("inspect_evals/mmmu_multiple_choice"),
          "results": {"total_samples": 4, "completed_samples": 4,
                      "scores": [{"name": "choice", "scorer": "choice", "scored_samples": 3,
                                  "metrics": {"accuracy": {"name": "accuracy", "value": 2 / 3}}}]}}
SAMPLES = [
    _sample(1, "ANSWER: B", "C", "B", target="B"),
    # Inspect took the ANSWER line's C; the official parser takes " A " (the last spaced letter): right
    _sample(2, "ANSWER: C\n\nbecause A is wrong", "I", "C", target="A"),
    _sample(5, "attachment://3f2a", "C", "B", target="B", attachments={"3f2a": "ANSWER: B"}),
    {"id": 13, "epoch": 1, "input": "q", "target": "B", "error": {"message": "RateLimitError: 429", "traceback": ""}},
    _sample(999, "ANSWER: A", "I", "A"),
    _sample(1, "ANSWER: D", "I", "D", target="B", epoch=2),
]


def test_eval_archive_numbered_samples(tmp_path):
    result = rescore(write_eval_zip(tmp_path / "2025-01-01_mmmu.eval", HEADER, SAMPLES), data="sample")
    assert result.format == "inspect" and result.source.task == "inspect_evals/mmmu_multiple_choice"
    verdicts = result.scoring.verdicts["official"]
    assert {i: (v.pred, v.correct) for i, v in verdicts.items()} == {
        "validation_Accounting_2": ("B", True), "validation_Accounting_3": ("A", True), "validation_Art_4": ("B", True)}
    assert result.scoring.errors == ("validation_Economics_3",)
    assert any("sample 999 is outside 1..26" in u for u in result.unjoined)
    assert any("later epochs" in n for n in result.notes)
    difference, = result.explanation.differences
    assert (difference.id, difference.cause, difference.harness_pred) == ("validation_Accounting_3", "letter", "C")
    assert result.explanation.recorded.accuracy == pytest.approx(2 / 3)
    assert result.source.model == "openai/gpt-4o"


def test_json_log_of_the_open_task_is_judged(tmp_path):
    log = {"version": 2, "status": "success", "eval": _spec("mmmu_open"), "results": {"scores": []},
           "samples": [_sample(1, "116", "C", scorer="model_graded_fact", target="116"),
                       _sample(3, "A three-sided shape", "C", scorer="model_graded_fact", target="triangle")]}
    result = rescore(write_json(tmp_path / "log.json", log), data="sample")
    assert "EvalLog" in result.detected
    assert [it.id for it in result.items] == ["validation_Accounting_1", "validation_Art_3"]
    difference, = result.explanation.differences
    assert (difference.id, difference.cause) == ("validation_Art_3", "judge")
    assert result.explanation.recorded is None


def test_unfinished_archive_has_only_the_journal(tmp_path):
    path = write_eval_zip(tmp_path / "running.eval", None, SAMPLES[:1], start={"version": 2, "eval": HEADER["eval"]})
    result = rescore(path, data="sample")
    assert any("did not finish" in n for n in result.notes)
    assert result.explanation.recorded is None


def test_truncated_archive_is_one_clear_error(tmp_path):
    whole = write_eval_zip(tmp_path / "whole.eval", HEADER, SAMPLES).read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match="not a complete .eval archive"):
        rescore(cut, format="inspect", data="sample")


def test_a_corrupt_sample_member_is_named(tmp_path):
    path = write_eval_zip(tmp_path / "x.eval", HEADER, SAMPLES[:2])
    import zipfile

    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("samples/7_epoch_1.json", "{not json")
    result = rescore(path, data="sample")
    assert any("samples/7_epoch_1.json: not valid JSON" in p for p in result.problems)
    assert len(result.items) == 2 and json.dumps(result.to_json())
