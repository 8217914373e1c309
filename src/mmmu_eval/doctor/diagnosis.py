"""The ``Diagnosis`` (one run's) and the ``SuiteDiagnosis``, with their sentences, every one
checkable against the run's files: the terminal report (``Diagnosis.lines``, ``diagnosis_lines``)
and the pieces the report page shows (``rendering/html_causes.py``), so both say the same. The
record is built by ``doctor/examine.py``; the page shows it and owns none of it.

Order: the figure; each cause found in the run with its expected effect, plausible range and
worst case (labelled a bound); the named failures among the unparsed answers; then, against a
published figure, which column and prompt it was compared with, the causes outside the run, the
causes together (each item counted once) and the remainder no cause explains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mmmu_eval.doctor.effects import Effect
from mmmu_eval.doctor.causes import Cause, cause_line
from mmmu_eval.core.numbers import fixed, half_up, pct


__all__ = ["MEANINGFUL", "Diagnosis", "SuiteDiagnosis", "diagnosis_lines", "effect_text", "failure_text", "not_like_for_like", "published_head",
           "remainder_sentence", "row_text", "run_together_text", "shown_causes", "together_text", "main_cause_text", "unparsed_line", "worst_case_text"]

#: The share of answers that must hold a box (or an ``Answer:`` line) before the boxed (strict)
#: parser's figure is shown: below it the figure measures the prompt, not the parser.
MEANINGFUL = 0.05


@dataclass(frozen=True)
class Diagnosis:
    """One run's figure, its causes (largest first) and its place against a published value."""

    run: str
    """The run directory diagnosed, as given."""
    figure: dict[str, Any]
    """The run's headline: ``benchmark``, ``split``, ``setting``, ``model``, ``accuracy`` (percent),
    ``correct``, ``n``, ``ci95`` (percent), ``scope`` ... (docs/doctor.md, ``--json``)."""
    causes: tuple[Cause, ...]
    """What in the run could move its figure, largest worst case first (``doctor.causes``)."""
    published: dict[str, Any] | None = None
    """The published figure set against the run: ``value`` (percent), ``source``, ``gap`` (points),
    ``inside_interval``, ``explained``, ``remainder``, ``main_cause`` ...; None when none was given
    or found."""
    effects: tuple[Effect, ...] = ()
    """The expected effect of each cause in the run, then of each cause outside it (``doctor.effects``)."""
    failures: dict[str, Any] = field(default_factory=dict)
    """Named failure kinds among the unparsed answers (``doctor.failures``)."""
    together: dict[str, Any] | None = None
    """The causes found in the run together, each item counted once (``effects.combine``): what
    the run's own causes may move, published figure or not."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document (docs/doctor.md)."""
        return {"run": self.run, "figure": dict(self.figure), "causes": [c.to_json() for c in self.causes],
                "effects": [e.to_json() for e in self.effects], "failures": dict(self.failures),
                "together": None if self.together is None else dict(self.together),
                "published": None if self.published is None else dict(self.published)}

    def lines(self) -> list[str]:
        """The terminal report: the figure, each cause with its expected effect, the published
        comparison, the causes together and the remainder (``diagnosis_lines``)."""
        return diagnosis_lines(self)

    def __repr__(self) -> str:
        from mmmu_eval.doctor.diagnosis_view import diagnosis_repr

        return diagnosis_repr(self)

    def _repr_html_(self) -> str:
        from mmmu_eval.doctor.diagnosis_view import diagnosis_html

        return diagnosis_html(self)


