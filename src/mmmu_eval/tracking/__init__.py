"""Experiment logging: a finished run, suite or rescore sent to MLflow or Weights & Biases.

    finished run directory (results.json, manifest.json, report.html)  ->  build.py: Record
        (figures.py: scoped metrics, void left out; items.py: the opt-in per-item table)
    Record  ->  mlflow_sink.py / wandb_sink.py       (send.py: each sink, a failure warns)

``evaluate``, ``evaluate_suite`` and ``rescore_outputs`` take ``log_to`` (``spec.as_log_to``
checks it, and that the SDK is installed, before anything runs) and call ``send.log_run`` /
``send.log_suite`` once their outputs are written. Nothing here is part of a run's protocol
or configuration: logging a run again logs the same files again.
"""

from mmmu_eval.tracking.send import log_run, log_suite
from mmmu_eval.tracking.log_to import LogTo, LogToArg, as_log_to

__all__ = ["LogTo", "LogToArg", "as_log_to", "log_run", "log_suite"]
