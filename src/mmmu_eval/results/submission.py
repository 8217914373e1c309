"""The MMMU test split: EvalAI submission files.

``submission.json`` is the flat dict the official eval-only script and EvalAI challenge 2179
read (official-protocol.md 7): ``{"test_Art_1": "A", "test_Math_3": "4.0", ...}``. Multiple
choice gives the parsed letter (a random-fallback letter included, as the official pipeline
would submit it); open questions give the first parsed candidate as a string, as lmms-eval's
``mmmu_test_for_submission.json`` does.

Since 2026-02 the test answers are public in the official answer-dict format; scoring the test
split with them is the score stage's (``scoring/answers.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mmmu_eval.core.records import Item

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring


def is_submitted(results: Mapping) -> bool:
    """Whether a run's results are of the split EvalAI scores: MMMU test, nothing else.

    MMMU-Pro's answers are public and it has no EvalAI server, so only MMMU test gets a
    ``submission.json``. Decided from results.json (its benchmark and split are the items'),
    so ``run``, ``rescore --out`` and ``report --submission`` decide it the same way.
    """
    return results.get("benchmark") == "mmmu" and results.get("split") == "test"


def submission(scoring: Scoring, items: Sequence[Item]) -> dict[str, str]:
    """The EvalAI prediction dict ``{id: prediction}`` for the items the headline parser judged.

    Errors and missing items have no prediction and are left out (EvalAI then counts them
    wrong); the caller should say how many. A verdict with no parsed prediction gives ``""``.

    >>> from mmmu_eval.dataset import load_benchmark
    >>> from mmmu_eval.core.records import Response
    >>> items = load_benchmark("mmmu", split="validation", data="sample").items
    >>> from mmmu_eval.scoring.scorer import score_responses
    >>> scoring = score_responses(items, {it.id: Response(it.id, "ok", text="The answer is (A).") for it in items})
    >>> submission(scoring, items)["validation_Accounting_2"]
    'A'
    """
    verdicts = scoring.verdicts[scoring.parsers[0]]
    out: dict[str, str] = {}
    for item in items:
        verdict = verdicts.get(item.id)
        if verdict is not None:
            out[item.id] = "" if verdict.pred is None else str(verdict.pred)
    return out