@dataclass(frozen=True)
class SuiteDiagnosis:
    """A suite: its Table 1 row beside the published one, and one diagnosis per run."""

    suite: str
    """The suite directory diagnosed, as given."""
    table1: dict[str, Any]
    """``ours``: the suite's Table 1 cells in percent (``standard_4``, ``standard_10``, ``vision``,
    ``overall``, ``mmmu_val``; None where not run); ``published``: the published row's ``model``
    and ``scores``, or None."""
    runs: tuple[Diagnosis, ...]
    """One diagnosis per run of the suite, each against its own column of the published row."""

    def to_json(self) -> dict[str, Any]:
        return {"suite": self.suite, "table1": dict(self.table1), "runs": [r.to_json() for r in self.runs]}

    def __repr__(self) -> str:
        from mmmu_eval.results.notebook_view import bounded

        return f"SuiteDiagnosis({bounded(self.suite)}: {len(self.runs)} runs diagnosed)"

    def _repr_html_(self) -> str:
        from mmmu_eval.doctor.diagnosis_view import diagnosis_html

        return "".join(diagnosis_html(run) for run in self.runs)

    def lines(self) -> list[str]:
        row = self.table1
        cells = ", ".join(f"{k} {fixed(v)}" if v is not None else f"{k} -" for k, v in row["ours"].items())
        out = [f"{self.suite}: Table 1 row {cells}"]
        if row.get("published") is not None:
            theirs = ", ".join(f"{k} {fixed(v)}" for k, v in row["published"]["scores"].items())
            source = row["published"].get("source")
            out.append(f"published ({row['published']['model']}{', ' + source if source else ''}): {theirs}")
        for run in self.runs:
            out.append("")
            out.extend(run.lines())
        return out


def effect_text(e: Effect) -> str:
    """``expected +0.34 points (plausible -0.12 to +0.80)``, or that its size is not known; and
    how many of its items count under another cause (each item counts once, ``effects.attribute``)."""
    if e.expected is None:
        return "size not known"
    text = f"expected {fixed(e.expected, 2, signed=True)} points"
    if e.low is not None and e.high is not None and (abs(e.high - e.expected) > 1e-9 or abs(e.expected - e.low) > 1e-9):
        text += f" (plausible {fixed(e.low, 2, signed=True)} to {fixed(e.high, 2, signed=True)})"
    if e.elsewhere:
        names = list(e.elsewhere)
        under = names[0] if len(names) == 1 else ", ".join(f"{k} ({v})" for k, v in e.elsewhere.items())
        text += f"; {sum(e.elsewhere.values())} of its items counted under {under}"
    return text


def unparsed_line(c: Cause, has_options: bool) -> str:
    """The unparsed cause in words; other parsers' figures only where they mean something."""
    d = c.detail
    parts = [f"{d['fallbacks']} {d['parser']} fallbacks, {d['fallback_hits']} of them lucky "
             f"({fixed(d['expected_correct'], 2)} expected)"]
    parsers = dict(d.get("parsers") or {})
    if float(d.get("boxed_share") or 0.0) < MEANINGFUL:
        parsers.pop("boxed", None)  # (almost) no answer holds a box: its figure says nothing
    if float(d.get("answer_line_share") or 0.0) < MEANINGFUL:
        parsers.pop("strict", None)  # (almost) no Answer: line: the strict parser has nothing to read
    if not has_options:
        parsers.clear()  # eval-only predictions with no options: no parser reads them
    if parsers:
        parts.append("; ".join(f"{k} parser {fixed(v['accuracy'], 2)}% ({fixed(v['moves'], 2, signed=True)})"
                               for k, v in parsers.items()))
    return "; ".join(parts)


def _silent(c: Cause, has_options: bool) -> bool:
    """An unparsed cause with no fallback whose only content was other parsers' figures that say
    nothing here (no boxes, no Answer: lines, no options): not printed."""
    return c.cause == "unparsed" and c.items == 0 and ";" not in unparsed_line(c, has_options)


