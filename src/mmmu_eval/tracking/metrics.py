"""The figures of a finished run and of a suite, as scoped metric names, read from what they wrote.

A run's figures come from its results.json; a suite's from suite.json (Table 1, the CoT and OCR
effects) plus each of its runs' results.json. Every name starts with its scope's kind
(``results/scope.py``): ``full``, ``sampled``, ``subset``, ``shard``, ``partial`` or ``sample`` (the
bundled synthetic items), so a figure says what it was computed on wherever a dashboard shows it.

What is void is left out, never logged as 0, and said in ``not_logged``: every accuracy of a run
without gold answers (the MMMU test split without ``--answers``), a breakdown cell with no scored
item, a Table 1 cell or effect that suite.json leaves null (with suite.json's reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mmmu_eval.results.caveats import how_to_score, ungraded, void, void_reason
from mmmu_eval.tracking.log_record import Param, flat_params, metric_name

__all__ = ["Figures", "run_figures", "run_params", "run_tags", "suite_figures"]

#: Scope kind of a results.json written before scopes were recorded.
UNSCOPED = "unscoped"


@dataclass
class Figures:
    """Metrics by name, and what was left out and why."""

    metrics: dict[str, float] = field(default_factory=dict)
    not_logged: list[str] = field(default_factory=list)

    def put(self, value: object, *parts: str) -> None:
        """One metric, when ``value`` is a number (None: nothing to log)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self.metrics[metric_name(*parts)] = float(value)

    def row(self, row: Mapping[str, Any] | None, *parts: str) -> None:
        """A results row (``n``, ``correct``, ``accuracy``, ``ci95``); an empty one is left out, said."""
        if not row or not row.get("n"):
            self.not_logged.append(f"{metric_name(*parts)}: no scored item")
            return
        self.put(row.get("accuracy"), *parts, "accuracy")
        self.put(row.get("n"), *parts, "n")
        self.put(row.get("correct"), *parts, "correct")
        self.interval(row.get("ci95"), *parts)

    def interval(self, ci95: Any, *parts: str) -> None:
        """``[low, high]`` as ``.../ci95_low`` and ``.../ci95_high``; nothing when there is none."""
        if ci95:
            self.put(ci95[0], *parts, "ci95_low")
            self.put(ci95[1], *parts, "ci95_high")


def scope_kind(results: Mapping[str, Any]) -> str:
    return str((results.get("scope") or {}).get("kind") or UNSCOPED)


def run_figures(results: Mapping[str, Any], *, within: str | None = None) -> Figures:
    """A run's figures from its results.json; ``within``: the run's name inside a suite."""
    figures = Figures()
    head = (scope_kind(results),) + ((within,) if within else ())
    _counts(figures, results, head)
    if ungraded(results):
        figures.not_logged.append(f"{metric_name(*head)}: every accuracy, as the run has no gold answers "
                                  f"(void, not 0); {how_to_score(results)}")
        return figures
    if void(results):  # 0 of 0 is no figure: none of the accuracies is one
        figures.not_logged.append(f"{metric_name(*head, 'overall')}: no scored item ({void_reason(results)})")
        return figures
    figures.row(results.get("overall"), *head, "overall")
    for discipline, row in (results.get("by_discipline") or {}).items():
        figures.row(row, *head, "discipline", discipline)
    for subject, row in (results.get("by_subject") or {}).items():
        figures.row(row, *head, "subject", subject)
    parse = results.get("parse") or {}  # fallbacks are drawn for graded answers only
    for key in ("fallbacks", "fallback_rate"):
        figures.put(parse.get(key), *head, "parse", key)
    figures.put(parse.get("deterministic_accuracy"), *head, "overall", "deterministic_accuracy")
    figures.put(parse.get("expected_accuracy"), *head, "overall", "expected_accuracy")
    for parser, row in (results.get("parsers") or {}).items():
        if row.get("n"):
            figures.put(row.get("accuracy"), *head, "parser", parser, "accuracy")
            figures.put(row.get("correct"), *head, "parser", parser, "correct")
    _harness(figures, results.get("harness"), head)
    _sample(figures, results.get("sample"), head)
    return figures


def _counts(figures: Figures, results: Mapping[str, Any], head: tuple[str, ...]) -> None:
    """Counts that hold with or without gold answers: coverage, answers with no answer found, usage and cost."""
    coverage = results.get("coverage") or {}
    for key in ("items", "scored", "errors", "missing", "truncated", "ungraded"):
        figures.put(coverage.get(key), *head, "coverage", key)
    figures.put((results.get("parse") or {}).get("unparsed"), *head, "parse", "unparsed")
    usage = results.get("usage") or {}
    for key in ("requests", "retries", "errors", "prompt_tokens", "completion_tokens", "reasoning_tokens"):
        figures.put(usage.get(key), *head, "usage", key)
    for key, value in (usage.get("latency_s") or {}).items():
        figures.put(value, *head, "usage", f"latency_{key}_s")
    figures.put((usage.get("cost") or {}).get("total_usd"), *head, "usage", "cost_usd")


