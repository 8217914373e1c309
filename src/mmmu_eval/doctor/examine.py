"""One run examined: its figure, the causes that could move it, their expected effects, the
named failures among its unparsed answers and, against a published figure, the causes outside
the run, the causes together (each item once) and the remainder nothing explains.

The ``Diagnosis`` (``doctor/diagnosis.py``, the record with its sentences) is built here, below
the pages, from the pieces a run's outputs already hold (results,
manifest, items, responses, scoring), so the one ``Diagnosis`` is what ``mmmu-eval doctor``
prints (``Diagnosis.lines``) and what ``report.html`` shows (``rendering/html_causes.py``): neither
computes it again. ``diagnose_run`` reads a run directory back and calls ``diagnosis_of`` (the
doctor command, ``commands.diagnose``, for a run or each run of a suite); the run's outputs call
it with what they have in memory.

The worst-case bound of earlier versions stays (``covered_by``: the causes, largest first,
until every item they concern flipping reaches the gap), labelled as a bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Item, Response
from mmmu_eval.doctor.causes import Cause, find_causes
from mmmu_eval.doctor.diagnosis import Diagnosis
from mmmu_eval.doctor.effects import PRIORITY, Effect, attribute, combine, run_effects
from mmmu_eval.doctor.failures import failure_kinds
from mmmu_eval.core.numbers import percent, points, rounded
from mmmu_eval.doctor.outside import compared_line, outside_effects, run_model_name
from mmmu_eval.published.figures import Published, find_published, per_prompt, score_key, sources
from mmmu_eval.results.caveats import void_reason
from mmmu_eval.results.scope import scope_of_results
from mmmu_eval.scoring.scorer import Scoring

__all__ = ["diagnose_run", "diagnosis_of", "named_row", "published_row", "published_value"]


def published_row(value: str | float, benchmark: str, split: str | None,
                  setting: str | None) -> tuple[float, str, Published | None]:
    """A published figure (percent), where it is from, and its row (None for a number as given).

    Raises:
        ConfigError: not a percentage, or a name matching no model (or several) published for
            this benchmark variant.
    """
    number = _number(value)
    if number is not None:
        if not 1.0 < number <= 100.0:
            raise ConfigError(f"--published {value!r}: give the published accuracy in percent (58.6), "
                              "above 1 and at most 100 (a fraction such as 0.586 is read as a mistake)")
        return number, "given", None
    row = find_published(str(value), score_key(benchmark, split, setting))
    return row.percent, f"{row.model}, {sources()[row.source].title}", row


def named_row(results: Mapping[str, Any]) -> Published | None:
    """The published row whose model name is exactly the run's (case, spaces, hyphens and
    underscores ignored; a rescored file's ``_<mode>_<Setting>`` tail taken off), or None: what
    the report page sets the run against when it is not told a figure. Only an exact name, never
    a part of one: a page must not compare a run with another model."""
    run = results.get("run") or {}
    name = run_model_name(run.get("model"))
    if not name:
        return None
    official = per_prompt(name)  # an official output file's model: its Table 1 row, as that summary pairs them
    key = score_key(results["benchmark"], results.get("split"), results.get("setting"))
    for wanted in ([official["table1"]] if official else []) + [name]:
        try:
            row = find_published(wanted, key, exact=True)
        except ConfigError:
            continue
        return row if not row.baseline else None
    return None


def _number(value: object) -> float | None:
    """``58.6``, ``"58.6"`` or ``"58.6%"`` as a float; None for a model name."""
    try:
        return float(str(value).strip().rstrip("%"))
    except ValueError:
        return None


def _against(value: float, source: str, figure: Mapping[str, Any], causes: Sequence[Cause],
             bounds: Mapping[str, float] | None = None) -> dict[str, Any]:
    low, high = figure["ci95"]
    gap = value - figure["accuracy"]
    n = figure["n"] or 1
    items: set[str] = set()
    unscored = 0.0
    covered_by: list[str] = []
    reach = 0.0
    for cause in causes:
        bound = cause.points if gap >= 0 else cause.points_down
        if bounds is not None and cause.cause in bounds:
            bound = min(bound, bounds[cause.cause])  # a token limit that cut nothing can move nothing
        if abs(gap) < 1e-9 or bound <= 0:
            continue
        covered_by.append(cause.cause)
        concerned = cause.wrong if gap >= 0 else cause.right
        if concerned:
            items |= concerned  # an item two causes share is counted once
        else:
            unscored += bound
        reach = 100.0 * len(items) / n + unscored
        if reach >= abs(gap) - 1e-9:
            break
    # covered_by / coverable / covered are worst-case bounds (every concerned item flipping), not estimates
    return {"value": value, "source": source, "inside_interval": low - 1e-9 <= value <= high + 1e-9,
            "gap": rounded(points(value, figure["accuracy"]), 4), "covered_by": covered_by, "coverable": rounded(reach, 4),
            "covered": reach >= abs(gap) - 1e-9}


def _figure(results: Mapping[str, Any], manifest: Mapping[str, Any], items: Sequence[Item]) -> dict[str, Any]:
    overall = results["overall"]
    no_score = void_reason(results)  # no scored item: no figure and no interval, never 0 in [0, 100]
    return {
        "benchmark": results["benchmark"], "split": results.get("split"), "setting": results.get("setting"),
        "model": results["run"].get("model"), "accuracy": None if no_score else percent(overall["accuracy"], 4),
        "correct": overall["correct"], "n": overall["n"],
        "ci95": None if no_score else [percent(x, 4) for x in overall["ci95"]],
        "no_score": no_score,
        "official_protocol": results["run"].get("official"), "rescored_from": results["run"].get("rescored_from"),
        "gold_available": results.get("gold_available", True),
        "scope": scope_of_results(results, manifest).to_json(),
        # eval-only predictions are letters without their items' options: no parser reads them
        "has_options": any(it.options for it in items),
    }


def diagnosis_of(
    run: str,
    results: Mapping[str, Any],
    manifest: Mapping[str, Any],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    *,
    published: str | float | None = None,
    other: Mapping[str, Any] | None = None,
) -> Diagnosis:
    """The diagnosis of one run from its pieces (``run``: how the run is named, its directory).

    ``published``: a percentage or a model name (``published_row``). ``other``: the same
    setting's run with the other prompt, in a suite (``{"mode", "accuracy", "inrun",
    "this_inrun"}``), which sizes ``best_of``.

    Raises:
        ConfigError: ``published`` names no model published for the run's benchmark variant.
        MmmuEvalError: the manifest's scoring or protocol cannot be read again.
    """
    figure = _figure(results, manifest, items)
    if figure["no_score"]:  # nothing scored: no figure to move, so no cause is sized against it
        against = None
        if published is not None:
            value, source, _row = published_row(published, figure["benchmark"], figure["split"], figure["setting"])
            against = {"value": value, "source": source, "refused": f"the run has no score ({figure['no_score']})"}
        return Diagnosis(run, figure, (), against)
    causes = tuple(find_causes(results, manifest, items, responses, scoring))
    effects = run_effects(causes, items, responses, scoring, results)
    failures = failure_kinds(items, responses, scoring, results)
    together = {k: (rounded(v, 4) if isinstance(v, float) else v) for k, v in combine(effects, figure["n"]).items()}
    against = None
    if published is not None:
        value, source, row = published_row(published, figure["benchmark"], figure["split"], figure["setting"])
        # Asked for by name or number: given, with the scope beside it when it is not the full split.
        against = _against(value, source, figure, causes,
                           {e.cause: e.bound for e in effects if e.where == "run" and e.bound is not None})
        src = sources()[row.source] if row is not None else None
        verdicts = scoring.verdicts[scoring.parsers[0]]
        correct = {i: bool(v.correct) for i, v in verdicts.items()}
        # the causes outside the run come last in PRIORITY: the run's own effects keep their sizes
        effects = attribute(effects + outside_effects(figure, manifest, items, correct, row, src,
                                                      in_run=[c.cause for c in causes], other=other), figure["n"])
        against["compared"] = compared_line(figure, manifest, row, src)
        against.update(_explained(against["gap"], effects, figure["n"]))
        if row is not None and src is not None:
            against["row"] = _row_notes(row, src)
    return Diagnosis(run, figure, causes, against, tuple(effects), failures, together)


def _row_notes(row: Published, src: Any) -> dict[str, Any]:
    """Where the published row is from and what its source says of its protocol."""
    notes: dict[str, Any] = {"model": row.model, "source": row.source, "title": src.title, "url": src.url,
                             "protocol": (src.protocol or {}).get("note")}
    if row.snapshot:
        notes["snapshot"] = row.snapshot
    notes.update(row.details)
    return notes


def _explained(gap: float, effects: Sequence[Effect], n: int) -> dict[str, Any]:
    """The causes' expected effects together, and the remainder of the gap no cause explains."""
    together = combine(effects, n)
    remainder = gap - together["expected"]
    toward = [e for e in effects if e.expected is not None and e.expected * gap > 0]
    rank = {name: k for k, name in enumerate(PRIORITY)}
    main = max(toward, key=lambda e: (round(abs(e.expected or 0.0), 9), -rank.get(e.cause, len(rank))), default=None)
    return {"explained": {k: (rounded(v, 4) if isinstance(v, float) else v) for k, v in together.items()},
            "remainder": rounded(remainder, 4),
            "main_cause": None if main is None else {"cause": main.cause, "expected": rounded(main.expected or 0.0, 4)}}


def published_value(value: str | float, benchmark: str, split: str | None, setting: str | None) -> tuple[float, str]:
    """A published figure (percent) and where it is from: a number as given, or a model's published row.

    Raises:
        ConfigError: the name matches no model (or several) published for this benchmark variant.
    """
    number, source, _row = published_row(value, benchmark, split, setting)
    return number, source


def diagnose_run(run_dir: str | Path, *, published: str | float | None = None,
                 other: Mapping[str, Any] | None = None) -> Diagnosis:
    """The diagnosis of one run directory (a run, a suite's run, a ``rescore --out`` directory),
    read back as ``report`` reads it (``results.finished_run``) and built by ``diagnosis_of``,
    the same function that feeds the run's page.

    ``other``: the same setting's run with the other prompt, in a suite (``{"mode", "accuracy",
    "inrun", "this_inrun"}``), which sizes ``best_of``.
    """
    from mmmu_eval.results.finished_run import read_run

    loaded = read_run(run_dir, details=True)
    assert loaded.items is not None and loaded.responses is not None and loaded.scoring is not None
    return diagnosis_of(str(run_dir), loaded.results, loaded.manifest, loaded.items, loaded.responses,
                        loaded.scoring, published=published, other=other)