def remainder_sentence(gap: float, explained: float, unsized: list[str]) -> str:
    """The quotable sentence on the part of the gap the causes' expected effects leave, worked out
    from the two figures as printed (``gap +4.56``, ``together ... expected +4.79``), so a reader
    can check it by subtraction."""
    shown_gap, shown = half_up(gap, 2), half_up(explained, 2)
    left = shown_gap - shown
    total = f"{abs(shown_gap):.2f}"
    unknown = (f"; {', '.join(unsized)} could account for part of it, by how much is not known"
               if unsized else "")
    if not shown_gap:
        return "there is no gap to explain"
    if shown * shown_gap <= 0:
        other_way = f": the causes' expected effects point the other way, by {abs(shown):.2f} points" if shown else ""
        return f"none of the {total} points is explained by anything recorded in this run{other_way}{unknown}"
    if not left:
        return f"the causes' expected effects account for the whole {total}-point gap{unknown}"
    if left * shown_gap < 0:
        return (f"the causes' expected effects exceed the {total}-point gap by {abs(left):.2f} points: they move the "
                "figure past the published one")
    return f"{abs(left):.2f} of the {total} points are not explained by anything recorded in this run{unknown}"


def diagnosis_lines(d: Diagnosis) -> list[str]:
    """The terminal report of one run."""
    f = d.figure
    where = f"{f['benchmark']}/{f['setting'] or f['split']}"
    scope = f.get("scope") or {}
    if f.get("gold_available") is False or f.get("no_score") or not f["n"]:
        why = "no gold answers" if f.get("gold_available") is False else f"no score ({f.get('no_score')})"
        out = [f"{d.run}: {f['model']} on {where}: {why}, no figure to diagnose; {scope.get('text', '')}"]
        if d.published is not None:
            out.append(f"published figure not set beside this run: {d.published.get('refused')}")
        return out
    accuracy = pct(Fraction(f["correct"], f["n"]), 2)
    out = [f"{d.run}: {f['model']} on {where}: {accuracy}% ({f['correct']}/{f['n']}), "
           f"95% CI [{fixed(f['ci95'][0], 2)}, {fixed(f['ci95'][1], 2)}]" + (f"; {scope['text']}" if scope else "")]
    effects = {e.cause: e for e in d.effects if e.where == "run"}
    shown = shown_causes(d)
    if not shown:
        out.append("no cause found in the run that could move the figure")
    for c in shown:
        e = effects.get(c.cause)
        size = effect_text(e) if e is not None else ""
        bound = e.bound if e is not None and e.bound is not None else c.points
        out.append(f"  {c.cause:<10} {c.items:>5} items  {size}; worst case {fixed(bound, 2, signed=True)} (a bound)")
        out.append(f"  {'':<10} {unparsed_line(c, bool(f.get('has_options', True))) if c.cause == 'unparsed' else cause_line(c)}")
        if e is not None and e.expected is not None:
            out.append(f"  {'':<10} how: {e.basis}")
        if c.examples:
            out.append(f"  {'':<10} e.g. {', '.join(c.examples)}")
    if d.failures:
        kinds = [f"{failure_text(k, v)} (e.g. {', '.join(v['first'][:3])})" for k, v in d.failures.items() if k != "runaway_how"]
        out.append("  unparsed answers by kind: " + "; ".join(kinds))
    p = d.published
    alone = run_together_text(d)
    if alone is not None:
        out.append("  " + alone)
    if p is not None and p.get("refused"):
        out.append(f"published figure not set beside this run: {p['refused']}")
    elif p is not None:
        out.extend(_published_lines(d, p, scope))
    return out


def shown_causes(d: Diagnosis) -> list[Cause]:
    """The causes printed: an unparsed cause that only carries other parsers' silent figures is not."""
    return [c for c in d.causes if not _silent(c, bool(d.figure.get("has_options", True)))]


def failure_text(kind: str, v: dict[str, Any]) -> str:
    """``empty 101, 96 of them on items with several images``; says so when the run cannot tell."""
    text = f"{kind} {v['count']}"
    multi = v.get("multi_image")
    if multi is not None:
        text += f", {multi} of them with several images"
    elif v.get("multi_image_unknown"):
        text += f", how many with several images not known ({v['multi_image_unknown']})"
    return text


