"""What a run directory already holds, and whether a run may continue in it.

One rule for "answered already" (an ``ok`` or ``truncated`` answer is never asked again), one
for when the preflight goes out (only when something is left to ask), and the refusal a run
directory made under other settings gets. ``evaluate``, ``plan_run``, the suite and harden's
trials all ask these, so a dry run counts what a run sends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import StoreError
from mmmu_eval.prompt.protocol import EvalProtocol
from mmmu_eval.core.records import Request, Response
from mmmu_eval.core.manifest import Manifest
from mmmu_eval.store.rundir import MANIFEST, RunStore

__all__ = ["FINISHED", "answered_before", "check_run_dir", "finished_answers", "inherited_answers", "preflight_needed",
           "requests_to_ask"]

#: The statuses of a stored answer that is never asked again.
FINISHED = ("ok", "truncated")


def answered_before(out: Path | str | None) -> dict[str, Response]:
    """The stored answers that need no second asking (``FINISHED``) in the run directory
    ``out``, by item id; empty when it holds no run. Errors are not answers: they are asked again."""
    path = Path(out or ".")
    if not (path / MANIFEST).is_file():
        return {}
    return finished_answers(RunStore.read(path).responses())


def inherited_answers(out: Path | str | None, answered: Mapping[str, Response]) -> dict[str, Response]:
    """The answers a rank's shard inherits from its run (``run/rank_answers.py``): finished ones
    the run holds outside ``out`` (merged by an earlier launch, or in the shards of a launch with
    another number of ranks) for items ``answered`` (``out``'s own) lacks. They count as answered
    and are copied into ``out`` before anything is asked. Empty outside a launcher's rank."""
    from mmmu_eval.run.rank_answers import answer_sources

    found: dict[str, Response] = {}
    for source in answer_sources(out):  # the first place that holds an answer gives it
        for item_id, response in finished_answers(RunStore.read(source).responses()).items():
            if item_id not in answered and item_id not in found:
                found[item_id] = response
    return found


def finished_answers(responses: Mapping[str, Response]) -> dict[str, Response]:
    """Of answers already read from a run directory, those that need no second asking
    (``FINISHED``): for a caller that holds the store open and has read them anyway."""
    return {i: r for i, r in responses.items() if r.status in FINISHED}


def requests_to_ask(requests: Sequence[Request], answered: Mapping[str, Response]) -> list[Request]:
    """The requests a run still sends: those without a stored answer, in the order given."""
    return [r for r in requests if r.item_id not in answered]


def preflight_needed(pending: Sequence[Request]) -> bool:
    """Whether a run sends its preflight probes (``Backend.preflight``): only when it has
    something to ask. A finished run, run again, sends no request at all (issue 17).

    The one rule for it: ``evaluate`` probes by it, and whatever counts the probes a run would
    send (``--dry-run``) should ask it too.
    """
    return bool(pending)


def check_run_dir(config: RunConfig, manifest: Mapping[str, Any]) -> None:
    """Raise the StoreError a run would stop with in ``config.out``, with a hint where one helps;
    for a rank's shard, also when a place it would inherit answers from holds another run.

    A run directory made before the official image rule became the default recorded the rule
    that appended loose images; ``--unreferenced-images append`` continues it as it was.
    """
    from mmmu_eval.run.rank_answers import check_sources

    try:
        RunStore.check(config.out or ".", manifest, resume=config.resume)
        check_sources(config.out, manifest)  # a rank's shard inherits only from the same run
    except StoreError as exc:
        hint = _old_image_rule_hint(config, manifest)
        if hint is None:
            raise
        raise StoreError(f"{exc}. {hint}") from exc


def _old_image_rule_hint(config: RunConfig, manifest: Mapping[str, Any]) -> str | None:
    from mmmu_eval.prompt.layout import UNREFERENCED_RULES

    if config.unreferenced_images == "append":
        return None
    try:
        old = RunStore.read(config.out or ".").manifest_record().protocol
    except StoreError:
        return None
    if old.get("unreferenced_images") != UNREFERENCED_RULES["append"]:
        return None
    new = Manifest.of(manifest).protocol
    if new.get("unreferenced_images") == old.get("unreferenced_images"):
        return None  # the rule is not what differs
    as_before = EvalProtocol.from_config(dataclasses.replace(config, unreferenced_images="append"))
    same = as_before.fingerprint() == old.get("fingerprint")
    return (
        "This run was made when images no <image N> token refers to were sent after the others "
        "(the default before the official rule, which leaves them out). Add --unreferenced-images append "
        + ("to continue it exactly as it was (marked not official)" if same else "and the run's other old settings to continue it")
        + ", or use a new --out to run it under the official rule"
    )

