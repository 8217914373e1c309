"""Scripted answers with verdicts worked out by hand, for the verifiers environment tests.

The fake server answers each item with one of TABLE's templates, picked by the item's place in
the examples and filled with its gold letter ``G`` and another letter ``W``. Each template's
three verdicts (boxed_correct, official_correct, boxed_found) are written beside it, read off
the parsers' rules by hand, so a test compares what verifiers reports with this table, not with
the function the environment itself calls:

- ``\\boxed{G}``: the box holds the gold; the official parser finds no ``(G)``, ``G `` or
  ``G.`` in so short an answer (no option-text pass under 6 words), so it falls back: 0;
- ``The answer is (G).``: no box; the official parser reads ``(G)``;
- ``\\boxed{G} no, \\boxed{W}``: the last box counts, and it is wrong; official finds nothing;
- ``No idea.``: nothing anywhere;
- ``(W) or \\boxed{G}``: the box is right, the official parser reads ``(W)``;
- ``The answer is (W).``: wrong, no box.

An open MMMU question is answered ``\\boxed{<gold text>}``: its box holds the gold (1, 1 found;
its official verdict is not asserted).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

TABLE = (
    ("\\boxed{{{G}}}", (1.0, 0.0, 1.0)),
    ("The answer is ({G}).", (0.0, 1.0, 0.0)),
    ("\\boxed{{{G}}} no, \\boxed{{{W}}}", (0.0, 0.0, 1.0)),
    ("No idea.", (0.0, 0.0, 0.0)),
    ("({W}) or \\boxed{{{G}}}", (1.0, 0.0, 1.0)),
    ("The answer is ({W}).", (0.0, 0.0, 0.0)),
)


def request_key(messages: Iterable[dict]) -> str:
    """What identifies an item's request: its texts and image URLs in order (roles aside)."""
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for part in content or []:
            parts.append(part.get("text") or (part.get("image_url") or {}).get("url") or "")
    return json.dumps(parts)


class HandAnswers:
    """The server's answer function over a list of examples, and each item's expected verdicts."""

    def __init__(self, examples: list[dict]) -> None:
        self.by_key: dict[str, tuple[str, tuple[float, float, float] | None]] = {}
        self.expected: dict[str, tuple[float, float, float] | None] = {}
        for index, example in enumerate(examples):
            info = example["info"]
            if info["question_type"] == "open":
                gold = info["answers"][0]
                text, verdicts = f"\\boxed{{{gold}}}", None
            else:
                letters = [chr(ord("A") + i) for i in range(len(info["options"]))]
                gold = example["answer"]
                other = letters[(letters.index(gold) + 1) % len(letters)]
                template, verdicts = TABLE[index % len(TABLE)]
                text = template.format(G=gold, W=other)
            self.by_key[request_key(example["prompt"])] = (text, verdicts)
            self.expected[example["id"]] = verdicts

    def __call__(self, body: dict) -> str:
        key = request_key(body["messages"])
        if key not in self.by_key:
            return "unknown request: the test's examples do not hold it"
        return self.by_key[key][0]

    def means(self) -> tuple[float, float, float]:
        """The three means over the multiple-choice items, from the table."""
        rows = [v for v in self.expected.values() if v is not None]
        return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))  # type: ignore[return-value]
