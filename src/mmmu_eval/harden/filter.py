"""Step 1, ``filter``: drop the questions text-only models answer, then sample per subject.

MMMU-Pro (Yue et al., arXiv:2409.02813, section 2.2): four strong text-only LLMs answered every
question ten times without its images; a question is *answerable* by a model right in more
than half of its trials, and is *excluded* when at least three of the four models find it
answerable; 60 questions per subject were then sampled from what remained.

Here the same, with the numbers as settings: ``trials`` (10), ``min_models`` (default
``ceil(3/4 x models)``: the paper's 3 of 4, and 1 of 1, 2 of 2, 3 of 3, 4 of 5, 5 of 6 ...),
``per_subject`` (60; 0 keeps all) sampled with ``seed``. The trials are ordinary runs
(``trials.py``), so a 460,000-request filter uses the runner's concurrency and endpoints and
survives a restart.

A trial that failed leaves its question *undecided* unless the other trials already settle it
(more than half right, or too few left to get there); an undecided question is left out with
its reason, the step is *incomplete* (naming the trial runs that lack answers, and showing no
accuracy for their models), and running the same command again asks the failed trials again. While any trial
is unasked (a run stopped early) nothing is written but the record: the set is not finished.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden.outdir import StepResult, config_entry, one_writer, open_out, settle_later_steps
from mmmu_eval.harden.problems import Problem
from mmmu_eval.harden.record import RECORD, versions
from mmmu_eval.harden.harden_report import REPORT, write_report
from mmmu_eval.harden.step_settings import FilterSettings, SourceSettings
from mmmu_eval.harden.source import content_digest, read_source
from mmmu_eval.harden.trials import Model, Outcome, TrialSettings, parse_models, run_trials, trials_finished
from mmmu_eval.harden.writer import config_file, standard_row, write_config
from mmmu_eval.run.progress import Display
from mmmu_eval.run.resolve import RunConfigArgs
from mmmu_eval.core.records import Item

__all__ = ["FilterRule", "decide", "default_min_models", "harden_filter", "harden_filter_async", "sample_per_subject"]

#: ``run_trials``'s signature: (staging set, setting, models, settings, runs root, display=) ->
#: ``trials.TrialRuns`` (typed loosely: an internal hook, its types are not the public API's).
TrialRunner = Callable[..., Awaitable[Any]]


def default_min_models(n_models: int) -> int:
    """The paper's 3 of 4 scaled to ``n_models``: ``ceil(3 n / 4)``."""
    return max(1, math.ceil(3 * n_models / 4))


@dataclass(frozen=True)
class FilterRule:
    """When a model finds a question answerable, and when a question is excluded."""

    trials: int
    min_models: int
    models: int

    def __post_init__(self) -> None:
        if not 1 <= self.min_models <= self.models:
            raise ConfigError(f"--min-models must be between 1 and the number of models ({self.models}), not {self.min_models}")

    def answerable(self, outcome: Outcome) -> bool | None:
        """Right in more than half of the trials: True, False, or None while failed trials could tip it."""
        need = self.trials // 2 + 1
        if outcome.correct >= need:
            return True
        if outcome.correct + outcome.failed < need:
            return False
        return None

    def describe(self) -> str:
        scaled = self.min_models == default_min_models(self.models)
        basis = (
            "the paper's rule" if (self.models, self.min_models) == (4, 3)
            else "the paper's 3 of 4 scaled: ceil(3/4 x models)" if scaled else "set by --min-models"
        )
        return (
            f"answerable by a model right in more than {self.trials // 2} of {self.trials} trials; excluded "
            f"when answerable by at least {self.min_models} of {self.models} models ({basis})"
        )


