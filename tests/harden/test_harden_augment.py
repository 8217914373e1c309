"""augment against a scripted OpenAI-compatible server: good, duplicate, short and malformed replies.

Each question carries a word the fake proposer (``fakes.mc_set.Proposer``) keys its reply on.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from fakes.fault_server import FaultServer, request_key
from fakes.mc_set import Proposer, write_jsonl_set
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden import AugmentSettings, harden_apply, harden_augment
from mmmu_eval.harden.review import DECISIONS_FORMAT
from mmmu_eval.harden.source import read_source
from mmmu_eval.prompt.distractors import distractor_prompt

ROWS = [
    {"id": "test_Biology_1", "question": "apple: which organ pumps blood? <image 1>", "options": ["heart", "lung", "liver", "skin"], "answer": "A", "image_1": "auto"},
    {"id": "test_Biology_2", "question": "banana: which gas do plants absorb?", "options": ["oxygen", "carbon dioxide", "helium", "neon"], "answer": "B"},
    {"id": "test_Biology_3", "question": "cherry: how many legs has an insect?", "options": ["4", "6", "8", "10"], "answer": "B"},
    {"id": "test_Biology_4", "question": "damson: what do bees make?", "options": ["honey", "silk", "wax paper", "milk"], "answer": "A"},
    {"id": "test_Biology_5", "question": "elder: which are mammals?", "options": ["whales", "bats", "Both A and B", "None of the above"], "answer": "C"},
    {"id": "test_Biology_6", "question": "fig: which picture shows a cell?", "options": ["<image 1>", "<image 2>"], "answer": "A", "image_1": "auto", "image_2": "auto"},
    {"id": "test_Biology_7", "question": "grape: pick the tenth letter", "options": list("abcdefghij"), "answer": "J"},
]
SCRIPT = {"apple": "good", "banana": "duplicate-then-good", "cherry": "short", "damson": "malformed"}


@pytest.fixture
def augmented(tmp_path):
    data = write_jsonl_set(tmp_path / "set", ROWS)
    proposer = Proposer(SCRIPT)
    with FaultServer(fault_rate=0.0, answer=proposer) as server:
        result = harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url], attempts=3))
    return result, proposer, tmp_path / "hard"


def test_good_and_retried_replies_become_ten_shuffled_options_with_the_answer_following(augmented):
    result, proposer, out = augmented
    entries = {i: e["augment"] for i, e in result.record.items.items()}
    good = entries["test_Biology_1"]
    assert good["status"] == "augmented" and len(good["options"]) == 10 and len(good["distractors"]) == 6
    assert good["options"][ord(good["answer"]) - 65] == "heart"
    assert good["options"] != ["heart", "lung", "liver", "skin", *good["distractors"]], "shuffled"
    retried = entries["test_Biology_2"]
    assert retried["status"] == "augmented" and len(retried["attempts"]) == 2
    assert "duplicates option A" in retried["attempts"][0]["error"]
    assert proposer.asked["banana"] == 2 and proposer.asked["apple"] == 1
    ten = {it.id: it for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items}
    assert ten["test_Biology_1"].options == tuple(good["options"]) and ten["test_Biology_1"].answer == good["answer"]
    assert ten["test_Biology_1"].images[0].load()
    # The proposal run says how it ended, as an evaluation does (it stayed "running"): every
    # item asked settled (the image-option and ten-option questions need none), the two whose
    # three attempts all failed the checks included.
    manifest = json.loads((out / "runs" / "augment" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["ended_at"]
    assert manifest["counts"] == {"items": 5, "ok": 3, "unusable": 2}, manifest["counts"]


def test_short_and_malformed_replies_are_retried_then_reported_never_padded(augmented):
    result, proposer, out = augmented
    assert proposer.asked["cherry"] == 3 and proposer.asked["damson"] == 3
    problems = {p.where: p for p in result.problems}
    assert "no usable distractors after 3 attempt(s), not padded" in problems["test_Biology_3"].problem
    assert "holds no list" in problems["test_Biology_4"].problem
    assert result.exit_status == 1
    ten = {it.id for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items}
    assert "test_Biology_3" not in ten and "test_Biology_4" not in ten
    four = {it.id for it in load_benchmark("mmmu-pro", setting="standard-4", data=out).items}
    assert len(four) == 7, "the 4-option config keeps every question"


def test_position_dependent_image_and_full_questions_are_kept_meaningful(augmented):
    result, _, out = augmented
    entries = {i: e["augment"] for i, e in result.record.items.items()}
    both = entries["test_Biology_5"]
    assert both["options"][:3] == ["whales", "bats", "Both A and B"] and both["options"][-1] == "None of the above"
    assert both["answer"] == "C" and both["held"]
    assert entries["test_Biology_6"]["status"] == "unchanged" and "images" in entries["test_Biology_6"]["flag"]
    assert entries["test_Biology_7"]["status"] == "unchanged" and entries["test_Biology_7"]["note"] == "already has 10 options"
    assert result.record.step("augment")["counts"]["flagged"] == 1


def test_the_result_is_unreviewed_until_decisions_are_applied(augmented, tmp_path):
    result, _, out = augmented
    assert result.record.step("augment")["review"] == "unreviewed"
    assert result.record.data["configs"]["standard (10 options)"]["review"] == "unreviewed"
    assert any("unreviewed" in m for m in result.messages)
    rows = [json.loads(line) for line in (out / "review.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"test_Biology_{k}" for k in (1, 2, 5, 6, 7)]
    html = (out / "review.html").read_text()
    assert "Download decisions" in html and "data:image/png;base64," in html and "http" not in html.split("<script>")[-1]

    first = next(r for r in rows if r["id"] == "test_Biology_1")
    decisions = {
        "format": DECISIONS_FORMAT,
        "decisions": {
            "test_Biology_1": {"action": "edit", "shown": first["options"], "distractors": [f"organ {k}" for k in range(6)], "note": "clearer"},
            "test_Biology_2": {"action": "drop", "note": "the text gives it away"},
            "test_Biology_5": {"action": "accept"},
            "test_Biology_6": {"action": "edit", "distractors": ["x"]},
            "test_Biology_7": {"action": "accept", "shown": ["stale"]},
            "test_Biology_99": {"action": "accept"},
        },
    }
    file = tmp_path / "decisions.json"
    file.write_text(json.dumps(decisions))
    applied = harden_apply(out, out, file)
    entries = {i: e["augment"] for i, e in applied.record.items.items()}
    assert entries["test_Biology_1"]["review"] == {"state": "edited", "note": "clearer"}
    assert sorted(entries["test_Biology_1"]["distractors"]) == [f"organ {k}" for k in range(6)]
    assert entries["test_Biology_1"]["options"][ord(entries["test_Biology_1"]["answer"]) - 65] == "heart"
    assert entries["test_Biology_5"]["review"]["state"] == "accepted"
    refused = {p.where: p.problem for p in applied.problems if p.step == "review"}
    assert "no new options to edit" in refused["test_Biology_6"]
    assert "options changed since the review" in refused["test_Biology_7"]
    assert "not a question of this augment output" in refused["test_Biology_99"]
    ten = {it.id: it for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items}
    four = {it.id for it in load_benchmark("mmmu-pro", setting="standard-4", data=out).items}
    assert "test_Biology_2" not in ten and "test_Biology_2" not in four, "dropped from both configs"
    assert "organ 0" in ten["test_Biology_1"].options
    assert applied.record.step("augment")["review"].startswith("partly reviewed")


def test_an_edit_that_breaks_the_rules_is_refused_for_that_question(augmented, tmp_path):
    _, _, out = augmented
    file = tmp_path / "d.json"
    file.write_text(json.dumps({"format": DECISIONS_FORMAT, "decisions": {
        "test_Biology_1": {"action": "edit", "distractors": ["HEART", "a", "b", "c", "d", "e"]}}}))
    applied = harden_apply(out, tmp_path / "copy", file)
    problem = next(p for p in applied.problems if p.where == "test_Biology_1")
    assert "duplicates option A" in problem.problem
    assert applied.record.items["test_Biology_1"]["augment"]["review"]["state"] == "unreviewed"
    assert (tmp_path / "copy" / "standard (4 options)").is_dir(), "a new --out gets the whole dataset"


def test_a_decisions_file_of_another_shape_is_refused(augmented, tmp_path):
    _, _, out = augmented
    file = tmp_path / "d.json"
    file.write_text(json.dumps({"decisions": {}}))
    with pytest.raises(ConfigError, match="not a decisions file"):
        harden_apply(out, out, file)
    file.write_text(json.dumps({"format": DECISIONS_FORMAT, "decisions": {"x": {"action": "keep"}}}))
    with pytest.raises(ConfigError, match="x: the action must be one of accept, edit, drop"):
        harden_apply(out, out, file)


def test_running_augment_again_asks_only_what_has_no_usable_reply(augmented, tmp_path):
    """The rerun rebuilds each stored reply's options with the same seeded shuffle: the same
    options, in the same order, as the first run wrote (read before the rerun rewrites them)."""
    first, _, out = augmented
    before = {i: e["augment"].get("options") for i, e in first.record.items.items()}
    shown_before = [json.loads(line)["options"] for line in (out / "review.jsonl").read_text().splitlines()]
    assert before["test_Biology_1"] != ROWS[0]["options"] + [f"apple decoy {k}" for k in range(1, 7)], "the options are shuffled"
    proposer = Proposer(SCRIPT)
    with FaultServer(fault_rate=0.0, answer=proposer) as server:
        again = harden_augment(tmp_path / "set" / "data.jsonl", out, AugmentSettings(model="openai:fake-model", base_urls=[server.url], attempts=4))
    assert dict(proposer.asked) == {"cherry": 1, "damson": 1}, "only the fourth attempt of the two failures"
    after = {i: e["augment"].get("options") for i, e in again.record.items.items()}
    assert after == before, "a rerun must place every stored reply's options exactly as the first run did"
    assert [json.loads(line)["options"] for line in (out / "review.jsonl").read_text().splitlines()] == shown_before


def test_requests_that_fail_after_their_retries_are_errors_asked_again_next_time(tmp_path):
    data = write_jsonl_set(tmp_path / "set", ROWS[:1])
    prompt = distractor_prompt(read_source(data).items[0], 6)
    key = request_key({"messages": [{"role": "user", "content": prompt}]})
    with FaultServer(fault_rate=0.0, answer=Proposer({}), always_fail=frozenset({key})) as server:
        failed = harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url]), run_settings={"max_attempts": 2})
    assert failed.exit_status == 1
    assert "failed after its retries" in failed.problems[0].problem
    manifest = json.loads((tmp_path / "hard" / "runs" / "augment" / "manifest.json").read_text())
    assert manifest["status"] == "incomplete" and manifest["counts"] == {"items": 1, "error": 1}
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        fixed = harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
    assert fixed.exit_status == 0 and fixed.record.items["test_Biology_1"]["augment"]["status"] == "augmented"
    assert json.loads((tmp_path / "hard" / "runs" / "augment" / "manifest.json").read_text())["status"] == "complete"


@pytest.mark.parametrize(("stop", "status"), [(RuntimeError("the disk is full"), "failed"), (KeyboardInterrupt(), "interrupted")])
def test_a_step_stopped_by_an_exception_says_so_and_the_same_command_resumes(tmp_path, monkeypatch, stop, status):
    # Before, harden.json's augment section and the proposal run's manifest kept "running"
    # after the step raised: nothing told a dead step from one still at work.
    import mmmu_eval.harden.augment as augment_step

    data = write_jsonl_set(tmp_path / "set", ROWS[:2])
    ask = augment_step.propose

    async def propose_then_stop(*args, **kwargs):
        await ask(*args, **kwargs)  # the answers are stored, then the step dies
        raise stop

    monkeypatch.setattr(augment_step, "propose", propose_then_stop)
    settings = AugmentSettings(model="openai:fake-model", attempts=3)
    with FaultServer(fault_rate=0.0, answer=Proposer(SCRIPT)) as server, pytest.raises(type(stop)):
        harden_augment(data, tmp_path / "hard", dataclasses.replace(settings, base_urls=[server.url]))
    section = json.loads((tmp_path / "hard" / "harden.json").read_text())["steps"]["augment"]
    assert section["status"] == status and section["ended_at"]
    manifest = json.loads((tmp_path / "hard" / "runs" / "augment" / "manifest.json").read_text())
    assert manifest["status"] == status
    if status == "failed":
        assert section["failure"] == {"type": "RuntimeError", "message": "the disk is full"} == manifest["failure"]

    monkeypatch.setattr(augment_step, "propose", ask)
    proposer = Proposer(SCRIPT)
    with FaultServer(fault_rate=0.0, answer=proposer) as server:
        again = harden_augment(data, tmp_path / "hard", dataclasses.replace(settings, base_urls=[server.url]))
    assert not proposer.asked, "every answer was stored before the step stopped"
    assert again.exit_status == 0 and again.record.step("augment")["status"] == "complete"
    assert "failure" not in again.record.step("augment")
