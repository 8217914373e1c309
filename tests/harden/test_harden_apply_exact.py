"""Applying review decisions changes only what was decided: every image of every question that
stays is, byte for byte, the image it had before the review, in place or into a new directory.

The in-place case once rewrote the 4-option file while the items read from it still pointed at
its old row positions, so a question after a dropped one got its neighbour's image.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import Proposer, write_jsonl_set
from fakes.parquet_rows import png
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.harden import AugmentSettings, harden_apply, harden_augment
from mmmu_eval.harden.review import DECISIONS_FORMAT

#: Questions with one to three images each, every image a colour of its own, so a question that
#: read its neighbour's row would get an image whose hash differs. 40 questions fill three row
#: groups of three image columns: more than the loader keeps cached (``CACHE_SIZE``), so the
#: images are read from the file again after the first ones were written.
COUNT = 40
DROP, EDIT = "test_Art_2", "test_Art_4"


def rows(folder):
    (folder / "img").mkdir(parents=True)
    out = []
    for n in range(1, COUNT + 1):
        images = {}
        for k in range(1, 2 + n % 3):
            (folder / "img" / f"{n}_{k}.png").write_bytes(png((6 * n, 80 * k, 255 - 6 * n), (24, 16)))
            images[f"image_{k}"] = f"img/{n}_{k}.png"
        question = f"q{n}: compare " + " and ".join(f"<image {k}>" for k in range(1, len(images) + 1))
        out.append({"id": f"test_Art_{n}", "question": question, "options": [f"opt {n}{x}" for x in "abcd"],
                    "answer": "ABCD"[n % 4], **images})
    return out


def image_hashes(root, setting):
    return {it.id: [(ref.field, hashlib.sha256(ref.load()).hexdigest()) for ref in it.images]
            for it in load_benchmark("mmmu-pro", setting=setting, data=root).items}


@pytest.fixture
def augmented(tmp_path):
    data = write_jsonl_set(tmp_path / "set", rows(tmp_path / "set"))
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        harden_augment(data, tmp_path / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
    return tmp_path / "hard"


def decisions_file(out, path):
    rows = {r["id"]: r for r in map(json.loads, (out / "review.jsonl").read_text().splitlines())}
    edited = [f"reviewed option {k}" for k in range(len(rows[EDIT]["distractors"]))]
    decisions = {i: {"action": "accept", "shown": r["options"], "note": ""} for i, r in rows.items()}
    decisions[DROP] = {"action": "drop", "shown": rows[DROP]["options"], "note": "image not needed"}
    decisions[EDIT] = {"action": "edit", "shown": rows[EDIT]["options"], "distractors": edited, "note": "clearer"}
    path.write_text(json.dumps({"format": DECISIONS_FORMAT, "digest": "", "decisions": decisions}))
    return path, edited


@pytest.mark.parametrize("where", ["in place", "into a new directory"])
def test_applying_a_drop_an_edit_and_accepts_keeps_every_other_image_byte_for_byte(augmented, tmp_path, where):
    before4, before10 = image_hashes(augmented, "standard-4"), image_hashes(augmented, "standard-10")
    images = sum(len(v) for v in before4.values())
    assert len(before4) == COUNT and images == 80 and len({h for v in before4.values() for _, h in v}) == images
    file, edited = decisions_file(augmented, tmp_path / "decisions.json")
    source = tmp_path / "copy"
    shutil.copytree(augmented, source)
    out = source if where == "in place" else tmp_path / "reviewed"

    applied = harden_apply(source, out, file)

    assert applied.exit_status == 0, applied.problems
    expected = {i: h for i, h in before4.items() if i != DROP}
    assert image_hashes(out, "standard-4") == expected
    assert image_hashes(out, "standard-10") == {i: h for i, h in before10.items() if i != DROP}
    ten = {it.id: it for it in load_benchmark("mmmu-pro", setting="standard-10", data=out).items}
    assert sorted(set(edited) & set(ten[EDIT].options)) == sorted(edited)
    untouched = load_benchmark("mmmu-pro", setting="standard-10", data=augmented).items
    for item in untouched:
        if item.id not in (DROP, EDIT):
            assert ten[item.id].options == item.options and ten[item.id].answer == item.answer, item.id
    entries = {i: e["augment"] for i, e in applied.record.items.items()}
    assert entries[DROP]["review"] == {"state": "dropped", "note": "image not needed"}
    assert entries[EDIT]["review"]["state"] == "edited"
    assert not [p.name for p in out.rglob("*.tmp")], "nothing is left beside the files it replaced"


def test_applying_twice_in_place_changes_nothing_more(augmented, tmp_path):
    file, _ = decisions_file(augmented, tmp_path / "decisions.json")
    harden_apply(augmented, augmented, file)
    once = image_hashes(augmented, "standard-4"), image_hashes(augmented, "standard-10")
    again = harden_apply(augmented, augmented, file)
    assert (image_hashes(augmented, "standard-4"), image_hashes(augmented, "standard-10")) == once
    assert again.record.step("augment")["review"] == "reviewed"
