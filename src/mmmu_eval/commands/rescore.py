"""``rescore_outputs``: another harness's outputs scored the official way, and what is written of it.

``mmmu-eval rescore PATH`` is this call and a printout: ``rescore`` (``harnesses/read.py``) reads,
joins and scores the file; the ``--json`` document is ``Rescore.to_json``; ``--out`` is
``write_rescored_run``, which ends in ``run/outputs.py`` as every run does. A rescore that
scored no row is a wrong file or format, not an accuracy of 0: nothing is written for it.

Named ``rescore_outputs`` (the name it had when ``mmmu_eval.rescore`` was a package, now ``harnesses``).

>>> import json
>>> from pathlib import Path
>>> rows = [{"id": "validation_Accounting_2", "response": "The answer is (B)."},
...         {"id": "validation_Art_3", "response": "C"}]
>>> _ = Path("answers.jsonl").write_text("".join(json.dumps(row) + "\\n" for row in rows))
>>> found = rescore_outputs("answers.jsonl", data="sample", benchmark="mmmu", json_file="scores.json")
>>> found.rescore.format, found.document["overall"]["total"], found.json_file.name
('jsonl', 2, 'scores.json')
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.core.atomic import TEXT_ERRORS
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.read import Rescore, rescore
from mmmu_eval.harnesses.write import RescoredRun, write_rescored_run
from mmmu_eval.scoring.scorer import OFFICIAL_SEED
from mmmu_eval.tracking import LogTo, LogToArg, as_log_to, log_run

__all__ = ["Rescored", "logging_needs_out", "require_scored", "rescore_outputs", "write_rescore_json"]


@dataclass(frozen=True)
class Rescored:
    """A harness's file scored: the rescore, its JSON document, and what was written."""

    rescore: Rescore
    """Items, responses, our scoring, the harness's verdicts, problems, notes, warnings."""
    document: dict[str, Any]
    """The ``--json`` document (``Rescore.to_json``): overall, breakdowns, every item's verdict."""
    ci95: tuple[float, float] | None = None
    """The headline accuracy's 95% interval; None when no row was scored."""
    json_file: Path | None = None
    """Where the document was written; None when not asked."""
    run: RescoredRun | None = None
    """The run directory written (``out``); None when not asked."""

    @property
    def accuracy(self) -> float | None:
        """The headline parser's accuracy over the scored rows; None when none was scored."""
        overall = self.document["overall"]
        return overall["accuracy"] if overall["total"] else None

    @property
    def unanswered(self) -> int:
        """Items of the file's split with no scored answer: no row, or a failure the harness recorded."""
        return self.document["coverage"]["missing"] + len(self.document["errors"])

    def __repr__(self) -> str:
        return (f"Rescored({self.rescore.path!r}, format={self.rescore.format!r}, accuracy={self.accuracy!r}, "
                f"unanswered={self.unanswered})")


def rescore_outputs(
    path: str | Path,
    *,
    format: str = "auto",
    data: str | Path = "hub",
    revision: str | None = None,
    benchmark: str | None = None,
    split: str | None = None,
    setting: str | None = None,
    answers: str | Path | None = None,
    parsers: Sequence[str] | None = None,
    fallback: str = "official",
    seed: int = OFFICIAL_SEED,
    json_file: str | Path | None = None,
    out: str | Path | None = None,
    html: bool = True,
    images: bool = True,
    log_to: LogToArg = None,
) -> Rescored:
    """Score another harness's output file or folder the official way; optionally write it.

    Args:
        path: the file or folder the harness wrote.
        format: one of the formats of ``rescore`` (``harnesses/read.py``); ``auto`` recognises it.
        data: the dataset the rows are joined to: ``hub``, ``sample`` or a snapshot directory.
        revision: the hub revision to join to; None: the pinned one.
        benchmark: what the file holds, where its rows do not say.
        split: the MMMU split, where the rows do not say (or one split of a file with two).
        setting: the MMMU-Pro setting, where the rows do not say.
        answers: the official answer dict, which ``official-mmmu-eval-only`` needs.
        parsers: parser names in order, the first the headline; None: as the file's own prompt asks.
        fallback: ``official`` (seeded random letter for an unparseable answer) or ``none``.
        seed: the random fallback's seed.
        json_file: also write the JSON document there.
        out: also write a run directory there (new or empty): report, compare and doctor read it.
        html: with ``out``, write report.html.
        images: with ``out`` and ``html``, embed the items' images.
        log_to: ``"mlflow"``, ``"wandb"``, a list of them, or a ``tracking.LogTo``: log the run
            directory written to ``out`` (which it needs) there; a failure only warns.

    Returns:
        The rescore, its document, the accuracy's interval, and the paths written.

    Raises:
        ConfigError: as ``rescore`` raises it, ``json_file`` cannot be written, or ``log_to`` without
            ``out`` or naming an SDK that is not installed (before anything is read).
        DataError: as ``rescore`` raises it, or (before anything is written) no row could be scored.
        StoreError: ``out`` holds a run already, or cannot be written.

    ::

        found = mmmu_eval.rescore_outputs("samples_mmmu_val.jsonl", out="runs/qwen-lmms-eval")
        print(found.accuracy, found.rescore.explanation, found.run.run_dir)
    """
    logging_to = logging_needs_out(log_to, out)
    result = rescore(path, format=format, answers=answers, data=data, revision=revision, benchmark=benchmark,
                     split=split, setting=setting, parsers=tuple(parsers) if parsers else None,
                     fallback=fallback, fallback_seed=seed)
    found = Rescored(result, result.to_json())
    if found.accuracy is not None:
        from mmmu_eval.results.results_json import build_results

        low, high = build_results(result.scoring, result.items, {})["overall"]["ci95"]
        found = Rescored(result, found.document, (low, high))
    if json_file is None and out is None:
        return found
    require_scored(found)
    written_json = write_rescore_json(found, json_file) if json_file is not None else None
    run = write_rescored_run(result, out, html=html, images=images) if out is not None else None
    if run is not None:
        log_run(logging_to, run.run_dir, kind="rescore")
    return Rescored(result, found.document, found.ci95, written_json, run)


def logging_needs_out(log_to: LogToArg, out: str | Path | None) -> LogTo | None:
    """``log_to`` checked, and refused without a run directory to log.

    Raises:
        ConfigError: an unknown sink, a missing SDK, or ``log_to`` without ``out``.
    """
    logging_to = as_log_to(log_to)
    if logging_to is not None and out is None:
        raise ConfigError("--log-to logs the run directory that --out writes (results.json, manifest.json, "
                          "report.html); add --out RUN_DIR")
    return logging_to


def require_scored(found: Rescored) -> None:
    """Refuse a rescore that scored no row: a wrong file or format, not an accuracy of 0.

    Raises:
        DataError: no row could be scored.
    """
    if found.accuracy is None:
        raise DataError(
            f"{found.rescore.path}: no row could be scored ({len(found.document['problems'])} problem(s)); "
            f"check that it is an {found.rescore.format} file (see --help for the formats)"
        )


def write_rescore_json(found: Rescored, path: str | Path) -> Path:
    """Write the rescore's JSON document to ``path``.

    Raises:
        ConfigError: it cannot be written there.
    """
    target = Path(path)
    try:
        target.write_text(json.dumps(found.document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                          errors=TEXT_ERRORS)
    except OSError as exc:
        raise ConfigError(f"--json {target}: cannot write ({exc})") from None
    return target
