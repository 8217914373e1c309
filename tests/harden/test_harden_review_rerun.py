"""The same augment command run again after a review keeps the decisions already applied.

A rerun rebuilds every question's options from the stored proposals with the same seeded
shuffle; where they come out the same, the reviewer's decision on them still holds and must not
fall back to "unreviewed" (which would put a dropped question back in, and ask for a review again).
"""

from __future__ import annotations

import json

from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer, write_jsonl_set
from mmmu_eval.harden import AugmentSettings, harden_apply, harden_augment
from mmmu_eval.harden.review import DECISIONS_FORMAT

ROWS = [
    {"id": "test_Biology_1", "question": "which organ pumps blood?", "options": ["heart", "lung", "liver", "skin"], "answer": "A"},
    {"id": "test_Biology_2", "question": "which gas do plants absorb?", "options": ["oxygen", "carbon dioxide", "helium", "neon"], "answer": "B"},
]


def test_a_rerun_after_the_review_keeps_its_decisions(tmp_path):
    data, out = write_jsonl_set(tmp_path / "set", ROWS), tmp_path / "hard"
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        harden_augment(data, out, AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
    shown = {json.loads(line)["id"]: json.loads(line)["options"] for line in (out / "review.jsonl").read_text().splitlines()}
    decisions = {"format": DECISIONS_FORMAT, "decisions": {
        "test_Biology_1": {"action": "accept", "shown": shown["test_Biology_1"], "note": "fine"},
        "test_Biology_2": {"action": "drop", "shown": shown["test_Biology_2"], "note": "gives it away"},
    }}
    (tmp_path / "decisions.json").write_text(json.dumps(decisions))
    applied = harden_apply(out, out, tmp_path / "decisions.json")
    reviewed = {i: e["augment"]["review"] for i, e in applied.record.items.items()}
    assert reviewed == {"test_Biology_1": {"state": "accepted", "note": "fine"}, "test_Biology_2": {"state": "dropped", "note": "gives it away"}}

    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        again = harden_augment(data, out, AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
        asked = server.stats.get("answered", 0)
    assert asked <= 1, "every proposal was stored: at most the start-up probe is asked"
    entries = {i: e["augment"] for i, e in again.record.items.items()}
    assert {i: e["options"] for i, e in entries.items()} == shown, "the same options, so the decisions still apply"
    assert {i: e["review"] for i, e in entries.items()} == reviewed, "a rerun must keep the decisions already applied"
