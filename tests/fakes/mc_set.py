"""A small multiple-choice set with answers known in advance, and scripted chat models for it.

``write_mmmu_set(root)`` writes an MMMU-layout snapshot: three subjects, six questions each,
gold letters chosen so that ``A`` is the most frequent (7 of 18): the ``frequent`` baseline
answers A everywhere, so it is right exactly on ``A_IDS``. ``write_jsonl_set(folder)`` writes the
official screenshot tool's ``data.jsonl`` shape with image files beside it.

``KnowsSome`` and ``Proposer`` are ``answer`` functions for ``fakes.fault_server.FaultServer``:
a text-only model that knows the answers of chosen questions, and a distractor proposer whose
reply to each question follows a script (good, duplicate-then-good, short, malformed).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterable

from fakes.parquet_rows import image_cell, mmmu_row, png, write_mmmu

SUBJECTS = ("Art", "Biology", "Math")
COLOURS = ["red", "green", "blue", "grey"]
#: subject -> the gold letters of its six questions.
GOLD = {"Art": "AAABCD", "Biology": "AACDBC", "Math": "AABBCD"}
IDS = [f"validation_{s}_{k}" for s in SUBJECTS for k in range(1, 7)]
ANSWER = {f"validation_{s}_{k + 1}": letter for s in SUBJECTS for k, letter in enumerate(GOLD[s])}
A_IDS = {i for i, a in ANSWER.items() if a == "A"}


def question_of(item_id: str) -> str:
    return f"Question {item_id}: which colour fills the square in <image 1>?"


def write_mmmu_set(root: Path, *, bad_rows: bool = False) -> Path:
    """The 18 questions in MMMU's layout (validation split); ``bad_rows`` adds four unusable rows."""
    for subject in SUBJECTS:
        rows = []
        for k in range(1, 7):
            item_id = f"validation_{subject}_{k}"
            rows.append(mmmu_row(item_id, question=question_of(item_id), options=str(COLOURS), answer=ANSWER[item_id],
                                 image_1=image_cell(png((20 * k, 40, 200)), f"{item_id}_1.png")))
        if bad_rows and subject == "Math":
            rows += [
                mmmu_row("validation_Math_7", answer=""),                      # no answer
                mmmu_row("validation_Math_8", answer="F"),                     # beyond the 4 options
                mmmu_row("validation_Math_9", options="red, green"),           # options that are not a list
                mmmu_row("validation_Math_10", question_type="open", options="[]", answer="12"),  # open: not applicable
            ]
        write_mmmu(root, subject, "validation", rows)
    return root


def write_jsonl_set(folder: Path, rows: Iterable[dict]) -> Path:
    """``folder/data.jsonl``; an ``image_N`` of ``"auto"`` becomes a small PNG written beside it."""
    (folder / "img").mkdir(parents=True, exist_ok=True)
    lines = []
    for n, row in enumerate(rows, start=1):
        row = dict(row)
        for key in [k for k, v in row.items() if k.startswith("image_") and v == "auto"]:
            name = f"img/{n}_{key[6:]}.png"
            (folder / name).write_bytes(png((30 * (n % 8), 40 * int(key[6:]), 90), (60, 40)))
            row[key] = name
        lines.append(json.dumps(row))
    path = folder / "data.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def user_text(body: dict) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return "".join(parts)


class KnowsSome:
    """A text-only model right on the questions in ``knows`` and wrong on every other one."""

    def __init__(self, knows: Iterable[str]) -> None:
        self.knows = set(knows)

    def __call__(self, body: dict) -> str:
        match = re.search(r"Question (\S+):", user_text(body))
        if not match:
            return "A"  # the start-up probe
        item_id = match.group(1)
        gold = ANSWER[item_id]
        return f"Answer: {gold if item_id in self.knows else ('D' if gold != 'D' else 'C')}"


class Proposer:
    """A distractor proposer with a scripted behaviour per question (found by a word in its text).

    ``script``: word -> ``good`` | ``duplicate-then-good`` | ``short`` | ``malformed``; other
    questions get ``good``. ``asked`` counts the requests per word.
    """

    def __init__(self, script: dict[str, str]) -> None:
        self.script = script
        self.asked: Counter[str] = Counter()

    def __call__(self, body: dict) -> str:
        text = user_text(body)
        count = re.search(r"Write (\d+) new wrong", text)
        if not count:
            return "A"  # the start-up probe
        n = int(count.group(1))
        question = re.search(r"Question: (.*)", text).group(1)
        word = next((w for w in self.script if w in question), None)
        self.asked[word or "other"] += 1
        behaviour = self.script.get(word, "good") if word else "good"
        fresh = [f"{(word or 'other')} decoy {k}" for k in range(1, n + 1)]
        existing = re.findall(r"^[A-J]\. (.*)$", text, re.M)
        if behaviour == "duplicate-then-good" and self.asked[word] == 1:
            return json.dumps([f"  {existing[0].upper()}. "] + fresh[1:])
        if behaviour == "short":
            return json.dumps(fresh[: max(0, n - 2)])
        if behaviour == "malformed":
            return "Sure! Here are some options: tinted red, pale blue, and so on."
        return "```json\n" + json.dumps(fresh) + "\n```"
