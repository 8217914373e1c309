"""Weights & Biases: one W&B run per record.

``wandb.init`` reads W&B's own environment (``WANDB_MODE=offline``, ``WANDB_DIR``,
``WANDB_ENTITY``, ``WANDB_PROJECT``, ``WANDB_NAME``, the API key), so this passes a project or a
name only where neither the flag nor that environment gives one. ``reinit="create_new"`` leaves
a run the caller has open alone, and ``console="off"`` keeps W&B from capturing this program's
terminal (a ``--json`` document on stdout stays the document). The figures are the run's summary
(one value each, as an evaluation has), the files one artifact, the item tables ``wandb.Table``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from mmmu_eval.tracking.log_record import Record
from mmmu_eval.tracking.log_to import DEFAULT_EXPERIMENT, LogTo

__all__ = ["log_to_wandb"]

#: Tags whose values become W&B's short labels (each at most 64 characters).
_LABELLED = ("mmmu_eval.scope", "mmmu_eval.benchmark", "mmmu_eval.split", "mmmu_eval.setting", "mmmu_eval.status")


def log_to_wandb(record: Record, log_to: LogTo) -> str:
    """Log ``record`` as a new W&B run; where it went, in words. Raises what W&B raises."""
    import wandb

    project = log_to.experiment or (None if os.environ.get("WANDB_PROJECT") else DEFAULT_EXPERIMENT)
    labels = [f"mmmu-eval-{record.kind}"] + [
        f"{key.removeprefix('mmmu_eval.')}:{record.tags[key]}"[:64] for key in _LABELLED if key in record.tags]
    if "mmmu_eval.void" in record.tags:
        labels.append("void")
    run = wandb.init(
        project=project, name=None if os.environ.get("WANDB_NAME") else record.name, job_type=f"mmmu-eval-{record.kind}",
        config={**record.params, **record.tags}, tags=labels, notes=record.tags.get("mmmu_eval.scope_text"),
        reinit="create_new", settings=wandb.Settings(console="off", silent=True),
    )
    try:
        run.summary.update(record.metrics)
        if record.files:
            artifact = wandb.Artifact(_artifact_name(record.name), type=f"mmmu-eval-{record.kind}")
            for path, folder in record.files:
                artifact.add_file(str(path), name=f"{folder}/{path.name}" if folder else path.name)
            run.log_artifact(artifact)
        for name, table in record.tables.items():
            run.log({name: wandb.Table(columns=list(table.columns), data=[list(row) for row in table.rows])})
        where = _where(run)
    except BaseException:
        run.finish(exit_code=1)
        raise
    run.finish()
    return where


def _where(run: Any) -> str:
    """The run's page, or for an offline run its folder and how to upload it."""
    if not run.offline and run.url:
        return f"W&B run {run.url}"
    folder = os.path.dirname(str(run.dir).rstrip(os.sep))
    return f"W&B offline run {run.id} in {folder} (`wandb sync {folder}` uploads it)"


def _artifact_name(name: str) -> str:
    """W&B allows letters, digits, ``-``, ``_`` and ``.`` in an artifact's name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "mmmu-eval"
