"""Augment's text-only check: the filter models answer the 10-option set without images (Figure 5's third bar).

MMMU-Pro (arXiv:2409.02813, Figure 5) measures how far the added distractors bring the
text-only models' accuracy down. ``augment.py`` grows and reviews the options; this module holds
the check it runs after writing them, kept apart because it is a measurement of its own with its
own rules: the models and trials default to the filter step's, an accuracy is shown only for a
model whose every trial answered (the rest are named, to be asked by running the same command
again), and a check kept from an earlier run is marked stale once the 10-option set it measured
has changed (a review, or a rerun with the check off).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mmmu_eval.core.urls import without_credentials
from mmmu_eval.harden.record import Record
from mmmu_eval.harden.step_settings import CheckSettings
from mmmu_eval.harden.trials import Model, TrialSettings, parse_models, run_trials
from mmmu_eval.run.progress import Display

__all__ = ["check_lacks", "text_only_check", "why_stale", "with_credentials"]


async def text_only_check(out: Path, record: Record, digest: str, check: CheckSettings, display: Display | None) -> dict[str, Any] | None:
    """The filter models' text-only accuracy on the augmented set (Figure 5's third bar)."""
    check_models, check_trials = check.models, check.trials
    filter_step = record.step("filter") or {}
    if check_models == "" or (check_models is None and not filter_step.get("models")):
        return None
    if check_models is None:
        given = tuple(check.base_urls or ())
        models = tuple(Model(m["label"], m["spec"], with_credentials(m["base_urls"], given) if m.get("base_urls") else None)
                       for m in filter_step["models"])
    else:
        models = parse_models(check_models)
    trials = check_trials or int(filter_step.get("trials") or 1)
    settings = TrialSettings(trials, int(filter_step.get("seed", 0)), float(filter_step.get("temperature", 1.0)), dict(filter_step.get("run_settings") or {}))
    root = out / "runs" / f"check-{digest[:12]}"
    runs = await run_trials(out, "standard-10", models, settings, root, display=display)
    lacking = runs.lacking()
    return {
        "status": "incomplete" if lacking else "complete",
        "models": [m.to_json() for m in models], "trials": trials, "digest": digest,
        # Shown only where every trial answered; "answered_accuracy" is the share over those that did.
        "accuracy": {m.label: runs.whole_accuracy(m.label) for m in models},
        "answered_accuracy": {m.label: runs.accuracy(m.label) for m in models},
        "runs": [dict(r, path=str(Path(r["path"]).relative_to(out))) for r in runs.runs],
        "unasked_trials": runs.unasked, "failed_trials": runs.failed, "lacking": lacking,
    }


def with_credentials(recorded: Sequence[str], given: Sequence[str]) -> tuple[str, ...]:
    """The recorded endpoints, each one the step was given again with ``user:password@`` taken
    in that form: harden.json never holds credentials, the command line does.

    >>> with_credentials(["http://h:8000/v1", "http://k/v1"], ["http://me:pw@h:8000/v1"])
    ('http://me:pw@h:8000/v1', 'http://k/v1')
    """
    shown = {without_credentials(url): url for url in given}
    return tuple(shown.get(url, url) for url in recorded)


def check_lacks(check: dict[str, Any], out: Path) -> str:
    """The check's trials without an answer, named, and how to finish them."""
    lacking = check["lacking"]
    shown = "; ".join(lacking[:5]) + (f"; and {len(lacking) - 5} more run(s)" if len(lacking) > 5 else "")
    return (f"the check is incomplete: {check['failed_trials']} trial(s) failed and {check['unasked_trials']} were not asked "
            f"({shown}); no accuracy is shown for a model until all its trials answer. "
            f"Run the same command again to ask them: {out}")


def why_stale(check: dict[str, Any], digest: str) -> str | None:
    """Why a check kept from an earlier run does not measure the 10-option set now written, if it does not."""
    if check.get("digest") == digest:
        return None
    return ("its accuracy was measured on the 10-option set before its latest change (a review, or another "
            "augment run with the check off); run the same augment command without --no-check to measure this one")
