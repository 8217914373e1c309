"""The doctor's sections of ``report.html`` and the suite's page: the causes that could move the figure, as
``mmmu-eval doctor`` lists them (here, below the pages, so the report never imports the doctor command).

The sections are parts of the run and suite reports, drawn with their style sheet (``report.css``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from mmmu_eval.report.causes import cause_line, find_causes
from mmmu_eval.errors import MmmuEvalError
from mmmu_eval.records import Item, Response
from mmmu_eval.report.numbers import fixed
from mmmu_eval.score.scorer import Scoring

log = logging.getLogger(__name__)


def doctor_section(
    results: Mapping[str, Any],
    manifest: Mapping[str, Any],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
) -> str:
    """``<section id="doctor">``: one row per cause, largest bound first; a line when none is found.

    The page a user shares should already answer "why does my number differ": the same causes,
    counts and first item ids as ``mmmu-eval doctor`` prints.
    """
    try:
        causes = find_causes(results, manifest, items, responses, scoring)
    except MmmuEvalError as exc:  # a manifest the scorer cannot read again: the page still renders
        log.warning("the report leaves out what could move the figure (%s)", exc)
        return ""
    if causes:
        body = "".join(
            f'<tr><td>{escape(c.cause)}</td><td class="n">{c.items}</td><td class="n">{fixed(c.points, 2, signed=True)}</td>'
            f'<td>{escape(cause_line(c))}</td>'
            f'<td class="ids">{escape(", ".join(c.examples))}</td></tr>'
            for c in causes
        )
        table = ('<table class="t" id="doctor-table"><thead><tr><th>cause</th><th class="n">items</th>'
                 '<th class="n">up to (points)</th><th>what the run records</th><th>first items</th></tr></thead>'
                 f"<tbody>{body}</tbody></table>")
    else:
        table = '<p id="doctor-table">No cause in the run could move the figure.</p>'
    return (
        '<section id="doctor"><h2>What could move the figure</h2><div class="panel">' + table
        + '<p class="src">Counts from this run. "Up to" is the most each cause can account for, in percentage points '
        "of the headline: the share of its items judged wrong (for failed, missing or not-evaluated items: the "
        "figure had every one been right). <code>mmmu-eval doctor RUN --published VALUE</code> sets them against "
        "a published figure.</p></div></section>"
    )


def suite_doctor_section(records: Sequence[Any]) -> str:
    """The suite page's section: each run's causes, as ``mmmu-eval doctor SUITE`` lists them.

    ``records`` are the suite's ``RunRecord``s; each run is read back with its items and scoring
    (``report.loaded_run.load_run``), the same reading the command does.
    """
    from mmmu_eval.report.loaded_run import load_run

    body = []
    for record in records:
        if record.results is None:
            continue
        try:
            run = load_run(record.path, details=True)
            assert run.items is not None and run.responses is not None and run.scoring is not None
            causes = find_causes(run.results, run.manifest, run.items, run.responses, run.scoring)
        except MmmuEvalError as exc:
            log.warning("%s: left out of the suite's causes (%s)", record.path, exc)
            continue
        name = escape(record.name)
        if not causes:
            body.append(f'<tr><td>{name}</td><td colspan="5">no cause found</td></tr>')
        for c in causes:
            body.append(
                f'<tr><td>{name}</td><td>{escape(c.cause)}</td><td class="n">{c.items}</td>'
                f'<td class="n">{fixed(c.points, 2, signed=True)}</td><td>{escape(cause_line(c))}</td>'
                f'<td class="ids">{escape(", ".join(c.examples))}</td></tr>'
            )
    if not body:
        return ""
    return (
        '<section id="doctor"><h2>What could move each run\'s figure</h2><div class="panel">'
        '<table class="t" id="doctor-table"><thead><tr><th>run</th><th>cause</th><th class="n">items</th>'
        '<th class="n">up to (points)</th><th>what the run records</th><th>first items</th></tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table><p class="src">Counts from each run, as '
        "<code>mmmu-eval doctor SUITE</code> prints them; \"up to\" is the most a cause can account for, in "
        "percentage points of that run's figure.</p></div></section>"
    )
