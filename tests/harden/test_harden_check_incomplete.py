"""Issue 17, item 5: augment's check is incomplete while its trials lack answers.

With most check trials refused (HTTP 400, final), the step said "complete" and showed an
accuracy over the few that answered. Now it is incomplete, names the trial runs that lack
answers, shows no accuracy for their models, and the same command again finishes it.
"""

from __future__ import annotations

import json

from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer, write_jsonl_set

from mmmu_eval.harden import AugmentSettings, CheckSettings, FilterSettings, harden_augment
from mmmu_eval.harden.harden_report import render_report_html

ROWS = [
    {"id": f"test_Biology_{n}", "question": f"apple {n}: which organ pumps blood?",
     "options": ["heart", "lung", "liver", "skin"], "answer": "A"}
    for n in range(1, 6)
]


def not_the_probe(body: dict) -> bool:
    return "Reply with one letter." not in json.dumps(body)


def test_a_check_whose_trials_are_refused_is_incomplete_until_they_answer(tmp_path):
    data = write_jsonl_set(tmp_path / "set", ROWS)
    out = tmp_path / "hard"
    with FaultServer(fault_rate=0.0, answer=Proposer({"apple": "good"})) as proposer, \
            FaultServer(fault_rate=0.0, refuse=not_the_probe) as refusing:
        checking = CheckSettings(models=f"openai:fake-model@{refusing.url}", trials=2)
        first = harden_augment(data, out, AugmentSettings(model="openai:fake-model", base_urls=[proposer.url], check=checking))
    check = first.record.step("augment")["check"]
    assert first.status == "incomplete" and first.exit_status == 1
    assert check["status"] == "incomplete" and check["failed_trials"] == 2 * len(ROWS)
    assert check["accuracy"] == {"m1-openai-fake-model": None}, "no accuracy over part of the trials"
    assert check["lacking"] == ["m1-openai-fake-model trial-01: 5 failed, 0 not asked",
                                "m1-openai-fake-model trial-02: 5 failed, 0 not asked"]
    assert any("the check is incomplete" in m and "trial-02" in m for m in first.messages)
    page = render_report_html(first.record)
    assert "2 check runs lack answers" in page

    with FaultServer(fault_rate=0.0, answer=Proposer({"apple": "good"})) as proposer, \
            FaultServer(fault_rate=0.0) as answering:
        checking = CheckSettings(models=f"openai:fake-model@{answering.url}", trials=2)
        again = harden_augment(data, out, AugmentSettings(model="openai:fake-model", base_urls=[proposer.url], check=checking))
        asked = answering.received
    check = again.record.step("augment")["check"]
    assert again.status == "complete" and check["status"] == "complete" and check["lacking"] == []
    assert isinstance(check["accuracy"]["m1-openai-fake-model"], float)
    assert asked == 2 + 2 * len(ROWS), "a probe per trial run with items left, then exactly the refused trials"


def test_a_filter_whose_trials_are_refused_is_incomplete_and_names_them(tmp_path):
    from mmmu_eval.harden import harden_filter

    data = write_jsonl_set(tmp_path / "set", ROWS)
    out = tmp_path / "hard"
    with FaultServer(fault_rate=0.0, refuse=not_the_probe) as refusing:
        first = harden_filter(data, out, FilterSettings(models=f"frequent,openai:fake-model@{refusing.url}", trials=1, per_subject=0))
    step = first.record.step("filter")
    assert first.status == step["status"] == "incomplete"
    assert step["lacking"] == ["m2-openai-fake-model trial-01: 5 failed, 0 not asked"]
    assert step["accuracy"]["m2-openai-fake-model"] == {"original": None, "filtered": None}
    assert step["accuracy"]["m1-frequent"]["original"] is not None, "a model whose trials all answered keeps its figure"
    with FaultServer(fault_rate=0.0) as answering:
        again = harden_filter(data, out, FilterSettings(models=f"frequent,openai:fake-model@{answering.url}", trials=1, per_subject=0))
    assert again.status == "complete" and again.record.step("filter")["lacking"] == []
