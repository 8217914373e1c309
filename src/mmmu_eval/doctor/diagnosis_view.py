"""How a ``Diagnosis`` shows in a notebook: one line for ``repr``, a table of causes for Jupyter.

The primitives (cutting, escaping, the table) are ``results/notebook_view.py``'s; this module is
the doctor's, beside the record it shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmmu_eval.core.numbers import fixed
from mmmu_eval.results.notebook_view import bounded, html_record

__all__ = ["diagnosis_html", "diagnosis_repr"]


def _figure(figure: Mapping[str, Any]) -> str:
    if figure.get("accuracy") is None:
        return f"no figure ({figure.get('no_score') or 'no gold answers'})"
    return f"{fixed(figure['accuracy'])}% ({figure.get('correct', 0):,} of {figure.get('n', 0):,})"


def diagnosis_repr(d: Any) -> str:
    """``Diagnosis(runs/x: 36.1% (325 of 900), 3 causes: unparsed, truncated, coverage; published 58.6)``"""
    causes = ", ".join(c.cause for c in d.causes[:4]) + (", …" if len(d.causes) > 4 else "")
    published = "" if d.published is None or d.published.get("value") is None else f"; published {fixed(d.published['value'])}"
    return (f"Diagnosis({bounded(d.run)}: {_figure(d.figure)}, {len(d.causes)} cause"
            f"{'' if len(d.causes) == 1 else 's'}{': ' + causes if causes else ''}{published})")


def diagnosis_html(d: Any) -> str:
    """A ``Diagnosis`` (``doctor.diagnosis``, which calls this) as a table: each cause's effect and bound."""
    scope = (d.figure.get("scope") or {}).get("text") if isinstance(d.figure.get("scope"), Mapping) else None
    rows = [("figure", _figure(d.figure) + (f", {scope}" if scope else ""))]
    expected = {e.cause: e.expected for e in d.effects if e.where == "run"}
    for cause in d.causes:
        effect = expected.get(cause.cause)
        said = "expected effect not known" if effect is None else f"expected {fixed(effect, 2, signed=True)} points"
        rows.append((cause.cause, f"{cause.items:,} items; {said}; worst case {fixed(cause.points, 2)} points (a bound)"))
    if d.published is not None and d.published.get("value") is not None:
        gap = d.published.get("gap")
        rows.append(("published", f"{fixed(d.published['value'])}% ({bounded(d.published.get('source') or 'as given')})"
                     + ("" if gap is None else f", {fixed(gap, 2, signed=True)} points from the run's")))
    rows.append(("the whole report", "diagnosis.lines(), one string per line"))
    return html_record("Diagnosis", rows, note=d.run)
