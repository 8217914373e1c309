"""vf-eval outputs of verifiers environments, hand-written in both layouts, on the sample (MMMU-Pro vision).

mmmu-eval's environments reward ``\\boxed{X}`` (``boxed_correct``) and carry our id in
``info["id"]``. The official MMMU-Pro parser finds no letter in a bare ``\\boxed{D}`` (no
``Answer:``, no ``"D "``, ``"D."`` or bracket, too short for the content pass), so it draws:
the first draw of random.Random(42) over 10 letters is B.
"""

from __future__ import annotations

import json
import random

from fakes.harness_outputs import write_json, write_jsonl

from mmmu_eval.harnesses.read import rescore


def _info(item_id):
    return {"id": item_id, "benchmark": "mmmu-pro", "split": "test", "setting": "vision",
            "subject": item_id.split("_", 1)[1].rsplit("_", 1)[0], "question_type": "multiple-choice"}


def _episode(item_id, reply, reward, *, errors=()):
    nodes = [{"message": {"role": "user", "content": [{"type": "text", "text": "Solve the question in the image."},
                                                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
              "sampled": False}]
    if reply is not None:
        nodes.append({"parent": 0, "message": {"role": "assistant", "content": reply}, "sampled": True})
    data = {"idx": 0, "id": item_id, "name": item_id, "prompt": [nodes[0]["message"]], "answer": "D", "info": _info(item_id)}
    trace = {"version": 1, "task": {"type": "ItemTask", "data": data, "key": item_id},
             "agent": {"config": {"model": "fake-model"}}, "nodes": nodes, "calls": [],
             "rewards": {"boxed_correct": {"score": reward, "weight": 1.0}}, "metrics": {"boxed_found": 1.0},
             "info": {}, "is_completed": not errors, "ok": not errors, "errors": list(errors)}
    return {"id": "e" + item_id, "env": {"id": "mmmu-pro"}, "task": trace["task"], "ok": not errors,
            "errors": list(errors), "traces": [trace]}


EPISODES = [
    _episode("test_Accounting_3", "\\boxed{D}", 1.0),                         # gold D; official draws B
    _episode("validation_Biology_4", "Counting gives five.\nAnswer: A\n\\boxed{A}", 1.0),
    _episode("test_Art_7", None, 0.0, errors=[{"type": "APIError", "message": "502 Bad Gateway"}]),
    _episode("test_Chemistry_11", "I pick F as the answer; \\boxed{E}", 0.0),  # gold F: "F " is official's letter
    _episode("test_Accounting_3", "\\boxed{A}", 0.0),                         # a second rollout: not scored
]


def test_v1_traces_of_our_environment(tmp_path):
    run = tmp_path / "out" / "mmmu-pro--fake-model--mmmu-pro--1234"
    write_jsonl(run / "traces.jsonl", EPISODES)
    result = rescore(run, data="sample")
    assert result.format == "verifiers" and result.detected == "a folder with traces.jsonl"
    assert result.dataset.setting == "vision" and result.source.model == "fake-model"
    verdicts = result.scoring.verdicts["official"]
    assert verdicts["test_Accounting_3"].pred == random.Random(42).choice(list("ABCDEFGHIJ")) == "B"
    assert {i: v.correct for i, v in verdicts.items()} == {
        "test_Accounting_3": False, "validation_Biology_4": True, "test_Chemistry_11": True}
    assert result.scoring.errors == ("test_Art_7",)
    assert {d.id: d.cause for d in result.explanation.differences} == {
        "test_Accounting_3": "fallback", "test_Art_7": "error", "test_Chemistry_11": "letter"}
    chemistry = next(d for d in result.explanation.differences if d.id == "test_Chemistry_11")
    assert (chemistry.harness_pred, chemistry.official_pred) == ("E", "F")
    assert any("1 further rollout" in n for n in result.notes)
    # reward >= 1 on Accounting_3 and Biology_4: 2 of 4
    assert (result.explanation.harness_correct, result.explanation.graded) == (2, 4)
    assert "<image>" in result.prompts["test_Accounting_3"]


def test_legacy_results_with_metadata(tmp_path):
    rows = [
        {"example_id": 0, "prompt": [{"role": "user", "content": "q"}],
         "completion": [{"role": "assistant", "content": "Answer: D"}], "answer": "D",
         "info": json.dumps(_info("test_Accounting_3")), "reward": 1.0, "boxed_correct": 1.0},
        {"example_id": 4, "prompt": [{"role": "user", "content": "q"}],
         "completion": [{"role": "assistant", "content": "Answer: B"}], "answer": "A", "reward": 0.0},
    ]
    folder = tmp_path / "evals" / "mmmu-pro--m" / "abc"
    write_jsonl(folder / "results.jsonl", rows)
    write_json(folder / "metadata.json", {"env_id": "mmmu-pro", "model": "m", "num_examples": 2, "avg_reward": 0.5})
    result = rescore(folder / "results.jsonl", data="sample", setting="vision", benchmark="mmmu-pro")
    assert "results.jsonl" in result.detected
    # example_id 4 (no info.id) is the 0-based position: validation_Biology_4 (gold A)
    assert [it.id for it in result.items] == ["test_Accounting_3", "validation_Biology_4"]
    assert result.explanation.recorded.accuracy == 0.5 and result.source.model == "m"
    assert result.explanation.differences == ()


def test_a_real_vf_eval_run_of_our_environment(tmp_path):
    """vf-eval (verifiers 0.4) runs mmmu-eval's mmmu-pro environment against the fake server, which
    answers every item "The answer is (D).\\n\\boxed{C}": the environment rewards the box (C), the
    official parser takes the bracket (D). In the sample's 24 vision items the gold is D four times
    (test_Accounting_3, test_Economics_8, validation_Manage_3, validation_Math_2) and C three times
    (test_Art_Theory_2, test_Mechanical_Engineering_9, test_Sociology_30): 7 differences, each a letter."""
    from fakes import required
    from fakes.fault_server import FaultServer

    required.module("verifiers.v1", "needs the verifiers extra (pip install 'mmmu-eval[verifiers]')")
    from fakes.verifiers_eval import vf_eval

    with FaultServer(fault_rate=0.0, answer=lambda body: "The answer is (D).\n\\boxed{C}") as server:
        run = vf_eval("mmmu-pro", server.url, tmp_path, mode="vision", data="sample")
    # The official parser beside the harness (by default the boxed one heads: the prompt asks for a box).
    result = rescore(run.run_dir, data="sample", parsers=("official",))
    assert result.format == "verifiers" and result.dataset.setting == "vision"
    assert len(result.items) == 24 and result.unjoined == () and result.problems == ()
    assert sorted(i for i, v in result.scoring.verdicts["official"].items() if v.correct) == [
        "test_Accounting_3", "test_Economics_8", "validation_Manage_3", "validation_Math_2"]
    explanation = result.explanation
    assert (explanation.official_correct, explanation.harness_correct, explanation.graded) == (4, 3, 24)
    assert len(explanation.differences) == 7 and {d.cause for d in explanation.differences} == {"letter"}
    assert {(d.harness_pred, d.official_pred) for d in explanation.differences} == {("C", "D")}