def decide(items: Sequence[Item], outcomes: dict[str, dict[str, Outcome]], rule: FilterRule) -> dict[str, dict[str, Any]]:
    """Each question's filter entry: every model's trials and verdict, then kept, excluded or undecided."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        per_model = {}
        votes: list[bool | None] = []
        for label, per in outcomes.items():
            o = per[item.id]
            verdict = rule.answerable(o)
            votes.append(verdict)
            per_model[label] = {"preds": o.preds, "correct": o.correct, "answered": o.answered, "failed": o.failed, "answerable": verdict}
        sure, unsure = votes.count(True), votes.count(None)
        if sure >= rule.min_models:
            decision, reason = "excluded", f"answerable without its images by {sure} of {rule.models} models (>= {rule.min_models})"
        elif sure + unsure < rule.min_models:
            decision, reason = "kept", f"answerable without its images by {sure} of {rule.models} models (< {rule.min_models})"
        else:
            failing = ", ".join(f"{label} {v['failed']} of {rule.trials}" for label, v in per_model.items() if v["answerable"] is None)
            decision, reason = "undecided", f"trials failed ({failing}) and could tip the decision; run the same command again to ask them"
        out[item.id] = {"models": per_model, "answerable_by": sure, "decision": decision, "reason": reason}
    return out


def sample_per_subject(items: Sequence[Item], per_subject: int | None, seed: int) -> tuple[set[str], dict[str, int]]:
    """The ids kept by sampling ``per_subject`` per subject (all when None or 0), and each subject's count before.

    Each subject draws from its own generator (``"{seed}:sample:{subject}"``), so a subject's
    sample does not depend on the others.
    """
    by_subject: dict[str, list[str]] = defaultdict(list)
    for item in items:
        by_subject[item.subject].append(item.id)
    chosen: set[str] = set()
    for subject, ids in sorted(by_subject.items()):
        if not per_subject or len(ids) <= per_subject:
            chosen.update(ids)
        else:
            chosen.update(random.Random(f"{seed}:sample:{subject}").sample(ids, per_subject))
    return chosen, {s: len(v) for s, v in sorted(by_subject.items())}


@one_writer("filter")
async def harden_filter_async(
    data: str | Path,
    out: str | Path,
    settings: FilterSettings,
    *,
    seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
    trial_runner: TrialRunner | None = None,
) -> StepResult:
    """Filter ``data`` into ``out``; see the module doc. The synchronous face is ``harden_filter``.

    Args:
        data: ``sample``, ``hub``, a directory or a ``.jsonl`` file (``source.read_source``).
        out: the output directory (``outdir.open_out`` says which may be used).
        settings: the models, their trials, the rule and the sample (module doc).
        seed: seeds the trials and the sample.
        run_settings: further RunConfig fields for every trial (concurrency, max_attempts ...).
        source: which questions of ``data`` are read (default all).
        display: progress over all trials (default a bar on stderr).
        trial_runner: asks the trials (default ``trials.run_trials``, with its arguments); under
            torchrun, rank 0's asks every rank's shard and merges them first (``harden/filter_ranks.py``).

    Returns:
        The StepResult; ``exit_status`` 1 when trials remain or items were left out.

    >>> result = harden_filter("sample", "hard", FilterSettings(models="frequent,frequent,frequent,random", trials=2),
    ...                        source=SourceSettings(limit=8))
    >>> result.status, result.exit_status
    ('complete', 0)
    """
    models, trials, min_models, per_subject = settings.models, settings.trials, settings.min_models, settings.per_subject
    temperature, base_urls, read = settings.temperature, settings.base_urls, source or SourceSettings()
    chosen = models if models and isinstance(models, (list, tuple)) and isinstance(models[0], Model) else parse_models(models, base_urls)  # type: ignore[arg-type]
    trial_settings = TrialSettings(trials, seed, 1.0 if temperature is None else temperature, dict(run_settings or {}))
    rule = FilterRule(trials, default_min_models(len(chosen)) if min_models is None else min_models, len(chosen))
    if per_subject is not None and per_subject < 0:
        raise ConfigError(f"--per-subject must be at least 0 (0 keeps every question), not {per_subject}")
    source = read_source(data, split=read.split, subjects=read.subjects, limit=read.limit,
                         default_subject=read.default_subject)
    if not source.items:
        raise ConfigError(f"--data {data}: no usable item ({len(source.problems)} left out: {'; '.join(map(str, source.problems[:3]))})")
    out, record = open_out(out, source, "filter")

    staging = out / "work" / "filter-input"
    input_problems = list(source.problems)
    digest = source.describe()["digest"]
    previous = record.step("filter") or {}
    if previous.get("input", {}).get("digest") != digest or not config_file(staging, "standard-4").exists():
        written = write_config(staging, "standard-4", source.items, standard_row, step="input")
        input_problems += written.problems
    else:
        input_problems += [p for p in record.left_out("input") if p not in input_problems]
    section: dict[str, Any] = {
        "status": "running",
        "input": source.describe(),
        "models": [m.to_json() for m in chosen],
        "trials": trials,
        "temperature": trial_settings.temperature,
        "seed": seed,
        "prompt": "forced-choice (ours, not official: prompt/mmmu_pro_templates.py FORCED_CHOICE_INSTRUCTION)",
        "scoring": "official MMMU-Pro parser, no random fallback (an answer without a letter is wrong)",
        "rule": rule.describe(),
        "min_models": rule.min_models,
        "per_subject": per_subject or None,
        "sample_seed": seed,
        "run_settings": dict(trial_settings.run),
        "versions": versions(),
    }
    if _finished(previous, section, staging, chosen, trial_settings, out):
        # Everything this call would decide is decided and written already: say so, touch nothing.
        return StepResult(out, record, "filter", "complete", (*record.left_out("input"), *record.left_out("filter")), ())
    record.set_step("filter", section)
    record.set_left_out("input", input_problems)
    record.save(out)

    runs = await (trial_runner or run_trials)(staging, "standard-4", chosen, trial_settings, out / "runs" / "filter",
                                              display=display)
    section["runs"] = [dict(r, path=str(Path(r["path"]).relative_to(out))) for r in runs.runs]
    if runs.unasked:
        section.update(status="incomplete", unasked_trials=runs.unasked)
        record.save(out)
        message = (
            f"{runs.unasked} trial(s) were not asked (a server stopped answering, or the run was stopped); "
            f"nothing was decided. Run the same command again to continue: {out}"
        )
        return StepResult(out, record, "filter", "incomplete", tuple(input_problems), (message,))

    decisions = decide(runs.items, runs.outcomes, rule)
    candidates = [it for it in runs.items if decisions[it.id]["decision"] == "kept"]
    sampled, before = sample_per_subject(candidates, per_subject, seed)
    kept = [it for it in candidates if it.id in sampled]
    for item in runs.items:
        entry = record.item(item.id)
        entry["subject"] = item.subject
        decision = decisions[item.id]
        if decision["decision"] == "kept" and item.id not in sampled:
            decision["sampled"] = False
            decision["reason"] += f"; not in the sample ({item.subject} had {before[item.subject]} kept, {per_subject} drawn)"
        elif decision["decision"] == "kept":
            decision["sampled"] = True
        entry["filter"] = decision
    undecided = [
        Problem(i, "filter", d["reason"], "undecided") for i, d in decisions.items() if d["decision"] == "undecided"
    ]
    written = write_config(out, "standard-4", kept, standard_row, step="filter")
    kept_ids = set(written.ids)
    labels = [m.label for m in chosen]
    lacking = runs.lacking()
    section.update(
        status="incomplete" if lacking else "complete",
        lacking=lacking,
        counts={
            "asked": len(runs.items),
            "excluded": sum(1 for d in decisions.values() if d["decision"] == "excluded"),
            "undecided": len(undecided),
            "kept_before_sampling": len(candidates),
            "not_sampled": len(candidates) - len(kept),
            "kept": len(written.ids),
            "failed_trials": runs.failed,
        },
        kept_per_subject={s: sum(1 for it in kept if it.subject == s and it.id in kept_ids) for s in before},
        accuracy={
            label: {
                # None while some trial of the model lacks its answer (see TrialRuns.whole_accuracy).
                "original": runs.whole_accuracy(label),
                "filtered": runs.whole_accuracy(label, [i for i in written.ids]),
            }
            for label in labels
        },
    )
    record.set_left_out("filter", [*undecided, *written.problems])
    settle_later_steps(out, record, "filter", content_digest(kept))
    record.data["configs"]["standard (4 options)"] = config_entry(written.ids, content_digest(kept), step="filter")
    record.save(out)
    write_report(out, record)
    problems = (*input_problems, *undecided, *written.problems)
    messages = []
    if lacking:
        shown = "; ".join(lacking[:5]) + (f"; and {len(lacking) - 5} more run(s)" if len(lacking) > 5 else "")
        messages.append(f"{runs.failed} trial(s) failed after their retries ({shown}); their questions are undecided "
                        f"unless the other trials settle them, and no accuracy is shown for those models. "
                        f"Run the same command again to ask them again: {out}")
    return StepResult(out, record, "filter", "incomplete" if lacking else "complete", problems, tuple(messages))


def _finished(previous: dict[str, Any], section: dict[str, Any], staging: Path, models: Sequence[Model],
              settings: TrialSettings, out: Path) -> bool:
    """Whether the filter in ``out`` is complete under exactly these settings and input, with its
    every trial run finished, and its output written after the last of them.

    Then a rerun would decide the same and write the same bytes: confirming it reads the
    manifests of the trial runs, not their 460,000 answers (``trials.trials_finished``).
    """
    if previous.get("status") != "complete" or previous.get("lacking"):
        return False
    same = ("input", "models", "trials", "temperature", "seed", "rule", "min_models", "per_subject", "run_settings", "versions")
    if any(previous.get(k) != section.get(k) for k in same):
        return False
    newest = trials_finished(staging, "standard-4", models, settings, out / "runs" / "filter")
    written = [config_file(out, "standard-4"), out / RECORD, out / REPORT]
    return newest is not None and all(f.is_file() and f.stat().st_mtime_ns >= newest for f in written)


def harden_filter(
    data: str | Path,
    out: str | Path,
    settings: FilterSettings,
    *,
    seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
) -> StepResult:
    """``harden_filter_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_filter_async(
        data, out, settings, seed=seed, run_settings=run_settings, source=source, display=display))
