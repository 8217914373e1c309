"""What a finished run hands back: ``RunResult``, from ``evaluate`` and from a run found finished.

Apart from ``pipeline.py`` (which makes it at the end of a run) because ``finished.py`` makes
one too, from the stored files of a run that is finished already, and the pipeline imports that.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.results.results_schema import Results
from mmmu_eval.store.manifest import MANIFEST, Manifest

__all__ = ["RunResult"]


@dataclass(frozen=True)
class RunResult:
    """What a finished ``evaluate`` call hands back."""

    run_dir: Path
    """The run directory (manifest.json, responses.jsonl, results.json, ...)."""
    manifest: dict[str, Any]
    """manifest.json as written at the end."""
    results: Results
    """results.json: overall accuracy, breakdowns, intervals; ``Results`` declares each key
    (``results/results_schema.py``, ``docs/results-schema.md``)."""
    counts: dict[str, int]
    """``items``, ``ok``, ``truncated``, ``error`` and ``missing`` over the selected items."""

    @property
    def accuracy(self) -> float:
        """Overall accuracy of the headline parser over the scored items."""
        return float(self.results["overall"]["accuracy"])

    @property
    def unfinished(self) -> int:
        """Items without a usable answer: errors plus items never asked."""
        return self.counts["error"] + self.counts["missing"]

    @property
    def data_problems(self) -> tuple[str, ...]:
        """Dataset rows that could not become items (bad options, no id ...), so are in no count.

        Empty when ``--ids``, ``--sample`` or ``--limit`` chose the items: which items a bad row would have
        been is then unknown, so it is not counted against this run.
        """
        record = Manifest.of(self.manifest, self.run_dir / MANIFEST)
        if record.config.get("ids") or record.config.get("limit") or record.config.get("sample"):
            return ()
        return tuple(record.dataset.get("problems") or ())

    @property
    def exit_status(self) -> int:
        """0 when every item has an answer; 1 when some remain for ``--resume`` or rows were unreadable."""
        return 1 if self.unfinished or self.data_problems else 0

    def message(self) -> str | None:
        """What to tell the user when items remain or dataset rows were left out, else None."""
        lines = []
        if self.data_problems:
            shown = "; ".join(self.data_problems[:3]) + ("; ..." if len(self.data_problems) > 3 else "")
            lines.append(
                f"{len(self.data_problems)} dataset row(s) could not be read and are not in this run ({shown}). "
                f"Fix the data, then run the same command again to ask them (all are in {self.run_dir}/manifest.json)"
            )
        if self.unfinished:
            lines.append(
                f"{self.counts['error']} item(s) failed and {self.counts['missing']} were not asked; they are "
                f"not scored. Run the same command again (or add --resume) to retry them: {self.run_dir}"
            )
        return "\n".join(lines) or None

    def __repr__(self) -> str:
        return f"RunResult({str(self.run_dir)!r}, accuracy={self.accuracy:.4f}, counts={self.counts})"
