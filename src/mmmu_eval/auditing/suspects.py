"""Suspect labels: items on whose one wrong option many runs, and the stronger runs, agree.

Runs are set side by side per item and per option set: the runs whose options hold the same
texts with the same gold (the ten-option and vision settings share theirs; the four-option
setting has its own). Agreement is counted by option TEXT, so runs of different shuffles agree.

For each group:

- ``agree``: runs choosing the most chosen wrong option (the consensus), ``gold_votes``: runs
  choosing the gold, ``answered``: runs that chose an option (a random fallback chose none);
- ``strong_agree`` of ``strong_runs``: the same among the stronger runs (``strength``);
- ``chance``: the probability that the runs' wrong answers, spread evenly over the distractors,
  put this many on one option (``chance.py``);
- ``score``: log10 of how much likelier the answers are if the consensus is the right answer than
  if the gold is. A run of accuracy ``a`` over ``d`` distractors weighs ``log10(a d / (1 - a))``
  (zero at or below chance): its vote for the consensus adds that, its vote for the gold takes it
  away, and other answers say nothing either way. Stronger runs weigh more; several weak runs
  never outweigh a strong one's vote for the gold.

An item is **flagged** when a majority of the stronger runs that hold it agree on one wrong
option, from ``min_models`` models or more, and the score favours the consensus (above 0). The
count chance alone would flag is computed for the majority rule (``Agreement``): an upper bound. Flagged items are evidence for a person to check,
never a verdict: a hard item, an image the models misread, a popular misconception all look the
same from the answers alone.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mmmu_eval.auditing.chance import p_max_at_least
from mmmu_eval.auditing.forms import FourOptionVotes, kind_of
from mmmu_eval.auditing.sources import RunAnswers, gold_text
from mmmu_eval.auditing.text import norm
from mmmu_eval.core.records import Item, letters

#: Bounds of a run's accuracy in its weight, so that a perfect or a hopeless run stays finite.
_ACC_BOUNDS = (0.01, 0.99)


@dataclass(frozen=True)
class Vote:
    """One run's answer to a suspect item."""

    run: str
    """The run's name (``RunAnswers.name``)."""
    model: str
    """The run's model."""
    setting: str
    """The run's setting (``standard-4``, ``standard-10``, ``vision``, or the MMMU split)."""
    choice: str | None
    """The chosen option's text (None: no option chosen)."""
    strong: bool
    """Whether the run is one of the stronger ones (``Audit.strong``)."""
    weight: float
    """log10 of the vote's likelihood ratio from the run's accuracy; 0 at or below chance."""


