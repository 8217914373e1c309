"""Fixtures for the audit tests: the paper-era MMMU-Pro outputs, audited once per session, and
hand-made runs for the rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import required

from mmmu_eval.auditing.sources import Answer, RunAnswers
from mmmu_eval.core.records import Item, letters

#: The official repository's paper-era outputs (commit e3be682), unconverted.
PRO_2024 = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity" / "mmmu-pro-2024"


def response_files(folder: Path) -> list[Path]:
    """The 27 response sets (mix_data.jsonl is the build data, not a run)."""
    return sorted(p for p in folder.glob("*.jsonl") if p.name != "mix_data.jsonl")


@pytest.fixture(scope="session")
def pro_2024() -> Path:
    return required.path(PRO_2024, "the audit's validation reads the paper-era outputs in ../shared/fidelity")


@pytest.fixture(scope="session")
def paper_audit(pro_2024):
    """The audit of all 27 paper-era response sets, as ``mmmu_eval.audit`` makes it."""
    from mmmu_eval import audit

    return audit(response_files(pro_2024))


def make_item(item_id: str, options: tuple[str, ...], gold: str, *, question: str = "q", setting: str = "standard-10",
              images: int = 0) -> Item:
    return Item(id=item_id, benchmark="mmmu-pro", split=item_id.split("_")[0], setting=setting,  # type: ignore[arg-type]
                subject="Art", discipline="Art and Design", question=question, options=options, answer=gold,
                question_type="multiple-choice", images=())


def make_run(name: str, model: str, choices: dict[str, str | None], items: dict[str, Item], *, accuracy: float = 0.5,
             setting: str = "standard-10", revision: str | None = None) -> RunAnswers:
    """A run choosing ``choices[item id]`` (an option letter of that item, or None for a fallback)."""
    answers = {}
    for item_id, letter in choices.items():
        item = items[item_id]
        text = None if letter is None else item.options[letters(len(item.options)).index(letter)]
        answers[item_id] = Answer(choice=text, correct=letter == item.answer, fallback=letter is None)
    return RunAnswers(name=name, path=name, model=model, setting=setting, prompt="direct", revision=revision,
                      kind="run", items={i: items[i] for i in choices}, answers=answers, accuracy=accuracy)
