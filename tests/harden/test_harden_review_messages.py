"""What ``augment --apply`` says: what happened to each question (kept, changed, dropped, decision
refused), and a text-only check left from before the review is marked stale, in the console,
harden.json and report.html, until a check measures the reviewed set."""

from __future__ import annotations

import json

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer
from mmmu_eval.cli.main import main
from mmmu_eval.harden import AugmentSettings, FilterSettings, harden_augment, harden_filter
from mmmu_eval.harden.review import DECISIONS_FORMAT


@pytest.fixture
def augmented(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=1, per_subject=0), display=quiet)
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        result = harden_augment(out, out, AugmentSettings(model="openai:fake-model", base_urls=[server.url]), display=quiet)
    assert "stale" not in result.record.step("augment")["check"]
    return out


def write_decisions(out, path):
    rows = [json.loads(line) for line in (out / "review.jsonl").read_text().splitlines()]
    keep, edit, drop, stale = rows[0], rows[1], rows[2], rows[3]
    path.write_text(json.dumps({"format": DECISIONS_FORMAT, "decisions": {
        keep["id"]: {"action": "accept", "shown": keep["options"]},
        edit["id"]: {"action": "edit", "shown": edit["options"], "distractors": [f"fresh {k}" for k in range(6)]},
        drop["id"]: {"action": "drop", "shown": drop["options"], "note": "needs no image"},
        stale["id"]: {"action": "accept", "shown": ["not", "the", "options"]},
    }}))
    return keep["id"], edit["id"], drop["id"], stale["id"]


def test_apply_says_what_happened_to_each_question_and_marks_the_old_check_stale(augmented, tmp_path, capsys):
    keep, edit, drop, refused = write_decisions(augmented, tmp_path / "decisions.json")
    status = main(["harden", "augment", "--data", str(augmented), "--out", str(augmented),
                   "--apply", str(tmp_path / "decisions.json"), "--no-check"])
    printed = capsys.readouterr()
    assert status == 1, "a refused decision is a problem of the decisions file"
    err = " ".join(printed.err.split())
    assert ("review decisions.json: 1 accepted (kept as they are), 1 edited (their new options replaced, placed by the "
            "same seeded shuffle), 1 dropped (removed from both standard configs), 1 refused (those questions stay as they were)") in err
    assert f"edited: {edit}" in err and f"dropped: {drop}" in err
    assert f"refused decision {refused}: its options changed since the review; review it again: decision refused, " \
           "the question stays as it was" in err
    assert "left out" not in err, "no question was left out"
    out = " ".join(printed.out.split())
    assert "augment: complete, nothing left out; 1 review decision(s) refused (those questions stay as they were)" in out
    assert "(stale)" in out and "stale: the check its accuracy was measured" in out
    assert "the text-only check is stale" in err

    record = json.loads((augmented / "harden.json").read_text())
    assert "before its latest change" in record["steps"]["augment"]["check"]["stale"]
    assert record["items"][refused]["augment"]["review"]["state"] == "unreviewed"
    html = (augmented / "report.html").read_text()
    assert "after augmenting (10 options) (stale)" in html and "<b>Stale:</b>" in html
    assert "Review decisions refused (the questions stay as they were) (1)" in html and "<h2>Left out" not in html

    status = main(["harden", "augment", "--data", str(augmented), "--out", str(augmented), "--apply", str(tmp_path / "decisions.json")])
    printed = capsys.readouterr()
    record = json.loads((augmented / "harden.json").read_text())
    assert "stale" not in record["steps"]["augment"]["check"], "a check of the reviewed set is not stale"
    assert "(stale)" not in printed.out and "(stale)" not in (augmented / "report.html").read_text()
