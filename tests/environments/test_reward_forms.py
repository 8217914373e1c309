"""docs/guides/environments.md, "What the reward accepts": each row of its table is what
``reward`` gives, read from the page itself, so the guide cannot say a form scores what it does
not (``\\boxed{(D)}`` and ``\\boxed{\\text{D}}`` score 0)."""

from __future__ import annotations

import re
from pathlib import Path

from mmmu_eval.environments import reward

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "environments.md"


def _rows() -> list[tuple[str, float]]:
    section = GUIDE.read_text().split("## What the reward accepts", 1)[1]
    return [(m.group(1), float(m.group(2))) for m in re.finditer(r"^\| `(.+?)` \| (\d\.\d) \|", section, flags=re.M)]


def _example(gold: str = "D") -> dict:
    return {"id": "x", "answer": gold,
            "info": {"id": "test_Art_1", "benchmark": "mmmu-pro", "split": "test", "setting": "standard-10",
                     "subject": "Art", "discipline": "Art and Design", "question_type": "multiple-choice",
                     "options": ["red", "green", "blue", "grey"], "answers": [gold]}}


def test_the_guide_lists_the_forms_the_issue_names():
    forms = dict(_rows())
    assert len(forms) >= 12
    assert forms["\\boxed{D}"] == 1.0 and forms["\\boxed{(D)}"] == 0.0 and forms["\\boxed{\\text{D}}"] == 0.0


def test_every_form_in_the_guide_gets_the_reward_it_states():
    wrong = [(text, said, reward(text, _example())) for text, said in _rows() if reward(text, _example()) != said]
    assert not wrong, f"the guide's table says otherwise than reward(): {wrong}"
