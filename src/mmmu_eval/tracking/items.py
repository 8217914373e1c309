"""The per-item table (opt-in): one row per item of a finished run, read back from its directory.

The run's items come back through ``results.finished_run.read_run`` (the one reader of a run
directory with its items, which carries the gold answers results.json does not), scored by the
run's recorded scoring, so the table holds what results.json counted.
"""

from __future__ import annotations

from pathlib import Path

from mmmu_eval.results.finished_run import read_run
from mmmu_eval.tracking.log_record import Table

__all__ = ["COLUMNS", "item_table"]

COLUMNS = ("id", "subject", "gold", "parsed", "correct", "fallback", "status", "answer")


def item_table(run_dir: Path, answer_chars: int) -> Table:
    """Every item of the run: ``correct`` and ``fallback`` are null where the item was not scored
    (no gold answer, a failed request, no response); ``answer`` is the response's first
    ``answer_chars`` characters."""
    run = read_run(run_dir, details=True)
    assert run.items is not None and run.responses is not None and run.scoring is not None  # details=True
    verdicts = run.scoring.verdicts[run.scoring.parsers[0]]
    rows = []
    for item in run.items:
        response = run.responses.get(item.id)
        verdict = verdicts.get(item.id)
        graded = verdict is not None and item.answer is not None
        gold = item.answer if item.answer is None or isinstance(item.answer, str) else " | ".join(item.answer)
        rows.append((
            item.id, item.subject, gold, None if verdict is None else verdict.pred,
            verdict.correct if graded else None, verdict.fallback if graded else None,
            "missing" if response is None else response.status,
            None if response is None or response.text is None else response.text[:answer_chars],
        ))
    return Table(COLUMNS, tuple(rows))
