"""Small hand-made items and responses, and the fidelity folder: the fixtures of the scoring, harnesses and commands tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import required

from mmmu_eval.dataset.subjects import discipline_of
from mmmu_eval.core.records import Item, Response

#: The official-repo responses used by the parity tests (see its README).
FIDELITY = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity"


def _make_item(
    item_id: str,
    answer: str | tuple[str, ...] | None,
    options: tuple[str, ...] = ("Paris", "London", "Berlin", "Madrid"),
    *,
    benchmark: str = "mmmu",
    setting: str | None = None,
    img_type: tuple[str, ...] = (),
    difficulty: str | None = None,
) -> Item:
    """An item with the given id (``validation_Art_3``); no options makes it an open question."""
    split, rest = item_id.split("_", 1)
    subject = rest.rsplit("_", 1)[0]
    return Item(
        id=item_id,
        benchmark=benchmark,  # type: ignore[arg-type]
        split=split,
        setting=setting,  # type: ignore[arg-type]
        subject=subject,
        discipline=discipline_of(subject),
        question="q",
        options=options,
        answer=answer,
        question_type="multiple-choice" if options else "open",
        images=(),
        img_type=img_type,
        topic_difficulty=difficulty,
    )


def _response(item_id: str, text: str, status: str = "ok") -> Response:
    """A response with the given text."""
    return Response(item_id=item_id, status=status, text=text)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def fidelity() -> Path:
    """The fidelity folder; a skip that says why when it is missing (a failure under CI)."""
    return required.path(FIDELITY, "the parity tests need the official responses in ../shared/fidelity")


@pytest.fixture
def make_item():
    """Factory: ``make_item("validation_Art_1", "A", options=(...))``."""
    return _make_item


@pytest.fixture
def response():
    """Factory: ``response("validation_Art_1", "The answer is (B)", status="ok")``."""
    return _response


# Hypothesis tests cannot take function-scoped fixtures; these session-scoped twins hold no state.
@pytest.fixture(scope="session")
def make_item_factory():
    return _make_item


@pytest.fixture(scope="session")
def response_factory():
    return _response
