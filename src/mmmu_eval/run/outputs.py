"""The tail of a run: from its stored responses and their scoring to every file derived from them.

    responses + scoring -> statuses -> manifest (status, counts, end) -> results.json
                        -> predictions.jsonl -> submission.json (MMMU test) -> report.html

``evaluate`` (``run``) and ``rescore --out`` both end here, so a rescored directory holds the
same files, decided by the same rules, as one ``run`` leaves: which status a run ends with,
when a submission is written, how the report page is fed. The results stage is imported when
called: a run reaches its first request without loading it (docs/design.md, start-up).

A run read back later gets the same files from the same place: ``save_scoring`` (``score
--save``), ``save_results``, ``write_report_page`` and ``write_submission`` (``report``), so no
command writes a run's outputs its own way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.core.clock import utc_now
from mmmu_eval.core.records import Item, Response
from mmmu_eval.store.rundir import RESPONSES, RunStore

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring
    from mmmu_eval.scoring.spec import ScoringSpec

__all__ = [
    "RunOutputs",
    "SavedScoring",
    "count_statuses",
    "count_statuses_by_id",
    "save_results",
    "save_scoring",
    "write_outputs",
    "write_report_page",
    "write_submission",
]


@dataclass(frozen=True)
class RunOutputs:
    """What ``write_outputs`` wrote, as the caller hands it on."""

    manifest: dict[str, Any]
    """manifest.json as written at the end."""
    results: dict[str, Any]
    """results.json (with its ``harness`` section for a rescored run)."""
    counts: dict[str, int]
    """``items``, ``ok``, ``truncated``, ``error``, ``missing`` over the selected items."""


def write_outputs(
    store: RunStore,
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    *,
    prompts: Mapping[str, str],
    html: bool = True,
    images: bool = True,
    absent: int = 0,
    record_answers_size: bool = False,
) -> RunOutputs:
    """Close the run in ``store``: statuses into the manifest, then every derived file.

    Args:
        store: the run directory, open for writing.
        items, responses, scoring: the selected items, their stored responses, and the scoring
            of exactly those responses (scored once, by the caller).
        prompts: each item's prompt text for the report page (an item's reason when it has none).
        html: write report.html; ``images``: embed the items' images in it.
        absent: items the run should have answered that are not among ``items`` (a harness
            file's missing rows): the run is ``incomplete`` while any is.
        record_answers_size: record the size of responses.jsonl scored (``answers_bytes``), by
            which a rerun of ``run`` knows the run is finished as it left it (``finished.py``).
    """
    from mmmu_eval.results.harness import harness_section
    from mmmu_eval.rendering.run_page import html_chunks
    from mmmu_eval.results.results_json import build_results
    from mmmu_eval.results.submission import is_submitted, submission
    from mmmu_eval.scoring.scorer import predictions_rows

    counts = count_statuses(items, responses)
    status = "complete" if counts["error"] + counts["missing"] + absent == 0 else "incomplete"
    end: dict[str, Any] = {"status": status, "ended_at": utc_now(), "counts": counts}
    if record_answers_size:
        # The size of the answers scored: a finished run is taken as finished only while it holds
        # exactly these (finished.py), whatever the file system's clock resolution.
        end["answers_bytes"] = (store.path / RESPONSES).stat().st_size
    manifest = store.update_manifest(**end)
    harness = harness_section(store.path, manifest, items, scoring, responses)  # None unless rescored
    results = build_results(scoring, items, manifest, responses=responses, harness=harness)
    store.write_json("results.json", results)
    store.write_jsonl("predictions.jsonl", predictions_rows(scoring, responses))
    if is_submitted(results):
        store.write_json("submission.json", submission(scoring, items))
    if html:
        store.write_stream("report.html", html_chunks(results, items, responses, scoring, manifest, prompts=prompts,
                                                      images=images, harness=results.get("harness")))
    return RunOutputs(manifest, dict(results), counts)


def count_statuses(items: Sequence[Item], responses: Mapping[str, Response]) -> dict[str, int]:
    """``items``, ``ok``, ``truncated``, ``error``, ``missing`` over the selected items."""
    return count_statuses_by_id([it.id for it in items], responses)


def count_statuses_by_id(ids: Sequence[str], responses: Mapping[str, Response]) -> dict[str, int]:
    """``count_statuses`` over item ids (an interrupted run counts what it selected)."""
    counts = {"items": len(ids), "ok": 0, "truncated": 0, "error": 0, "missing": 0}
    for item_id in ids:
        response = responses.get(item_id)
        counts["missing" if response is None else response.status] += 1
    return counts


# --- after the run: the same files again, for `score --save` and `report` ----------------------
#
# One rule for results.json, whoever writes it: it holds what the run's *recorded* scoring (the
# manifest's ``scoring`` record) gives, and nothing else. `run` and `rescore --out` write it at
# the end (``write_outputs``); `score --save` records its scoring first and then writes it;
# `report` saves results it had to rebuild, ungraded test runs included, since they are the
# recorded scoring's. A one-off scoring that is not recorded (`score` without --save, `report
# --answers`) is shown and never saved, so results.json and manifest.json cannot disagree.


@dataclass(frozen=True)
class SavedScoring:
    """What ``save_scoring`` did."""

    recorded: bool
    """True when manifest.json's scoring record was written (it changed, or was absent)."""
    written: tuple[Path, ...]
    """The files rewritten: predictions.jsonl, then results.json."""


def save_results(store: RunStore, results: Mapping[str, Any], scored_by: ScoringSpec | None) -> Path | None:
    """Write results.json when ``results`` are the recorded scoring's (the rule above); else None.

    Args:
        store: the run directory, open for writing.
        results: ``build_results`` of a scoring of the run's responses.
        scored_by: the scoring that produced them; None for a one-off one (an answer dict given
            for this call only), which is never saved.
    """
    from mmmu_eval.scoring.spec import ScoringSpec

    if scored_by is None or scored_by != ScoringSpec.from_manifest(store.manifest()):
        return None
    return store.write_json("results.json", results)


def save_scoring(
    store: RunStore,
    spec: ScoringSpec,
    scoring: Scoring,
    responses: Mapping[str, Response],
    results: Mapping[str, Any],
) -> SavedScoring:
    """Make ``spec`` the run's scoring: record it in manifest.json, rewrite predictions.jsonl and results.json."""
    from mmmu_eval.scoring.scorer import predictions_rows
    from mmmu_eval.scoring.spec import MANIFEST_KEY, ScoringSpec

    manifest = store.manifest()
    record = MANIFEST_KEY not in manifest or spec != ScoringSpec.from_manifest(manifest)
    if record:
        store.update_manifest(**{MANIFEST_KEY: spec.to_manifest()})
    predictions = store.write_jsonl("predictions.jsonl", predictions_rows(scoring, responses))
    saved = save_results(store, results, spec)
    assert saved is not None  # recorded just above
    return SavedScoring(record, (predictions, saved))


def write_report_page(
    store: RunStore,
    results: Mapping[str, Any],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
    manifest: Mapping[str, Any],
    *,
    images: bool = True,
    image_budget: int | None = None,
    published: str | float | None = None,
) -> Path:
    """report.html for a run read back (``write_outputs`` writes it at the end of a run);
    ``published``: what its doctor section sets the run against (``report.html.html_chunks``)."""
    from mmmu_eval.rendering.run_page import html_chunks
    from mmmu_eval.results.finished_run import prompts_for

    budget = {} if image_budget is None else {"image_budget": image_budget}
    page = html_chunks(results, items, responses, scoring, manifest,
                       prompts=prompts_for(items, manifest, run_dir=store.path), images=images,
                       harness=results.get("harness"), published=published, **budget)
    return store.write_stream("report.html", page)


def write_submission(store: RunStore, results: Mapping[str, Any], scoring: Scoring,
                     items: Sequence[Item]) -> tuple[Path, int] | None:
    """submission.json (EvalAI) and how many predictions it holds; None for a run that is not
    submitted (only MMMU test is: ``results.submission``)."""
    from mmmu_eval.results.submission import is_submitted, submission

    if not is_submitted(results):
        return None
    sub = submission(scoring, items)
    return store.write_json("submission.json", sub), len(sub)
