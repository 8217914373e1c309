"""``--log-to``, ``--log-items``, ``--log-experiment``: the experiment-logging flags of ``run``,
``suite`` and ``rescore``, one definition for the three (``tracking/`` does the logging)."""

from __future__ import annotations

import argparse
import logging

from mmmu_eval.cli.flag_defaults import Phrase, declare
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.tracking.log_to import ANSWER_CHARS, DEFAULT_EXPERIMENT, SINKS, LogTo, as_log_to

__all__ = ["add_log_flags", "log_to_of"]


def add_log_flags(parser: argparse.ArgumentParser, *, what: str = "the run", needs: str = "") -> None:
    """The three flags, worded for ``what`` is logged (the run, the suite, the rescored run) and
    what else it ``needs`` (rescore: ``--out``)."""
    declare(parser.add_argument("--log-to", dest="log_to", action="append", choices=tuple(SINKS), metavar="SINK",
                        help=f"mlflow or wandb (repeat the flag for both){needs}: once {what} is written, log it to "
                             "MLflow or Weights & Biases: configuration and protocol as params, the accuracies and their "
                             "intervals as metrics named by scope (full/overall/accuracy ...), results.json, "
                             "manifest.json and report.html as files. MLFLOW_TRACKING_URI and W&B's own "
                             "environment (WANDB_MODE, WANDB_PROJECT ...) are honoured; a failure only warns. "
                             "Needs pip install 'mmmu-eval[mlflow]' or '[wandb]' (checked before anything runs)"),
            Phrase("not logged"))
    parser.add_argument("--log-items", action="store_true",
                        help="with --log-to: also log a table of every item (id, subject, gold, parsed, correct, "
                             f"fallback, status, the answer's first {ANSWER_CHARS} characters)")
    declare(parser.add_argument("--log-experiment", metavar="NAME",
                                help="with --log-to: the MLflow experiment and the W&B project"),
            Phrase(f"$MLFLOW_EXPERIMENT_NAME / $WANDB_PROJECT, else {DEFAULT_EXPERIMENT}"))


def log_to_of(args: argparse.Namespace) -> LogTo | None:
    """The flags as a checked ``LogTo`` (None without ``--log-to``); its lines are shown from now on.

    Raises:
        ConfigError: ``--log-items`` or ``--log-experiment`` without ``--log-to``, a sink named
            twice, or a sink whose SDK is not installed.
    """
    if not args.log_to:
        for flag, given in (("--log-items", args.log_items), ("--log-experiment", args.log_experiment)):
            if given:
                raise ConfigError(f"{flag} applies with --log-to mlflow or --log-to wandb only")
        return None
    spec = as_log_to(LogTo(tuple(args.log_to), items=args.log_items, experiment=args.log_experiment))
    # What was logged where, and what was left out as void, is said at INFO (tracking/send.py).
    logging.getLogger("mmmu_eval.tracking").setLevel(logging.INFO)
    return spec
