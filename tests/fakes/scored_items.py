"""Report fixtures: a handful of Items made directly, their responses, and a scoring of them."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import pytest
from PIL import Image

from mmmu_eval.dataset.subjects import discipline_of
from mmmu_eval.core.records import ImageRef, Item, Response
from mmmu_eval.scoring.scorer import score_responses


def png_bytes(color: tuple[int, int, int] = (200, 40, 40), size: tuple[int, int] = (48, 32)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def mc_item(item_id: str, answer: str, n_options: int = 4, *, question: str = "Which one? <image 1>",
            img_type: tuple[str, ...] = ("Diagrams",), difficulty: str = "Easy", images: int = 1) -> Item:
    subject = "_".join(item_id.split("_")[1:-1])
    return Item(
        id=item_id,
        benchmark="mmmu",
        split=item_id.split("_")[0],
        setting=None,
        subject=subject,
        discipline=discipline_of(subject),
        question=question,
        options=tuple(f"option {i}" for i in range(n_options)),
        answer=answer,
        question_type="multiple-choice",
        images=tuple(ImageRef.from_bytes(f"image_{k + 1}", png_bytes((40 * k, 90, 160))) for k in range(images)),
        img_type=img_type,
        topic_difficulty=difficulty,
    )


def open_item(item_id: str, answer: str | tuple[str, ...]) -> Item:
    subject = "_".join(item_id.split("_")[1:-1])
    return Item(
        id=item_id,
        benchmark="mmmu",
        split=item_id.split("_")[0],
        setting=None,
        subject=subject,
        discipline=discipline_of(subject),
        question="How many? <image 1>",
        options=(),
        answer=answer,
        question_type="open",
        images=(ImageRef.from_bytes("image_1", png_bytes()),),
        img_type=("Tables",),
        topic_difficulty="Hard",
    )


#: id -> response text; the official parser reads letters in parentheses and numbers.
TEXTS: dict[str, str] = {
    "validation_Art_1": "(A)",
    "validation_Art_2": "The answer is (B).",
    "validation_Art_3": "I cannot tell.",  # nothing parses: random fallback
    "validation_Math_1": "(C)",
    "validation_Math_2": "(D)",
    "validation_Math_3": "The value is 42",
    "validation_Physics_1": "(A)",
    "validation_Physics_2": "boom",  # stored as an error
    # validation_Physics_3 has no response at all
}


@pytest.fixture
def items() -> tuple[Item, ...]:
    return (
        mc_item("validation_Art_1", "A"),
        mc_item("validation_Art_2", "C", img_type=("Paintings",)),
        mc_item("validation_Art_3", "B", difficulty="Medium"),
        mc_item("validation_Math_1", "C", 5, images=2, question="<image 1> and <image 2>: which?"),
        mc_item("validation_Math_2", "A"),
        open_item("validation_Math_3", "42"),
        mc_item("validation_Physics_1", "A"),
        mc_item("validation_Physics_2", "B"),
        mc_item("validation_Physics_3", "D"),
    )


@pytest.fixture
def responses() -> dict[str, Response]:
    out = {}
    for item_id, text in TEXTS.items():
        if text == "boom":
            out[item_id] = Response(item_id, "error", error="server gave up after 6 attempts")
        else:
            status = "truncated" if item_id == "validation_Math_2" else "ok"
            out[item_id] = Response(item_id, status, text=text, finish_reason="stop")
    return out


@pytest.fixture
def manifest() -> dict:
    return {
        "config": {"model": "random", "benchmark": "mmmu", "split": "validation", "prompt": "direct"},
        "protocol": {"fingerprint": "f" * 64, "official": True, "mode": "direct"},
        "dataset": {"revision": "bundled-1", "digest": "d" * 64},
        "package_version": "0.1.0",
    }


def score(items: Sequence[Item], responses: Mapping[str, Response], **kwargs):
    """The real scorer (official parser, seed-42 fallback unless told otherwise)."""
    return score_responses(items, responses, **kwargs)


@pytest.fixture
def scoring(items, responses):
    return score(items, responses)


@pytest.fixture
def build():
    """The builders, for tests that make their own items: ``build.mc_item``, ``build.score``."""

    class Builders:
        mc_item = staticmethod(mc_item)
        open_item = staticmethod(open_item)
        score = staticmethod(score)

    return Builders
