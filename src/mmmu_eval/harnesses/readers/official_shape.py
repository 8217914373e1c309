"""What makes an official file one run the official scripts would read: its rows' key, its length.

Two eras of the official repository's files need a word beyond their rows' columns:

- **Rows keyed by ``No``.** The repository's first evaluation code (``eval/main_eval.py``,
  2023-11-26, commit 44b45b5, with ``example_outputs/blip2_flant5xxl/``) keyed each row of
  ``<Subject>/output.json`` by ``No``: the question's number within its subject's pool, not an
  MMMU id (``"No": "22"``, where the released ids read ``validation_Accounting_22`` and number
  1 to 30). That code parsed and scored them exactly as today's ``main_parse_and_eval.py`` does
  (the same parser, the same ``random.seed(42)``), keyed by ``No``. So such rows are read and
  scored, named ``<Subject>_No_<n>``, with the split left unrecorded: nothing in the rows says
  which released items they are.
- **One setting's 1,730 rows.** The official ``mmmu-pro/evaluate.py`` skips a file whose line
  count is not 1,730 ("has N results, expected 1730"). A file with fewer rows is scored here over
  its rows and called partial (``rescore`` exits 1 on it). A file with more holds more than one
  run (two files joined, a run appended to another): no figure of it is one setting's, so it is
  refused, naming each pass over the items that it holds.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from mmmu_eval.core.errors import DataError
from mmmu_eval.harnesses.identify import shape_of_counts

#: The key of the first era's rows, and the split its items are given (the rows do not say it).
NO_KEY = "No"
UNRECORDED_SPLIT = "unrecorded"


def keyed_id(row: dict, subject: str) -> str | None:
    """The item id of an ``official-mmmu`` row: its ``id``, or ``<Subject>_No_<n>`` for a row keyed
    by ``No`` (see the module); None when the row has neither."""
    if isinstance(row.get("id"), str):
        return row["id"]
    number = row.get(NO_KEY)
    if isinstance(number, bool) or not isinstance(number, (str, int)) or not str(number).strip():
        return None
    return f"{subject}_{NO_KEY}_{str(number).strip()}"


def no_keyed_note(keyed: int, total: int) -> str:
    """What a rescore of rows keyed by ``No`` should tell its reader."""
    return (f"{keyed} of its {total} row(s) are keyed by \"No\" (the official repository's first evaluation format, "
            "eval/main_eval.py of 2023-11: a question's number within its subject, not an MMMU id): scored as that "
            f"code scored them, named <Subject>_No_<n>; their split is {UNRECORDED_SPLIT} and they cannot be joined to "
            "the released items")


def refuse_more_than_one_run(file: Path, rows: Sequence[tuple[str, dict]], options_key: str, expected: int) -> None:
    """Refuse an MMMU-Pro file of more than ``expected`` rows, naming the runs of rows it holds.

    A pass ends where an id comes back that the pass already held; each pass is named with its
    lines, its row count and what its option counts say of its setting.

    Raises:
        DataError: more rows than one setting holds.
    """
    if len(rows) <= expected:
        return
    passes: list[list[tuple[str, dict]]] = [[]]
    seen: set[str] = set()
    for where, row in rows:
        if row["id"] in seen:
            passes.append([])
            seen = set()
        seen.add(row["id"])
        passes[-1].append((where, row))
    said = "; ".join(_pass_said(p, options_key) for p in passes[:6])
    more = f"; and {len(passes) - 6} more" if len(passes) > 6 else ""
    raise DataError(
        f"{file}: {len(rows):,} rows, not the {expected:,} of one MMMU-Pro setting: it holds {len(passes)} pass(es) "
        f"over the items ({said}{more}), as when two output files are joined. The official evaluate.py refuses "
        f"it too (\"has {len(rows)} results, expected {expected}\"); rescore each setting's own file"
    )


def _pass_said(rows: list[tuple[str, dict]], options_key: str) -> str:
    first, last = rows[0][0].rsplit(":", 1)[-1], rows[-1][0].rsplit(":", 1)[-1]
    counts = [n for n in (_option_count(row.get(options_key)) for _, row in rows) if n]
    shape = {"ten": f"{sum(n >= 9 for n in counts):,} of them with 9 or more options: standard-10 or vision",
             "four": "the original 2-9 options: standard-4"}.get(shape_of_counts(counts) or "",
                                                                  "its setting unclear from its options")
    return f"lines {first}-{last}: {len(rows):,} rows, {shape}"


def _option_count(value: object) -> int:
    try:
        decoded = ast.literal_eval(str(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return 0
    return len(decoded) if isinstance(decoded, (list, tuple)) else 0