@dataclass(frozen=True)
class Suspect:
    """One item's evidence against its gold, from one group of runs with the same options."""

    id: str
    """The item's id."""
    item: Item
    """The item as the first run of the group held it (question, options in its order)."""
    gold: str
    """The gold option's text."""
    consensus: str
    """The wrong option most runs chose, as the first of them wrote it."""
    agree: int
    """Runs that chose the consensus."""
    gold_votes: int
    """Runs that chose the gold."""
    answered: int
    """Runs that chose an option (a random fallback chose none)."""
    runs_total: int
    """Runs of the group that hold the item."""
    strong_agree: int
    """Stronger runs that chose the consensus."""
    strong_gold: int
    """Stronger runs that chose the gold."""
    strong_runs: int
    """Stronger runs that hold the item."""
    models: tuple[str, ...]
    """Models among the runs that chose the consensus."""
    chance: float
    """The probability that the wrong answers, spread evenly over the distractors, put ``agree``
    of them on one option (0 to 1)."""
    score: float
    """log10 of how much likelier the answers are if the consensus is right than if the gold is;
    above 0 favours the consensus."""
    flagged: bool
    """Whether it meets the rule (``Agreement.rule``): evidence for a person to check, never a verdict."""
    settings: tuple[str, ...]
    """The settings of the group's runs."""
    votes: tuple[Vote, ...]
    """Each run's answer."""
    consensus_added: bool | None = None
    """Whether the consensus is an option the ten-option augmentation added (``forms.py``): then the
    fix is to that option, not the gold; None when no four-option form of the item was read."""
    four_option: FourOptionVotes | None = None
    """How the four-option runs answered the item; None when none holds it (or this is one)."""

    @property
    def kind(self) -> str:
        """``gold`` (the runs contradict the gold), ``augmentation`` (an added option draws them) or
        ``unknown``: which list the suspect is in."""
        return kind_of(self.consensus_added)

    def to_json(self) -> dict:
        labels = letters(len(self.item.options))
        return {
            "id": self.id, "gold": self.gold, "consensus": self.consensus,
            "gold_letter": self.item.answer if isinstance(self.item.answer, str) else None,
            "consensus_letter": next((labels[i] for i, o in enumerate(self.item.options)
                                      if isinstance(o, str) and norm(o) == norm(self.consensus)), None),
            "agree": self.agree, "gold_votes": self.gold_votes, "answered": self.answered,
            "consensus_added": self.consensus_added, "kind": self.kind,
            "four_option": None if self.four_option is None else self.four_option.to_json(),
            "runs_total": self.runs_total, "strong_agree": self.strong_agree, "strong_gold": self.strong_gold,
            "strong_runs": self.strong_runs, "models": list(self.models), "chance": self.chance,
            "score": round(self.score, 3), "flagged": self.flagged, "settings": list(self.settings),
            "subject": self.item.subject, "question": self.item.question,
            "options": [o if isinstance(o, str) else repr(o) for o in self.item.options],
            "runs": [{"run": v.run, "model": v.model, "setting": v.setting, "choice": v.choice,
                      "stronger": v.strong} for v in self.votes],
        }


@dataclass(frozen=True)
class Agreement:
    """The whole benchmark's count of flagged items against what chance alone would flag."""

    settings: tuple[str, ...]
    """The settings of the runs in these groups (ten-option and vision share their options)."""
    flagged: int
    """Groups flagged."""
    expected_by_chance: float
    """At most this many groups would meet the majority rule with wrong answers spread evenly."""
    groups: int
    """Item groups judged (each holds at least one stronger run)."""
    rule: str
    """The flagging rule, in words (the majority, the models, the score)."""

    def to_json(self) -> dict:
        return {"settings": list(self.settings), "flagged": self.flagged,
                "expected_by_chance": round(self.expected_by_chance, 2), "groups_judged": self.groups,
                "rule": self.rule}


def weight(accuracy: float, distractors: int) -> float:
    """log10 of a vote's likelihood ratio (see the module); 0 at or below chance."""
    a = min(max(accuracy, _ACC_BOUNDS[0]), _ACC_BOUNDS[1])
    if distractors < 1:
        return 0.0
    return max(0.0, math.log10(a * distractors / (1 - a)))


def group_runs(runs: Sequence[RunAnswers]) -> dict[tuple[str, frozenset, str], list[RunAnswers]]:
    """(item id, option texts, gold text) -> the runs that hold that item so."""
    groups: dict[tuple[str, frozenset, str], list[RunAnswers]] = defaultdict(list)
    for run in runs:
        for item_id, item in run.items.items():
            gold = gold_text(item)
            if gold is None or item.id not in run.answers:
                continue  # no gold among the options: a structural problem, not a vote
            key = (item_id, frozenset(norm(o) for o in item.options if isinstance(o, str)), norm(gold))
            groups[key].append(run)
    return groups