def _harness(figures: Figures, harness: Mapping[str, Any] | None, head: tuple[str, ...]) -> None:
    """A rescored run: the other harness's own verdicts beside ours on the same items."""
    if not harness or not harness.get("n"):
        return
    name = harness.get("name") or "harness"
    figures.put(harness.get("accuracy"), *head, "harness", name, "own_accuracy")
    figures.put(harness.get("official_accuracy"), *head, "harness", name, "official_accuracy")
    figures.put(harness.get("difference"), *head, "harness", name, "difference")
    figures.put(harness.get("n"), *head, "harness", name, "n")
    figures.put(harness.get("differing"), *head, "harness", name, "differing")
    figures.put((harness.get("recorded") or {}).get("accuracy"), *head, "harness", name, "recorded_accuracy")


def _sample(figures: Figures, sample: Mapping[str, Any] | None, head: tuple[str, ...]) -> None:
    """``run --sample K``: the bounds and estimates for the full set, named as such (not its figure)."""
    if not sample:
        return
    bounds = sample.get("full_set_interval95")
    if bounds:
        figures.put(bounds[0], *head, "full_set_estimate", "interval95_low")
        figures.put(bounds[1], *head, "full_set_estimate", "interval95_high")
    for estimate in sample.get("estimates") or ():
        name = estimate.get("estimator") or "estimate"
        figures.put(estimate.get("estimate"), *head, "full_set_estimate", name, "estimate")
        low, high = (estimate.get("interval95") or (None, None))[:2]
        figures.put(low, *head, "full_set_estimate", name, "interval95_low")
        figures.put(high, *head, "full_set_estimate", name, "interval95_high")


def run_params(manifest: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Param]:
    """The configuration, protocol (without its template texts), scoring, data and backend."""
    params = flat_params("config", manifest.get("config") or {})
    params.update(flat_params("protocol", manifest.get("protocol") or {}, skip=("templates", "notes")))
    params.update(flat_params("scoring", manifest.get("scoring") or {}))
    params.update(flat_params("dataset", manifest.get("dataset") or {}, skip=("files", "problems")))
    params.update(flat_params("backend", manifest.get("backend") or {}))
    params.update(flat_params("interval", results.get("interval") or {}))
    if manifest.get("package_version"):
        params["package_version"] = str(manifest["package_version"])
    return params


def run_tags(manifest: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, str]:
    """What a dashboard filters on: scope, benchmark, split or setting, model, prompt, status, official."""
    scope = results.get("scope") or {}
    run = results.get("run") or {}
    tags = {
        "mmmu_eval.scope": scope_kind(results),
        "mmmu_eval.scope_text": str(scope.get("text") or "no scope recorded (results.json older than scopes)"),
        "mmmu_eval.benchmark": str(results.get("benchmark")),
        "mmmu_eval.split": str(results.get("split")),
        "mmmu_eval.model": str(run.get("model")),
        "mmmu_eval.prompt": str(run.get("prompt_mode")),
        "mmmu_eval.status": str(manifest.get("status")),
        "mmmu_eval.official": str(run.get("official")).lower(),
    }
    if results.get("setting"):
        tags["mmmu_eval.setting"] = str(results["setting"])
    if run.get("rescored_from"):
        tags["mmmu_eval.rescored_from"] = str(run["rescored_from"])
    if void(results):
        tags["mmmu_eval.void"] = f"{void_reason(results)}: accuracies not logged (void, not 0)"
    return tags


def suite_figures(summary: Mapping[str, Any]) -> Figures:
    """Table 1, the CoT and OCR effects of suite.json; a null cell is left out with its reason."""
    figures = Figures()
    head = str((summary.get("scope") or {}).get("kind") or UNSCOPED)
    table1 = summary.get("table1") or {}
    reasons = table1.get("reasons") or {}
    for key in ("standard_4", "standard_10", "vision", "overall", "mmmu_val", "delta_1", "delta_2", "delta_3"):
        if key not in table1:
            continue
        cell = table1[key]
        if cell is None:
            figures.not_logged.append(f"{metric_name(head, 'table1', key)}: {reasons.get(key) or 'no figure'}")
            continue
        figures.put(cell.get("value"), head, "table1", key, "value")
        for name in ("n", "correct"):
            figures.put(cell.get(name), head, "table1", key, name)
        figures.interval(cell.get("ci95"), head, "table1", key)
    for section, other in (("cot_effect", "cot"), ("ocr_effect", "ocr")):
        block = summary.get(section) or {}
        for setting, effect in block.items():
            if setting == "reasons":
                continue
            if effect is None:
                reason = (block.get("reasons") or {}).get(setting) or "no figure"
                figures.not_logged.append(f"{metric_name(head, section, setting)}: {reason}")
                continue
            difference = effect.get("difference") or {}
            figures.put(difference.get("value"), head, section, setting, "difference")
            figures.interval(difference.get("ci95"), head, section, setting, "difference")
            figures.put(effect.get("mcnemar_p"), head, section, setting, "mcnemar_p")
            figures.put((effect.get("direct") or {}).get("value"), head, section, setting, "direct")
            figures.put((effect.get(other) or {}).get("value"), head, section, setting, other)
    return figures
