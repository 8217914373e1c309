"""Our official verdicts beside the harness's own, and the cause of every item where they differ.

Harnesses disagree about the same responses by points, and the reasons are few. Each item whose
verdicts differ gets the first cause that applies, in this order:

============== =====================================================================================
cause          what happened
============== =====================================================================================
gold           the harness compared with another gold answer than the dataset's
error          the harness scored a failed request (its error text, or an empty answer) as an
               answer; we never score a failure
judge          an LLM judge gave the harness's verdict, or the answer that decided it
open-as-choice the harness scored an open question as multiple choice
fallback       a random letter decided one side (the official seeded fallback, or the harness's own)
letter         both sides parsed, and the harness took another letter than the official parser
               (or took one where the official parser found none, or the reverse)
open-match     an open question whose answer the two matchers judge differently
other          none of the above explains it
============== =====================================================================================

``explain`` is pure: the items, the Scoring and the harness's verdicts in, an ``Explanation`` out.
It is rebuilt whenever a rescored run is scored again, so it always describes the current scoring.

``harnesses.read.rescore`` calls it; its docstring shows an explanation built from three rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mmmu_eval.core.records import Item, Response, Verdict
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.core.untrusted import capped_or_none

#: Causes, in the order they are tried; each with the sentence that explains it.
CAUSES: dict[str, str] = {
    "gold": "the harness compared with another gold answer",
    "error": "the harness scored a failed request as an answer (we do not score failures)",
    "judge": "an LLM judge decided the harness's verdict",
    "open-as-choice": "the harness scored an open question as multiple choice",
    "fallback": "a random letter decided one side",
    "letter": "the harness's parser took another letter than the official parser",
    "open-match": "the open-answer matchers disagree",
    "other": "none of the known causes",
}


@dataclass(frozen=True, slots=True)
class Difference:
    """One item the two verdicts disagree on."""

    id: str
    """The item's id."""
    subject: str
    """Its subject."""
    cause: str
    """A key of CAUSES."""
    official_pred: str | None
    """What the official parser read (a letter, an open answer); None when nothing was parsed."""
    official_correct: bool | None
    """None: we did not score it (a failed request)."""
    official_fallback: bool
    """Whether the official random fallback chose ``official_pred``."""
    harness_pred: str | None
    """What the harness read, as its file records it; None when it records none."""
    harness_correct: bool
    """The harness's own verdict."""
    detail: str
    """What exactly differs, in words (``harness took B, official took C``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "subject": self.subject, "cause": self.cause,
            "official": {"pred": capped_or_none(self.official_pred), "correct": self.official_correct,
                         "fallback": self.official_fallback},
            "harness": {"pred": capped_or_none(self.harness_pred), "correct": self.harness_correct},
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Explanation:
    """The harness's accuracy beside ours, and the items that explain the gap."""

    harness: str
    """The harness (``lmms-eval``, ``vlmevalkit`` ...)."""
    recorded: RecordedScore | None
    """The accuracy the harness wrote in its own results file, when one was found."""
    graded: int
    """Items with a harness verdict (and a gold answer of ours)."""
    harness_correct: int
    """Of those, the harness's correct verdicts."""
    official_correct: int
    """Our headline parser's correct verdicts on the same items (failures count wrong here)."""
    differences: tuple[Difference, ...]
    """Every item the verdicts disagree on, in dataset order."""
    without_verdict: int
    """Items of ours the harness gave no verdict (none recorded, or no gold on its side)."""
    parser: str = "official"
    """Our headline parser, whose verdicts are set beside the harness's (the ``official_*`` fields)."""

    @property
    def by_cause(self) -> dict[str, list[Difference]]:
        out: dict[str, list[Difference]] = {}
        for cause in CAUSES:
            found = [d for d in self.differences if d.cause == cause]
            if found:
                out[cause] = found
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``harness`` section of results.json (docs/results-schema.md)."""
        n = self.graded
        causes = {
            cause: {
                "items": len(found),
                "official_only_right": sum(1 for d in found if d.official_correct),
                "harness_only_right": sum(1 for d in found if d.harness_correct),
                "meaning": CAUSES[cause],
            }
            for cause, found in self.by_cause.items()
        }
        return {
            "name": self.harness,
            "parser": self.parser,
            "recorded": None if self.recorded is None else {
                "accuracy": self.recorded.accuracy, "source": self.recorded.source, "n": self.recorded.n,
            },
            "n": n,
            "correct": self.harness_correct,
            "accuracy": self.harness_correct / n if n else None,
            "official_correct": self.official_correct,
            "official_accuracy": self.official_correct / n if n else None,
            "difference": (self.official_correct - self.harness_correct) / n if n else None,
            "without_verdict": self.without_verdict,
            "differing": len(self.differences),
            "causes": causes,
            "items": [d.to_json() for d in self.differences],
        }


def explain(
    items: Sequence[Item],
    scoring: Scoring,
    harness: Mapping[str, HarnessVerdict],
    responses: Mapping[str, Response],
    *,
    recorded: RecordedScore | None,
    harness_name: str,
) -> Explanation:
    """Pair the headline verdicts with the harness's, item by item, and name each difference's cause.

    Args:
        items: the scored items (with our gold answers), in dataset order.
        scoring: our Scoring of the responses.
        harness: item id -> the harness's verdict.
        responses: item id -> the response (a failure has status ``error`` and no verdict of ours).
        recorded: the accuracy the harness wrote itself.
        harness_name: shown in the report.
    """
    ours = scoring.verdicts[scoring.parsers[0]]
    graded = harness_right = official_right = without = 0
    differences: list[Difference] = []
    for item in items:
        theirs = harness.get(item.id)
        if item.answer is None:
            continue
        if theirs is None or theirs.correct is None:
            without += 1
            continue
        graded += 1
        harness_right += theirs.correct
        verdict = ours.get(item.id)
        official = None if verdict is None else bool(verdict.correct)
        official_right += bool(official)
        if official == theirs.correct:
            continue
        response = responses.get(item.id)
        cause, detail = _cause(item, verdict, theirs, response)
        differences.append(Difference(
            id=item.id, subject=item.subject, cause=cause,
            official_pred=verdict.pred if verdict else None, official_correct=official,
            official_fallback=bool(verdict and verdict.fallback),
            harness_pred=theirs.pred, harness_correct=bool(theirs.correct), detail=detail,
        ))
    return Explanation(harness_name, recorded, graded, harness_right, official_right, tuple(differences), without,
                       parser=scoring.parsers[0])


def _cause(item: Item, verdict: Verdict | None, theirs: HarnessVerdict, response: Response | None) -> tuple[str, str]:
    gold = _golds(item.answer)
    their_gold = _golds(theirs.gold) if theirs.gold is not None else None
    if their_gold is not None and not theirs.as_choice and their_gold != gold:
        return "gold", f"the harness's gold is {_show(theirs.gold)}, the dataset's {_show(item.answer)}"
    if verdict is None:
        why = response.error if response is not None and response.error else "no response"
        return "error", f"the request failed ({_short(why)}); the harness scored it {_right(theirs.correct)}"
    if theirs.judge:
        return "judge", f"an LLM judge ruled {_right(theirs.correct)}" + (f": {_short(theirs.note)}" if theirs.note else "")
    if item.question_type == "open" and theirs.as_choice:
        return "open-as-choice", (f"open question turned into a choice between the gold and 'Other Answers'; "
                                  f"the official open matching ruled {_right(bool(verdict.correct))}")
    if verdict.fallback or theirs.fallback:
        sides = [s for s, fell in (("official", verdict.fallback), ("harness", theirs.fallback)) if fell]
        return "fallback", f"random letter on the {' and '.join(sides)} side (official {_show(verdict.pred)}, harness {_show(theirs.pred)})"
    if item.question_type == "multiple-choice":
        if theirs.pred is not None and theirs.pred == verdict.pred:
            return "other", f"both took {_show(verdict.pred)}; the harness ruled it {_right(theirs.correct)}"
        if verdict.pred is None:
            return "letter", f"the harness took {_show(theirs.pred)}; the official parser found no letter"
        if theirs.pred is None:
            return "letter", f"the official parser took {verdict.pred}; the harness found none"
        return "letter", f"the harness took {_show(theirs.pred)}, the official parser {verdict.pred}"
    if item.question_type == "open":
        return "open-match", (f"the harness's answer {_show(theirs.pred)} vs the official {_show(verdict.pred)}"
                              + (f"; {theirs.note}" if theirs.note else ""))
    return "other", ""


def _golds(value: object) -> frozenset[str] | None:
    """A gold answer as a set of strings. A list written as text stays one string: a harness that
    compares with the text ``"['24/7', '3.429']"`` did not compare with either answer."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return frozenset(str(v).strip() for v in value)
    return frozenset((str(value).strip(),))


def _show(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, (list, tuple)):
        return " or ".join(repr(str(v)) for v in value)
    return repr(_short(str(value)))


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _right(correct: bool) -> str:
    return "right" if correct else "wrong"
