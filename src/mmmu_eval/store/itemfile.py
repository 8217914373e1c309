"""``items.jsonl``: the items of a run whose items came from a file, not from a dataset.

A run directory normally names its dataset (source, revision, digest) and its items are loaded
from there again. A rescore of the official repository's output files builds its items from the
file's rows (their options and gold answers are what the official scorer used), and no dataset
holds exactly those; so the run directory keeps them, one JSON object a line, without images.

>>> item = Item("validation_Art_1", "mmmu", "validation", None, "Art", "Art and Design", "Which style?",
...             ("Baroque", "Gothic"), "A", "multiple-choice", ())   # as built from an official row
>>> item_from_json(item_to_json(item), "items.jsonl:1") == item
True
"""

from __future__ import annotations

from typing import Any

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Item

#: The file's name in a run directory.
ITEMS = "items.jsonl"
_TEXT = ("id", "benchmark", "split", "subject", "discipline", "question", "question_type")


def item_to_json(item: Item) -> dict[str, Any]:
    """An item as a JSON object (images are not kept: such items have none)."""
    return {
        "id": item.id, "benchmark": item.benchmark, "split": item.split, "setting": item.setting,
        "subject": item.subject, "discipline": item.discipline, "question": item.question,
        "options": list(item.options), "answer": list(item.answer) if isinstance(item.answer, tuple) else item.answer,
        "question_type": item.question_type, "img_type": list(item.img_type),
        "topic_difficulty": item.topic_difficulty, "notes": list(item.notes),
    }


def item_from_json(row: Any, where: str) -> Item:
    """The item a line of items.jsonl holds.

    Raises:
        StoreError: the line is not such an object (named by ``where``).
    """
    if not isinstance(row, dict) or any(not isinstance(row.get(k), str) for k in _TEXT):
        raise StoreError(f"{where}: not an item (needs {', '.join(_TEXT)} as text); restore the file or rescore again")
    answer = row.get("answer")
    return Item(
        id=row["id"], benchmark=row["benchmark"], split=row["split"], setting=row.get("setting"),
        subject=row["subject"], discipline=row["discipline"], question=row["question"],
        # An option may be a nested list in a malformed official row; it is kept as it was.
        options=tuple(tuple(o) if isinstance(o, list) else o for o in row.get("options") or ()),
        answer=tuple(answer) if isinstance(answer, list) else answer,
        question_type=row["question_type"], images=(), img_type=tuple(row.get("img_type") or ()),
        topic_difficulty=row.get("topic_difficulty"), notes=tuple(row.get("notes") or ()),
    )
