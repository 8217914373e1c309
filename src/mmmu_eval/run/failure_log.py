"""Failed items in the log: the first few one line each, then one line for all the rest.

A broken model fails every item, and a warning per item was 900 lines on MMMU validation, each
its own stderr output in a notebook. Every failure is stored anyway (``responses.jsonl``, status
``error``, with its message; the report and ``mmmu-eval report`` list them), so the log tells the
first ``SHOWN`` as they come and, when the session ends, how many more failed and where each one
is. With ``-vv`` (DEBUG) every failure is logged as well.

>>> failures = FailureLog(Path("runs/x/responses.jsonl"), shown=1)
>>> failures.add("validation_Art_1", "the model function raised ValueError: no")
>>> failures.add("validation_Art_2", "validation_Art_2: the model function raised ValueError: no")
>>> failures.close()
>>> failures.count
2
"""

from __future__ import annotations

import logging
from pathlib import Path

__all__ = ["SHOWN", "FailureLog"]

log = logging.getLogger("mmmu_eval.run.runner")

#: Failed items logged one line each in a session; the rest are counted in one line at its end.
SHOWN = 5


class FailureLog:
    """One session's failed items, as the log tells them (see the module)."""

    def __init__(self, responses: Path, *, shown: int = SHOWN, logger: logging.Logger = log) -> None:
        """
        Args:
            responses: the run's responses.jsonl, named in the closing line.
            shown: failures logged one line each before the rest are only counted.
            logger: where the lines go (the runner's logger).
        """
        self.responses = responses
        self.shown = shown
        self.logger = logger
        self.count = 0
        """Failures added in this session."""

    def add(self, item_id: str, error: str) -> None:
        """One failed item; its message already names it or gets its id in front."""
        self.count += 1
        line = error if error.startswith(item_id) else f"{item_id}: {error}"
        self.logger.log(logging.WARNING if self.count <= self.shown else logging.DEBUG, "%s", line)

    def close(self) -> None:
        """The line for the failures past the first ``shown``: how many, and where each one is."""
        more = self.count - self.shown
        if more > 0:
            self.logger.warning("%d more failed item%s (%d in this session), not listed here: each is in %s "
                                "with its error", more, "" if more == 1 else "s", self.count, self.responses)
