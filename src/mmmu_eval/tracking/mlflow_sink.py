"""MLflow: one MLflow run per record, through ``MlflowClient``.

The client is MLflow's own, so ``MLFLOW_TRACKING_URI`` (a server, ``sqlite:///...``, a folder) and
the credentials MLflow reads are honoured as MLflow honours them. The module-level "active run"
of ``mlflow.start_run`` is never touched: a notebook's own run stays its own. Metrics go in one
``log_batch`` (the client splits it into the server's batch sizes), the files as artifacts, the
item tables through ``log_table`` (the Evaluation view reads them).
"""

from __future__ import annotations

import os
import time

from mmmu_eval.tracking.log_record import Record, param_text
from mmmu_eval.tracking.log_to import DEFAULT_EXPERIMENT, LogTo

__all__ = ["log_to_mlflow"]


def log_to_mlflow(record: Record, log_to: LogTo) -> str:
    """Log ``record`` as a new MLflow run; where it went, in words. Raises what MLflow raises."""
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    client = MlflowClient()
    experiment, named = _experiment(client, log_to.experiment)
    note = record.tags.get("mmmu_eval.scope_text")
    tags = {**record.tags, **({"mlflow.note.content": f"mmmu-eval {record.kind}: {note}"} if note else {})}
    run_id = client.create_run(experiment, run_name=record.name, tags=tags).info.run_id
    try:
        stamp = int(time.time() * 1000)
        client.log_batch(run_id, metrics=[Metric(key, value, stamp, 0) for key, value in record.metrics.items()],
                         params=[Param(key, param_text(value)) for key, value in record.params.items()])
        for path, folder in record.files:
            client.log_artifact(run_id, str(path), artifact_path=folder or None)
        for name, table in record.tables.items():
            client.log_table(run_id, data=table.by_column(), artifact_file=f"{name}.json")
    except BaseException:
        try:
            client.set_terminated(run_id, "FAILED")
        except Exception:  # the store that failed above may fail here too; the first error is the one to tell
            pass
        raise
    client.set_terminated(run_id, "FINISHED")
    return f"MLflow run {run_id} in experiment {named} at {client.tracking_uri}"


def _experiment(client: object, name: str | None) -> tuple[str, str]:
    """(id, name in words) of the experiment named by the flag, else by MLflow's environment
    (``MLFLOW_EXPERIMENT_ID``, ``MLFLOW_EXPERIMENT_NAME``), else ``mmmu-eval``, made when new."""
    if name is None and os.environ.get("MLFLOW_EXPERIMENT_ID"):
        return os.environ["MLFLOW_EXPERIMENT_ID"], f"id {os.environ['MLFLOW_EXPERIMENT_ID']}"
    name = name or os.environ.get("MLFLOW_EXPERIMENT_NAME") or DEFAULT_EXPERIMENT
    found = client.get_experiment_by_name(name)  # type: ignore[attr-defined]
    made = str(found.experiment_id) if found is not None else str(client.create_experiment(name))  # type: ignore[attr-defined]
    return made, f"{name!r} (id {made})"
