"""A rescored run's other harness: its verdicts on disk, the ``harness`` section, its terminal lines.

``mmmu-eval rescore --out`` keeps the harness's own verdicts in ``harness.jsonl`` (one line per
item: ``{id, correct, pred, gold, judge, fallback, as_choice, note, prompt}``) and what the harness
is in the manifest (``rescored_from``). Whichever command scores the run again (``score``,
``report`` when it rebuilds results.json) rebuilds the ``harness`` section of results.json from
them with ``scoring/explain.py``, so the explanation always describes the current scoring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.core.records import Item, Response
from mmmu_eval.core.numbers import pct
from mmmu_eval.scoring.explain import explain
from mmmu_eval.scoring.harness_verdicts import FAILURES, HarnessVerdict, RecordedScore, failures
from mmmu_eval.core.manifest import Manifest
from mmmu_eval.core.untrusted import capped_or_none

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring

#: The file's name in a run directory.
HARNESS = "harness.jsonl"
#: The manifest key that says where a rescored run's responses came from.
MANIFEST_KEY = "rescored_from"


def harness_rows(verdicts: Mapping[str, HarnessVerdict], prompts: Mapping[str, str], ids: Sequence[str]) -> list[dict]:
    """The lines of harness.jsonl, in item order (items with neither a verdict nor a prompt are left out)."""
    rows = []
    for item_id in ids:
        verdict, prompt = verdicts.get(item_id), prompts.get(item_id, "")
        if verdict is None and not prompt:
            continue
        row: dict[str, Any] = {"id": item_id, "prompt": prompt}
        if verdict is not None:
            gold = list(verdict.gold) if isinstance(verdict.gold, tuple) else verdict.gold
            row.update(correct=verdict.correct, pred=capped_or_none(verdict.pred), gold=gold, judge=verdict.judge,
                       fallback=verdict.fallback, as_choice=verdict.as_choice, note=verdict.note)
        rows.append(row)
    return rows


def load_harness(run_dir: str | Path) -> tuple[dict[str, HarnessVerdict], dict[str, str]]:
    """(verdicts, prompts) by item id from the run directory's harness.jsonl; empty when it has none."""
    from mmmu_eval.store.rundir import RunStore

    store = RunStore(Path(run_dir), writable=False)
    verdicts: dict[str, HarnessVerdict] = {}
    prompts: dict[str, str] = {}
    for _, row in store.read_jsonl(HARNESS):
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            continue
        if isinstance(row.get("prompt"), str) and row["prompt"]:
            prompts[row["id"]] = row["prompt"]
        if "correct" in row:
            verdicts[row["id"]] = HarnessVerdict(
                correct=row["correct"] if isinstance(row["correct"], bool) else None,
                pred=row.get("pred"), gold=row.get("gold"), judge=bool(row.get("judge")),
                fallback=row.get("fallback"), as_choice=bool(row.get("as_choice")), note=str(row.get("note") or ""),
            )
    return verdicts, prompts


def rescored_from(manifest: Mapping) -> Mapping | None:
    """The manifest's record of the harness a run was rescored from, or None for our own runs."""
    return Manifest.of(manifest).rescored_from


def harness_section(
    run_dir: str | Path, manifest: Mapping, items: Sequence[Item], scoring: Scoring, responses: Mapping[str, Response]
) -> dict | None:
    """The ``harness`` section of results.json for a rescored run; None for any other run."""
    origin = rescored_from(manifest)
    if origin is None:
        return None
    verdicts, _ = load_harness(run_dir)
    recorded = origin.get("recorded")
    score = None
    if isinstance(recorded, Mapping) and isinstance(recorded.get("accuracy"), (int, float)):
        score = RecordedScore(float(recorded["accuracy"]), str(recorded.get("source") or ""), recorded.get("n"))
    section = explain(items, scoring, verdicts, responses, recorded=score,
                      harness_name=str(origin.get("format") or "harness")).to_json()
    # Rows that hold no answer, by cause (harness_error, empty): never mistaken for unparsed answers.
    section["failures"] = {cause: {"count": len(rows), "items": rows}
                           for cause, rows in failures([it.id for it in items], responses).items()}
    # The rescore's plausibility warnings (harnesses/guards.py), kept by the manifest.
    section["warnings"] = [str(w) for w in origin.get("warnings") or ()]
    return section


def summary_lines(section: Mapping, *, show: int = 20) -> list[str]:
    """The harness beside us, the causes of the gap, and the first ``show`` differing items."""
    name = section["name"]
    lines = [f"WARNING: {warning}" for warning in section.get("warnings") or ()]
    lines += [f"{cause}: {entry['count']} row(s) where {FAILURES[cause]} (e.g. {next(iter(entry['items']))}: "
             f"{next(iter(entry['items'].values()))})"
             for cause, entry in (section.get("failures") or {}).items() if entry["count"]]
    recorded = section.get("recorded")
    if recorded:
        lines.append(f"{name} recorded accuracy {recorded['accuracy']:.4f} ({recorded['source']})")
    n = section["n"]
    parser = section.get("parser") or "official"
    if not n:
        lines.append(f"{name} recorded no per-item verdicts that can be set beside ours"
                     + (f" ({section['without_verdict']} items without one)" if section["without_verdict"] else ""))
        return lines
    lines.append(
        f"{name} per-item verdicts: {section['correct']}/{n} = {section['accuracy']:.4f}; {parser} parser on the same "
        f"items {section['official_correct']}/{n} = {section['official_accuracy']:.4f} "
        f"({pct(section['difference'], 2, signed=True)} points)"
        + (f"; {section['without_verdict']} items without a verdict of {name}" if section["without_verdict"] else "")
    )
    if not section["differing"]:
        lines.append("the verdicts agree on every item")
        return lines
    lines.append(f"{section['differing']} item(s) where the verdicts differ, by cause:")
    lines.append(f"  {'cause':<15} {'items':>5} {parser + ' right':>14} {'harness right':>13}  meaning")
    for cause, row in section["causes"].items():
        lines.append(f"  {cause:<15} {row['items']:>5} {row['official_only_right']:>14} "
                     f"{row['harness_only_right']:>13}  {row['meaning']}")
    for entry in section["items"][:show]:
        ours, theirs = entry["official"], entry["harness"]
        official = "not scored" if ours["correct"] is None else f"{_said(ours['pred'])} ({_right(ours['correct'])})"
        lines.append(f"  {entry['id']}: {entry['cause']}; {parser} {official}, {name} "
                     f"{_said(theirs['pred'])} ({_right(theirs['correct'])}): {entry['detail']}")
    if len(section["items"]) > show:
        lines.append(f"  ... {len(section['items']) - show} more (results.json 'harness', or the HTML report)")
    return lines



def _said(pred: object) -> str:
    return "nothing" if pred is None else str(pred)


def _right(correct: object) -> str:
    return "right" if correct else "wrong"
