"""Items for prompt tests, built directly (no dataset loader): images are tiny in-memory bytes."""

from __future__ import annotations

from typing import Sequence

import pytest

from mmmu_eval.core.records import ImageRef, Item


def image(number: int | str) -> ImageRef:
    """An in-memory image for field ``image_N`` (or ``image`` for vision); its bytes name it."""
    name = number if isinstance(number, str) else f"image_{number}"
    return ImageRef.from_bytes(name, f"bytes of {name}".encode())


def make_item(
    question: str = "What is the price?",
    options: Sequence[str] = ("$6", "$7", "$8", "$9"),
    *,
    item_id: str = "validation_Economics_1",
    benchmark: str = "mmmu",
    setting: str | None = None,
    question_type: str | None = None,
    images: Sequence[int | str] = (1,),
) -> Item:
    """An item with just the fields prompts read; MC when it has options, open otherwise."""
    return Item(
        id=item_id,
        benchmark=benchmark,  # type: ignore[arg-type]
        split="test" if benchmark == "mmmu-pro" else item_id.split("_", 1)[0],
        setting=setting,  # type: ignore[arg-type]
        subject="Economics",
        discipline="Business",
        question=question,
        options=tuple(options),
        answer="A" if options else "42",
        question_type=question_type or ("multiple-choice" if options else "open"),  # type: ignore[arg-type]
        images=tuple(image(n) for n in images),
    )


@pytest.fixture
def item_factory():
    return make_item