def not_like_for_like(scope: dict[str, Any]) -> str | None:
    """The line that warns a comparison is not on the published figure's items."""
    if scope.get("kind") == "sample":
        return ("not like for like: the run is on the bundled sample, synthetic items, not the benchmark; "
                "the comparison below shows the method only")
    if scope and scope.get("kind") != "full":
        return (f"not like for like: this run is on a {scope['text']}; published figures are on the "
                f"full {scope.get('split', 'split')}")
    return None


def published_head(p: dict[str, Any]) -> str:
    """``published 41.90% (source): outside the run's 95% interval; gap +4.56 points``."""
    inside = "inside" if p["inside_interval"] else "outside"
    return (f"published {fixed(p['value'], 2)}% ({p['source']}): {inside} the run's 95% interval; "
            f"gap {fixed(p['gap'], 2, signed=True)} points")


def together_text(explained: dict[str, Any]) -> str:
    """Every effect combined, each item counted once."""
    return (f"together, each item counted once ({explained['union_items']} items): "
            f"expected {fixed(explained['expected'], 2, signed=True)} points "
            f"(plausible {fixed(explained['low'], 2, signed=True)} to {fixed(explained['high'], 2, signed=True)})")


def run_together_text(d: Diagnosis) -> str | None:
    """Without a published figure: the run's causes together, when two or more of them are sized
    (with one, it is that cause's own line)."""
    if d.published is not None or not d.together:
        return None
    sized = [e for e in d.effects if e.where == "run" and (e.deltas or e.expected)]
    return together_text(d.together) if len(sized) > 1 else None


def main_cause_text(p: dict[str, Any]) -> str | None:
    main = p.get("main_cause")
    if main is None:
        return None
    return (f"main cause: {main['cause']}, expected {fixed(main['expected'], 2, signed=True)} of the "
            f"{fixed(p['gap'], 2, signed=True)}-point gap")


def worst_case_text(p: dict[str, Any]) -> str | None:
    """The worst-case reach, labelled a bound."""
    if not p.get("covered_by"):
        return None
    names = ", ".join(p["covered_by"])
    verb = "could reach" if p["covered"] else f"reach at most {fixed(p['coverable'], 2)} points of"
    return f"worst case (a bound, not an estimate): {names} {verb} the gap if every item they concern flipped"


def row_text(row: dict[str, Any]) -> str:
    """The published row's source and what it says of its protocol (``published.row``)."""
    parts = [f"source of {row['model']}: {row['title']} ({row['url']})"]
    if row.get("protocol"):
        parts.append(f"protocol: {row['protocol']}")
    if row.get("snapshot"):
        parts.append(f"model version {row['snapshot']}")
    if row.get("date"):
        parts.append(f"listed {row['date']}")
    reported = {k: v for k, v in (row.get("reported_by") or {}).items() if v}
    if reported:
        parts.append("reported by " + ", ".join(f"{v} ({k})" for k, v in reported.items()))
    if row.get("link"):
        parts.append(f"model's page {row['link']}")
    return "; ".join(parts)


def _published_lines(d: Diagnosis, p: dict[str, Any], scope: dict[str, Any]) -> list[str]:
    out = []
    warning = not_like_for_like(scope)
    if warning:
        out.append(warning)
    out.append(published_head(p))
    if p.get("compared"):
        out.append(f"  {p['compared']}")
    if p.get("row"):
        out.append(f"  {row_text(p['row'])}")
    for e in d.effects:
        if e.where == "published":
            out.append(f"  {e.cause:<10} (outside the run) {effect_text(e)}: {e.basis}")
    explained = p.get("explained")
    if explained is not None:
        out.append("  " + together_text(explained))
        main = main_cause_text(p)
        if main is not None:
            out.append("  " + main)
        out.append("  " + remainder_sentence(p["gap"], explained["expected"], explained["unsized"]))
    worst = worst_case_text(p)
    if worst is not None:
        out.append("  " + worst)
    return out
