"""The data revision: which revision each run read, and the items that differ between them.

Two runs of the same item and setting that hold a different question, different options or a
different gold read different data (a corrected revision, a local snapshot, another harness's
copy). Their votes are never pooled: the suspects are counted per option set and gold.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from mmmu_eval.auditing.sources import RunAnswers, gold_text
from mmmu_eval.auditing.text import norm


def revision_report(runs: Sequence[RunAnswers]) -> dict:
    """``{"read": {run: revision}, "differences": [...]}`` (see docs/audit.md)."""
    versions: dict[tuple[str, str], dict[tuple, list[RunAnswers]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        for item_id, item in run.items.items():
            key = (norm(item.question), tuple(norm(o) for o in item.options), norm(gold_text(item) or item.answer))
            versions[(item_id, run.setting)][key].append(run)
    differences = []
    for (item_id, setting), held in sorted(versions.items()):
        if len(held) < 2:
            continue
        forms = list(held.items())
        fields = _differing(k for k, _ in forms)
        if fields == ["question"] and any(not k[0] for k, _ in forms):
            continue  # a file that carries no question text: not a difference of data
        differences.append({
            "id": item_id, "setting": setting, "fields": fields,
            "versions": [{
                "revisions": sorted({str(r.revision) for r in members}),
                "runs": [r.name for r in members],
                "options": list(members[0].items[item_id].options),
                "gold": gold_text(members[0].items[item_id]) or members[0].items[item_id].answer,
            } for _, members in forms],
        })
    return {"read": {r.name: r.revision for r in runs}, "differences": differences}


def _differing(keys) -> list[str]:
    keys = list(keys)
    names = ("question", "options", "gold")
    return [name for i, name in enumerate(names) if len({k[i] for k in keys}) > 1]
