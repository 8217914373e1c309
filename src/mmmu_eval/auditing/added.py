"""Options the ten-option augmentation added that draw the runs, where the four-option form is right.

MMMU-Pro widened each question from its original options to ten by adding model-proposed ones.
An added option that is also right (a synonym of the gold, a broader term) turns a question the
runs answer correctly with four options into one they "fail" with ten: the method's failure, not
the models'. Found where the same item id is held both ways (``standard-4`` beside
``standard-10`` or ``vision``): the option the most ten-option runs chose is not the gold and not
among the four-option texts, while most four-option runs chose the gold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mmmu_eval.auditing.sources import RunAnswers, gold_text
from mmmu_eval.auditing.text import norm


@dataclass(frozen=True)
class AddedOption:
    """An option the augmentation added that drew the ten-option runs, on an item the four-option runs get right."""

    id: str
    """The item's id."""
    gold: str
    """The gold option's text."""
    option: str
    """The added option the ten-option runs chose most."""
    votes: int
    """Ten-option and vision runs that chose it."""
    answered: int
    """Ten-option and vision runs that chose an option."""
    four_right: int
    """Four-option runs that chose the gold."""
    four_answered: int
    """Four-option runs that chose an option."""

    def to_json(self) -> dict:
        return {"id": self.id, "gold": self.gold, "added_option": self.option, "votes": self.votes,
                "answered": self.answered, "four_option_right": self.four_right,
                "four_option_answered": self.four_answered}


def added_option_failures(runs: Sequence[RunAnswers]) -> list[AddedOption]:
    """Every such item, most votes for the added option first."""
    four = [r for r in runs if r.setting == "standard-4"]
    ten = [r for r in runs if r.setting in ("standard-10", "vision")]
    if not four or not ten:
        return []
    out = []
    for item_id in sorted({i for r in four for i in r.answers} & {i for r in ten for i in r.answers}):
        base = next(r.items[item_id] for r in four if item_id in r.answers)
        original = {norm(o) for o in base.options if isinstance(o, str)}
        gold = gold_text(base)
        if gold is None:
            continue
        four_votes = [r.answers[item_id] for r in four if item_id in r.answers]
        four_answered = sum(1 for a in four_votes if a.choice is not None)
        four_right = sum(1 for a in four_votes if a.choice is not None and norm(a.choice) == norm(gold))
        if four_right * 2 <= four_answered:
            continue
        choices = Counter()
        shown: dict[str, str] = {}
        answered = 0
        for r in ten:
            a = r.answers.get(item_id)
            if a is None or a.choice is None:
                continue
            answered += 1
            choices[norm(a.choice)] += 1
            shown.setdefault(norm(a.choice), a.choice)
        if not choices:
            continue
        top, votes = choices.most_common(1)[0]
        if top in original or top == norm(gold) or votes <= choices.get(norm(gold), 0):
            continue
        out.append(AddedOption(item_id, gold, shown[top], votes, answered, four_right, four_answered))
    out.sort(key=lambda a: (-a.votes / max(a.answered, 1), a.id))
    return out
