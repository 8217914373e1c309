"""Where a finished run is logged: ``log_to`` read into one ``LogTo``, checked before the run starts.

A missing SDK found after an hour of evaluation would cost the user the hour's dashboard; found
here, before the first request, it costs one ``pip install``. Only the module's presence is
checked (``importlib.util.find_spec``): the SDKs are imported when a run is logged, never on the
way to the first request.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from mmmu_eval.core.errors import ConfigError, did_you_mean

__all__ = ["ANSWER_CHARS", "DEFAULT_EXPERIMENT", "SINKS", "LogTo", "LogToArg", "as_log_to"]

#: Each sink's name, the module its SDK installs, and the extra that installs it.
SINKS: dict[str, tuple[str, str]] = {"mlflow": ("mlflow", "mlflow"), "wandb": ("wandb", "wandb")}

#: Characters of each answer kept in the per-item table.
ANSWER_CHARS = 200

#: The MLflow experiment and W&B project when neither a flag nor the SDK's environment names one.
DEFAULT_EXPERIMENT = "mmmu-eval"


@dataclass(frozen=True)
class LogTo:
    """What to log a finished run, suite or rescore to, and how much of it.

    ``evaluate(..., log_to="mlflow")`` or ``log_to=["mlflow", "wandb"]`` is the short form;
    ``log_to=LogTo(("wandb",), items=True)`` adds the per-item table.
    """

    sinks: tuple[str, ...]
    """``mlflow`` and/or ``wandb``, each once."""
    items: bool = False
    """Also log one row per item: id, subject, gold, parsed, correct, fallback, status, the answer's start."""
    answer_chars: int = ANSWER_CHARS
    """How many characters of each answer the item table keeps."""
    experiment: str | None = None
    """The MLflow experiment and the W&B project; None: the SDK's own environment
    (``MLFLOW_EXPERIMENT_NAME`` / ``MLFLOW_EXPERIMENT_ID``, ``WANDB_PROJECT``), else ``mmmu-eval``."""

    def __post_init__(self) -> None:
        if isinstance(self.sinks, str):
            object.__setattr__(self, "sinks", (self.sinks,))
        sinks = tuple(self.sinks)
        if not sinks:
            raise ConfigError(f"--log-to: name at least one of {', '.join(SINKS)}")
        for name in sinks:
            if name not in SINKS:
                raise ConfigError(f"--log-to {name!r} is not one of {', '.join(SINKS)}{did_you_mean(str(name), SINKS)}")
        if len(set(sinks)) != len(sinks):
            raise ConfigError(f"--log-to: {', '.join(sinks)} names a sink twice")
        if isinstance(self.answer_chars, bool) or not isinstance(self.answer_chars, int) or self.answer_chars < 0:
            raise ConfigError(f"answer_chars must be a whole number of characters, 0 or more, not {self.answer_chars!r}")
        if self.experiment is not None and not str(self.experiment).strip():
            raise ConfigError("--log-experiment must not be empty")
        object.__setattr__(self, "sinks", sinks)

    def check_installed(self) -> None:
        """Refuse a sink whose SDK is not installed, naming the extra that installs it.

        Raises:
            ConfigError: ``mlflow`` or ``wandb`` cannot be imported here.
        """
        for name in self.sinks:
            module, extra = SINKS[name]
            if importlib.util.find_spec(module) is None:
                raise ConfigError(f"--log-to {name}: the {module} package is not installed; "
                                  f"pip install 'mmmu-eval[{extra}]' (checked before the run starts, so nothing was run)")


#: What ``log_to`` takes: a sink's name, a list of them, a ``LogTo``, or None (log nowhere).
LogToArg = Union[str, Sequence[str], LogTo, None]


def as_log_to(value: LogToArg) -> LogTo | None:
    """``log_to`` as given to ``evaluate``, ``evaluate_suite`` or ``rescore_outputs``, checked.

    Raises:
        ConfigError: an unknown sink, one named twice, or one whose SDK is not installed.
    """
    if value is None:
        return None
    if isinstance(value, LogTo):
        spec = value
    elif isinstance(value, str):
        spec = LogTo((value,))
    elif isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        if not value:
            return None
        spec = LogTo(tuple(value))
    else:
        raise ConfigError(f"log_to must be 'mlflow', 'wandb', a list of them or a LogTo, not {value!r}")
    spec.check_installed()
    return spec
