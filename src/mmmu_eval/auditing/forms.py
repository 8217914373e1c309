"""Each item's four-option form, and what it says of a suspect: a wrong gold, or a wrong added option.

MMMU-Pro's ten-option form grew from the original options (two to nine of them, the
``standard-4`` setting) by adding model-proposed ones, then shuffling. A suspect of the ten-option
and vision settings is one of two kinds of error, and they are fixed in different places:

- its consensus is an ORIGINAL option: the runs contradict the gold itself (a **gold** suspect:
  the label may be wrong, or the item ambiguous);
- its consensus is an option the augmentation ADDED: the added option is likely right too, or
  better (a synonym, a broader term), and the fix is to the added option, not to the gold (an
  **augmentation** suspect).

The four-option form is read from what the inputs hold, first found first: the items of
``standard-4`` runs, the original ``options`` that the 2024-era official rows carry beside
``shuffled_options``, and the build data (``mix_data.jsonl``). Where none holds an item, the
kind is not known (``consensus_added`` None). Suspects of the four-option setting itself, and
of MMMU, which was never augmented, are gold suspects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from mmmu_eval.auditing.sources import RunAnswers, gold_text
from mmmu_eval.auditing.text import norm

#: The settings whose options the augmentation grew and shuffled.
AUGMENTED = frozenset({"standard-10", "vision"})

#: The kinds of suspect, in the order the lists are shown.
KINDS = ("gold", "augmentation", "unknown")


@dataclass(frozen=True)
class FourOptionVotes:
    """How the four-option runs holding the item answered it."""

    runs: int
    """Four-option runs holding the item."""
    answered: int
    """Runs that chose an option (a random fallback chose none)."""
    gold: int
    """Runs that chose the gold."""
    consensus: int
    """Runs that chose the suspect's consensus (none can, when the augmentation added it)."""

    def to_json(self) -> dict:
        return {"runs": self.runs, "answered": self.answered, "gold": self.gold, "consensus": self.consensus,
                "other": self.answered - self.gold - self.consensus}


def original_forms(runs: Sequence[RunAnswers], build: Mapping[str, tuple[str, ...]] | None = None
                   ) -> dict[str, tuple[str, ...]]:
    """Item id -> its original options in order (see the module for where they are read)."""
    forms: dict[str, tuple[str, ...]] = {}
    for run in runs:
        if run.setting == "standard-4":
            for item_id, item in run.items.items():
                forms.setdefault(item_id, tuple(o if isinstance(o, str) else repr(o) for o in item.options))
    for run in runs:
        for item_id, options in run.originals.items():
            forms.setdefault(item_id, tuple(options))
    for item_id, options in (build or {}).items():
        forms.setdefault(item_id, tuple(options))
    return forms


def kind_of(consensus_added: bool | None) -> str:
    """``gold``, ``augmentation`` or ``unknown`` (one of ``KINDS``)."""
    return "unknown" if consensus_added is None else "augmentation" if consensus_added else "gold"


def classify(suspects: Sequence, runs: Sequence[RunAnswers], forms: Mapping[str, tuple[str, ...]]) -> list:
    """The suspects with ``consensus_added`` and the four-option form's votes filled in."""
    four = [r for r in runs if r.setting == "standard-4"]
    out = []
    for s in suspects:
        if not set(s.settings) & AUGMENTED:
            out.append(replace(s, consensus_added=False))
            continue
        original = forms.get(s.id)
        added = None if original is None else norm(s.consensus) not in {norm(o) for o in original}
        out.append(replace(s, consensus_added=added, four_option=_four_votes(s.id, s.consensus, four)))
    return out


def _four_votes(item_id: str, consensus: str, four: Sequence[RunAnswers]) -> FourOptionVotes | None:
    holding = [r for r in four if item_id in r.answers]
    if not holding:
        return None
    gold = gold_text(holding[0].items[item_id])
    chosen = [norm(r.answers[item_id].choice) for r in holding if r.answers[item_id].choice is not None]
    return FourOptionVotes(runs=len(holding), answered=len(chosen),
                           gold=sum(c == norm(gold) for c in chosen) if gold is not None else 0,
                           consensus=sum(c == norm(consensus) for c in chosen))