def find_suspects(
    runs: Sequence[RunAnswers], strong: Mapping[str, bool], *, min_models: int = 3, min_score: float = 1.0,
) -> tuple[list[Suspect], list[Agreement]]:
    """Every group whose consensus is a wrong option, ranked by score (strongest first).

    Kept: flagged groups, and groups whose score reaches ``min_score`` (odds of 10 to 1 at 1.0).
    """
    suspects: list[Suspect] = []
    tally: dict[tuple[str, ...], list] = {}
    for (item_id, _, _), members in group_runs(runs).items():
        suspect, p_flag = _judge(item_id, members, strong, min_models)
        settings = tuple(sorted({r.setting for r in members}))
        row = tally.setdefault(settings, [0, 0.0, 0])
        if p_flag is not None:
            row[1] += p_flag
            row[2] += 1
        if suspect is not None and suspect.flagged:
            row[0] += 1
        if suspect is not None and (suspect.flagged or suspect.score >= min_score):
            suspects.append(suspect)
    suspects.sort(key=lambda s: (-s.flagged, -s.score, s.chance, s.id))
    rule = (f"a majority of the stronger runs holding the item agree on one wrong option, from {min_models} "
            "models or more, and the score favours it")
    agreement = [Agreement(k, v[0], v[1], v[2], rule) for k, v in sorted(tally.items(), key=lambda kv: -kv[1][2])]
    return _one_per_item(suspects), agreement


def _one_per_item(suspects: list[Suspect]) -> list[Suspect]:
    seen: set[str] = set()
    out = []
    for s in suspects:
        if s.id not in seen:
            seen.add(s.id)
            out.append(s)
    return out


def _judge(item_id: str, members: list[RunAnswers], strong: Mapping[str, bool],
           min_models: int) -> tuple[Suspect | None, float | None]:
    first = members[0].items[item_id]
    gold = gold_text(first)
    assert gold is not None
    distractors = max(len({norm(o) for o in first.options if isinstance(o, str)}) - 1, 1)
    votes = []
    for run in members:
        answer = run.answers[item_id]
        votes.append(Vote(run.name, run.model, run.setting, answer.choice, strong.get(run.name, True),
                          weight(run.accuracy, distractors)))
    chose = [v for v in votes if v.choice is not None]
    wrong = Counter(norm(v.choice) for v in chose if norm(v.choice) != norm(gold))
    strong_votes = [v for v in votes if v.strong]
    strong_wrong = Counter(norm(v.choice) for v in strong_votes
                           if v.choice is not None and norm(v.choice) != norm(gold))
    need = len(strong_votes) // 2 + 1
    p_flag = p_max_at_least(sum(strong_wrong.values()), distractors, need) if strong_votes else None
    if not wrong:
        return None, p_flag
    top, agree = max(wrong.items(), key=lambda kv: (kv[1], _weight_of(votes, kv[0])))
    gold_voters = [v for v in chose if norm(v.choice) == norm(gold)]
    consensus_voters = [v for v in chose if norm(v.choice) == top]
    if agree <= len(gold_voters):
        return None, p_flag
    score = sum(v.weight for v in consensus_voters) - sum(v.weight for v in gold_voters)
    strong_agree = sum(1 for v in consensus_voters if v.strong)
    models = tuple(sorted({v.model for v in consensus_voters}))
    strong_models = {v.model for v in consensus_voters if v.strong}
    flagged = bool(strong_votes) and strong_agree >= need and len(strong_models) >= min_models and score > 0
    display = next(v.choice for v in consensus_voters if v.choice is not None)
    suspect = Suspect(
        id=item_id, item=first, gold=gold, consensus=display, agree=agree, gold_votes=len(gold_voters),
        answered=len(chose), runs_total=len(votes), strong_agree=strong_agree,
        strong_gold=sum(1 for v in gold_voters if v.strong), strong_runs=len(strong_votes), models=models,
        chance=p_max_at_least(sum(wrong.values()), distractors, agree), score=score, flagged=flagged,
        settings=tuple(sorted({v.setting for v in votes})), votes=tuple(votes),
    )
    return suspect, p_flag


def _weight_of(votes: list[Vote], text: str) -> float:
    return sum(v.weight for v in votes if v.choice is not None and norm(v.choice) == text)
