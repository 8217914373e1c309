"""What another harness said about each item it evaluated: its verdict, its own accuracy, its failures.

These are the words the score stage uses to set a harness's judgement beside ours
(``scoring/explain.py``) and the run report uses to show it (``results/harness.py``). Reading the
harness's files is not the score stage's business: the readers live with ``rescore``
(``harnesses/readers``), which builds these records from what each harness wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FAILURES", "HARNESS_ERROR", "HarnessVerdict", "RecordedScore", "failures"]

#: ``Response.notes`` mark of a row whose response was not text (an API error object, null): the
#: harness failed there. The official formats still score it as their code did; it is named.
HARNESS_ERROR = "harness_error"


@dataclass(frozen=True, slots=True)
class HarnessVerdict:
    """The harness's own judgement of one response, as far as its output records it."""

    correct: bool | None
    """Its verdict; None when it recorded none (a test split, a row it did not score)."""
    pred: str | None = None
    """The answer it compared with the gold: a letter, an open answer, or the raw text it compared."""
    gold: object = None
    """The gold answer it compared against, as it wrote it; None when its output does not say."""
    judge: bool = False
    """An LLM judge decided the verdict (or extracted the answer that decided it)."""
    fallback: bool | None = False
    """It drew a random letter; None when its output cannot tell."""
    as_choice: bool = False
    """It scored an open question as multiple choice."""
    note: str = ""
    """Its own log line for this row, shown in the report."""



@dataclass(frozen=True)
class RecordedScore:
    """An accuracy the harness wrote in its own results file."""

    accuracy: float
    """A fraction in [0, 1]."""
    source: str
    """The file it was read from, and the key (``results.json: results.mmmu_val["mmmu_acc,none"]``)."""
    n: int | None = None
    """Items it says it scored, when it says."""



#: The named failures of a harness's rows, and what each means (``failures``).
FAILURES: dict[str, str] = {
    HARNESS_ERROR: "the harness recorded a failure instead of a response (an API error, a null)",
    "empty": "the response is empty",
}


def failures(ids: Sequence[str], responses: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Cause -> item id -> message, for the rows that hold no answer: ``harness_error``, ``empty``.

    A response the harness recorded as a failure (``status`` ``error``, or a row of an official
    format whose response was an error object or null, marked ``HARNESS_ERROR``) is a
    ``harness_error`` with its message; a text that is empty or blank is ``empty``. Neither is
    an unparsed answer, whatever a scorer then made of it (the official MMMU-Pro code gave both
    a random letter). Every cause is a key, counted or not.
    """
    out: dict[str, dict[str, str]] = {cause: {} for cause in FAILURES}
    for item_id in ids:
        response = responses.get(item_id)
        if response is None:
            continue
        if response.status == "error" or HARNESS_ERROR in response.notes:
            out[HARNESS_ERROR][item_id] = response.error or "the harness recorded a failure"
        elif isinstance(response.text, str) and not response.text.strip():
            out["empty"][item_id] = "an empty response" if not response.text else "a blank response"
    return out
