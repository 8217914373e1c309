"""The doctor's sections of ``report.html`` and the suite's page: what could move the figure, as
``mmmu-eval doctor`` prints it, drawn from the same ``Diagnosis`` (``doctor.diagnosis``).

The page computes nothing of its own: each cause's expected effect, plausible range and worst case
(labelled a bound), the named failures among the unparsed answers, and, against a published
figure, the column compared, the causes outside the run, the causes together (each item once) and
the remainder sentence, all come from the ``Diagnosis`` and its sentences
(``doctor.diagnosis``). The published figure is the one asked for (``report --published``),
else the published row whose model name is exactly the run's (``diagnosis.named_row``); with
neither, the section says how to set one.

The sections are parts of the run and suite reports, drawn with their style sheet (``report.css``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from mmmu_eval.core.errors import MmmuEvalError
from mmmu_eval.core.records import Item, Response
from mmmu_eval.doctor.causes import cause_line
from mmmu_eval.doctor.examine import diagnosis_of, named_row, published_row
from mmmu_eval.doctor.diagnosis import (
    Diagnosis,
    effect_text, failure_text, main_cause_text, not_like_for_like, published_head, remainder_sentence, row_text,
    run_together_text, shown_causes, together_text, unparsed_line, worst_case_text,
)
from mmmu_eval.core.numbers import fixed
from mmmu_eval.scoring.scorer import Scoring

log = logging.getLogger(__name__)

__all__ = ["diagnosis_html", "doctor_section", "suite_doctor_section"]


def doctor_section(
    results: Mapping[str, Any],
    manifest: Mapping[str, Any],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    *,
    published: str | float | None = None,
) -> str:
    """``<section id="doctor">``: the run's diagnosis, as ``mmmu-eval doctor`` prints it.

    ``published``: a percentage or a model name to set the run against (``report --published``);
    None: the published row of exactly the run's model name, if there is one.
    The page a user shares should already answer "why does my number differ".
    """
    if published is not None:  # asked for by the user: a name that matches nothing is an error, not a warning
        published_row(published, results["benchmark"], results.get("split"), results.get("setting"))
    try:
        against = published if published is not None else _named(results)
        d = diagnosis_of("this run", results, manifest, items, responses, scoring, published=against)
    except MmmuEvalError as exc:  # a manifest the scorer cannot read again: the page still renders
        log.warning("the report leaves out what could move the figure (%s)", exc)
        return ""
    how = ("set against the figure asked for (<code>--published</code>)" if published is not None
           else "set against the published row of the run's own model name" if d.published is not None
           else "no published row carries this run's model name: <code>mmmu-eval report RUN --html --published "
                "NAME</code> (or <code>mmmu-eval doctor RUN --published NAME</code>) sets one, by name or in percent")
    return ('<section id="doctor"><h2>What could move the figure</h2><div class="panel">' + diagnosis_html(d)
            + f'<p class="src">Counts from this run, in percentage points of the headline; {how}. "Expected" is how '
            "far the figure would move, on average, had the cause not been there, with a 95% plausible range; "
            '"worst case" is a bound (every concerned answer flipping), never an explanation. '
            "The same diagnosis as <code>mmmu-eval doctor</code> (docs/doctor.md).</p></div></section>")


def _named(results: Mapping[str, Any]) -> str | None:
    row = named_row(results)
    return None if row is None else row.model


def _causes_table(d: Diagnosis, table_id: str) -> str:
    effects = {e.cause: e for e in d.effects if e.where == "run"}
    has_options = bool(d.figure.get("has_options", True))
    rows = []
    for c in shown_causes(d):
        e = effects.get(c.cause)
        bound = e.bound if e is not None and e.bound is not None else c.points
        what = unparsed_line(c, has_options) if c.cause == "unparsed" else cause_line(c)
        how = f'<div class="src">how: {escape(e.basis)}</div>' if e is not None and e.expected is not None else ""
        rows.append(
            f'<tr data-cause="{escape(c.cause)}"><td>{escape(c.cause)}</td><td class="n">{c.items}</td>'
            f'<td>{escape(effect_text(e) if e is not None else "size not known")}</td>'
            f'<td class="n">{fixed(bound, 2, signed=True)} (a bound)</td>'
            f"<td>{escape(what)}{how}</td><td class=\"ids\">{escape(', '.join(c.examples))}</td></tr>")
    if not rows:
        return f'<p id="{table_id}">No cause found in the run that could move the figure.</p>'
    return (f'<table class="t" id="{table_id}"><thead><tr><th>cause</th><th class="n">items</th>'
            '<th>expected effect (points)</th><th class="n">worst case</th><th>what the run records</th>'
            f'<th>first items</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _failures(d: Diagnosis) -> str:
    kinds = [(k, v) for k, v in d.failures.items() if k != "runaway_how"]
    if not kinds:
        return ""
    body = "".join(f'<li data-kind="{escape(k)}">{escape(failure_text(k, v))}: '
                   f'<span class="ids">{escape(", ".join(v["first"]))}</span></li>' for k, v in kinds)
    return f'<h3>Unparsed answers by kind</h3><ul id="doctor-failures">{body}</ul>'


def _published(d: Diagnosis) -> str:
    p = d.published
    if p is None:
        alone = run_together_text(d)
        return "" if alone is None else f'<p id="doctor-together">{escape(alone)}</p>'
    if p.get("refused"):
        return f'<p class="warn" id="doctor-published">published figure not set beside this run: {escape(p["refused"])}</p>'
    out = []
    warning = not_like_for_like(d.figure.get("scope") or {})
    if warning:
        out.append(f'<p class="warn">{escape(warning)}</p>')
    out.append(f'<h3>Against the published figure</h3><p id="doctor-published"><b>{escape(published_head(p))}</b></p>')
    if p.get("compared"):
        out.append(f'<p id="doctor-compared">{escape(p["compared"])}</p>')
    outside = [e for e in d.effects if e.where == "published"]
    if outside:
        rows = "".join(f'<tr data-cause="{escape(e.cause)}"><td>{escape(e.cause)}</td><td>{escape(effect_text(e))}</td>'
                       f"<td>{escape(e.basis)}</td></tr>" for e in outside)
        out.append('<table class="t" id="doctor-outside"><thead><tr><th>cause outside the run</th>'
                   f"<th>expected effect (points)</th><th>how it is known</th></tr></thead><tbody>{rows}</tbody></table>")
    explained = p.get("explained")
    if explained is not None:
        out.append(f'<p id="doctor-together">{escape(together_text(explained))}</p>')
        main = main_cause_text(p)
        if main:
            out.append(f'<p id="doctor-main">{escape(main)}</p>')
        out.append(f'<p class="warn" id="doctor-remainder"><b>'
                   f'{escape(remainder_sentence(p["gap"], explained["expected"], explained["unsized"]))}</b></p>')
    worst = worst_case_text(p)
    if worst:
        out.append(f'<p id="doctor-worst">{escape(worst)}</p>')
    row = p.get("row")
    if row:
        out.append(f'<p class="src" id="doctor-row">{escape(row_text(row))}</p>')
    return "".join(out)


def diagnosis_html(d: Diagnosis, *, table_id: str = "doctor-table") -> str:
    """One diagnosis as the page shows it: the causes in the run, the failures, the published part."""
    return _causes_table(d, table_id) + _failures(d) + _published(d)


def suite_doctor_section(records: Sequence[Any]) -> str:
    """The suite page's section: each run's diagnosis, as ``mmmu-eval doctor SUITE`` prints it.

    ``records`` are the suite's ``FinishedRun``s; each run is read back with its items and scoring
    (``results.finished_run.read_run``), the same reading the command does.
    """
    from mmmu_eval.results.finished_run import read_run

    body = []
    for k, record in enumerate(records):
        if record.results is None:
            continue
        try:
            run = read_run(record.path, details=True)
            assert run.items is not None and run.responses is not None and run.scoring is not None
            d = diagnosis_of(str(record.name), run.results, run.manifest, run.items, run.responses, run.scoring,
                             published=_named(run.results))
        except MmmuEvalError as exc:
            log.warning("%s: left out of the suite's causes (%s)", record.path, exc)
            continue
        body.append(f'<div class="doctor-run"><h3>{escape(record.name)}</h3>'
                    f'{diagnosis_html(d, table_id="doctor-table" if not body else f"doctor-table-{k}")}</div>')
    if not body:
        return ""
    return ('<section id="doctor"><h2>What could move each run\'s figure</h2><div class="panel">' + "".join(body)
            + '<p class="src">Counts from each run, as <code>mmmu-eval doctor SUITE</code> prints them, in percentage '
            'points of that run\'s figure; "worst case" is a bound, never an explanation.</p></div></section>')
