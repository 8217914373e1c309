"""What a finished run hands back: ``RunResult``, from ``evaluate`` and from a run found finished.

Apart from ``pipeline.py`` (which makes it at the end of a run) because ``finished.py`` makes
one too, from the stored files of a run that is finished already, and the pipeline imports that.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.results.caveats import how_to_score, void, void_reason
from mmmu_eval.results.results_schema import Results
from mmmu_eval.core.manifest import MANIFEST, Manifest

__all__ = ["NO_SCORE_STATUS", "RunResult"]

#: The exit status of a run that finished with no figure: no item could be scored (every request
#: failed), or none had a gold answer. Distinct from 1 (items remain to ask) so a script can tell
#: "no score at all" from "a score over fewer items" (docs/runs.md, "Exit statuses").
NO_SCORE_STATUS = 3


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
    def accuracy(self) -> float | None:
        """Overall accuracy of the headline parser over the scored items; None when no item was
        scored (no gold answers, or every request failed): never 0.0 for a model that never answered."""
        value = self.results["overall"]["accuracy"]
        return None if value is None or void(self.results) else float(value)

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
        """0 when every item has an answer; ``NO_SCORE_STATUS`` (3) when no item could be scored
        (every request failed, or no gold answers); 1 when some remain for ``--resume`` or rows were
        unreadable."""
        if void(self.results):
            return NO_SCORE_STATUS
        return 1 if self.unfinished or self.data_problems else 0

    def message(self) -> str | None:
        """What to tell the user when the run has no score, items remain or dataset rows were left out, else None."""
        lines = []
        if void(self.results):
            reason = void_reason(self.results)
            # a run without gold answers has nothing left to retry: say how to score it
            lines.append(f"{reason}: {how_to_score(self.results)}" if reason == "no gold answers" else str(reason))
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
        """``RunResult(runs/x: 25.0% (6 of 24), bundled sample: ...; 24 items: 24 ok, 0 truncated, 0 errors, 0 missing)``"""
        from mmmu_eval.results.notebook_view import answers_line, bounded, headline

        return f"RunResult({bounded(self.run_dir)}: {headline(self.results)}; {answers_line(self.counts)})"

    def _repr_html_(self) -> str:
        """The run in a notebook: its headline with scope and interval, its answers, where it is."""
        from mmmu_eval.results.notebook_view import answers_line, bounded, headline, html_record
        from mmmu_eval.core.numbers import interval

        r = self.results
        what = " ".join(str(x) for x in (r.get("benchmark"), r.get("setting") or r.get("split")) if x)
        rows = [("model", bounded((r.get("run") or {}).get("model") or "?")), ("evaluated", what),
                ("accuracy", headline(r) + (f"; 95% interval {interval(r['overall'].get('ci95'))}"
                                            if not void(r) else ""))]
        rows.append(("answers", answers_line(self.counts)))
        rows.append(("exit status", f"{self.exit_status}" + (f": {self.message()}" if self.exit_status else "")))
        return html_record("RunResult", rows, note=str(self.run_dir))
