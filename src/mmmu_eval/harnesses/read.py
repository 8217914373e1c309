"""Rescore what another harness wrote, with the official parsers, and set its own verdicts beside ours.

    read (harnesses/readers/) -> join to our items (harnesses/join.py) -> score -> explain (scoring/explain.py)

Formats: the official repository's own (``official-mmmu``, ``official-mmmu-eval-only``,
``official-mmmu-pro``: self-contained, the items are built from the rows, no dataset needed)
and other harnesses' (``lmms-eval``, ``vlmevalkit``, ``inspect``, ``verifiers``, ``jsonl``: the
rows are joined by id to our dataset's items, ``--data``). ``auto`` recognises each and says why.

A malformed row is reported in ``problems`` and nothing is scored from it (the official formats
keep the official code's behaviour: such a row is scored as that code scores it, or wrong where
it would crash). A row that matches no item is named in ``unjoined``.

Three ``{"id", "response"}`` rows, with the other tool's verdicts, joined to the bundled sample:

>>> import json
>>> from pathlib import Path
>>> rows = [{"id": "validation_Accounting_2", "response": "The answer is (B).", "correct": True},
...         {"id": "validation_Art_2", "response": "I think it is B", "correct": True},
...         {"id": "validation_Art_3", "response": "C", "correct": True}]   # the harness's own verdicts
>>> _ = Path("answers.jsonl").write_text("".join(json.dumps(row) + "\\n" for row in rows))
>>> result = rescore("answers.jsonl", data="sample", benchmark="mmmu")
>>> result.scoring.aggregates["official"].overall
Tally(n=3, correct=2)
>>> [(d.id, d.cause) for d in result.explanation.by_cause["open-match"]]
[('validation_Art_3', 'open-match')]

The official repository's Qwen-VL outputs (a folder of ``<Subject>/output.json``) give its
325 of 900, as the official code does: ``rescore("qwen_vl", format="official-mmmu")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mmmu_eval.dataset.load import Benchmark
from mmmu_eval.core.errors import ConfigError, argument
from mmmu_eval.core.records import Item, Response
from mmmu_eval.harnesses.guards import plausibility
from mmmu_eval.harnesses.identify import settle
from mmmu_eval.scoring.aggregate import Tally
from mmmu_eval.scoring.explain import Explanation, explain
from mmmu_eval.harnesses.join import join
from mmmu_eval.harnesses.readers import FORMATS, detect, read_foreign, reader
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict
from mmmu_eval.harnesses.readers.foreign import ForeignFile, empty_file_error, is_empty
from mmmu_eval.scoring.harness_verdicts import failures as named_failures
from mmmu_eval.harnesses.readers.official import FORMATS as OFFICIAL_FORMATS
from mmmu_eval.harnesses.readers.official import PRO_ROWS, read_official
from mmmu_eval.harnesses.readers.official_shape import UNRECORDED_SPLIT, no_keyed_note
from mmmu_eval.scoring.boxed import BOX
from mmmu_eval.scoring.judge import default_parsers
from mmmu_eval.scoring.scorer import OFFICIAL_SEED, Scoring, score_responses
from mmmu_eval.core.untrusted import capped_or_none

__all__ = ["FORMATS", "Rescore", "rescore"]


@dataclass(frozen=True)
class Rescore:
    """A rescored file or folder: the items, the Scoring, the harness's verdicts, what was wrong."""

    format: str
    """One of FORMATS (never ``auto``: the format it was read as)."""
    path: str
    """What was read."""
    items: tuple[Item, ...]
    """The scored items: built from the rows (official formats) or joined from the dataset."""
    responses: dict[str, Response]
    """Item id -> the row's response (status ``error`` where the harness recorded a failure)."""
    scoring: Scoring
    """Our verdicts and tallies."""
    problems: tuple[str, ...]
    """Rows that could not be read, and inputs the official code would crash on, each named."""
    detected: str | None = None
    """Why ``auto`` chose the format; None when it was named."""
    source: ForeignFile | None = None
    """The harness's file as read (None for the official formats)."""
    dataset: Benchmark | None = None
    """The dataset the rows were joined to (None for the official formats)."""
    harness: dict[str, HarnessVerdict] = field(default_factory=dict)
    """Item id -> the harness's own verdict, where it recorded one."""
    prompts: dict[str, str] = field(default_factory=dict)
    """Item id -> the prompt the harness sent, where it recorded it."""
    unjoined: tuple[str, ...] = ()
    """Rows that matched no item (or an item already taken), each named with the reason."""
    notes: tuple[str, ...] = ()
    """What the reader and the join decided that the user should know."""
    explanation: Explanation | None = None
    """The harness's accuracy beside ours and the differing items; None when it gave no verdicts."""
    missing: tuple[str, ...] = ()
    """Items the file should cover (its split, its task's question type) that no row names."""
    expected: int = 0
    """Items the file should cover; 0 for the official formats (their items are the rows)."""
    failures: dict[str, dict[str, str]] = field(default_factory=dict)
    """Cause (``harness_error``, ``empty``) -> item id -> message: rows that hold no answer
    (``harnesses/readers/foreign.py``). The official formats still score them as their code did."""

    warnings: tuple[str, ...] = ()
    """Signs that the file was misread, each with its cause and evidence (``harnesses/guards.py``)."""
    absent: int = 0
    """Rows the file should have but lacks, where their ids cannot be known (an official MMMU-Pro
    file holds 1,730 rows; one of 10 rows, or cut short, lacks the rest)."""

    @property
    def partial(self) -> bool:
        """True when some items of the file's split have no row (the accuracy is over fewer)."""
        return bool(self.missing) or self.absent > 0

    def to_json(self) -> dict:
        """The ``--json`` document: overall, fallback figures, breakdowns, problems, every item, the harness."""
        scoring = self.scoring
        name = scoring.parsers[0]
        agg = scoring.aggregates[name]
        total = agg.overall.n
        verdicts = scoring.verdicts[name]
        return {
            "format": self.format,
            "path": self.path,
            "detected": self.detected,
            "dataset": None if self.dataset is None else {
                "benchmark": self.dataset.benchmark, "split": self.dataset.split, "setting": self.dataset.setting,
                "source": self.dataset.source, "revision": self.dataset.revision,
            },
            "parser": name,
            "fallback_policy": scoring.fallback_policy,
            "fallback_seed": scoring.fallback_seed,
            "overall": _row(agg.overall),
            "deterministic_correct": scoring.deterministic_correct,
            "deterministic_accuracy": scoring.deterministic_correct / total if total else None,
            "expected_correct": scoring.expected_correct,
            "expected_accuracy": scoring.expected_correct / total if total else None,
            "fallbacks": scoring.fallbacks,
            "fallback_rate": scoring.fallbacks / total if total else None,
            "errors": list(scoring.errors),
            "by_discipline": {k: _row(t) for k, t in agg.by_discipline.items()},
            "by_subject": {k: _row(t) for k, t in agg.by_subject.items()},
            "by_img_type": {k: _row(t) for k, t in agg.by_img_type.items()},
            "by_difficulty": {k: _row(t) for k, t in agg.by_difficulty.items()},
            "by_question_type": {k: _row(t) for k, t in agg.by_question_type.items()},
            "by_option_count": {k: _row(t) for k, t in agg.by_option_count.items()},
            "parsers": {p: _row(scoring.aggregates[p].overall) for p in scoring.parsers},
            "disagreements": [{**d, "preds": {p: capped_or_none(v) for p, v in d["preds"].items()}}
                              for d in scoring.disagreements],
            "problems": list(self.problems),
            "unjoined": list(self.unjoined),
            "coverage": {"expected": self.expected or len(self.items), "rows": len(self.items),
                         "missing": len(self.missing) + self.absent, "missing_ids": list(self.missing)},
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "failures": {cause: {"count": len(rows), "items": rows} for cause, rows in self.failures.items()},
            "harness": None if self.explanation is None else self.explanation.to_json(),
            "items": [
                {"id": item_id, "pred": capped_or_none(v.pred), "correct": bool(v.correct), "fallback": bool(v.fallback)}
                for item_id, v in verdicts.items()
            ],
        }


def rescore(
    path: str | Path,
    *,
    format: str = "auto",
    answers: str | Path | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
    benchmark: str | None = None,
    split: str | None = None,
    setting: str | None = None,
    parsers: Sequence[str] | None = None,
    fallback: str = "official",
    fallback_seed: int = OFFICIAL_SEED,
) -> Rescore:
    """Read another harness's output, score it the official way, and explain the difference.

    Args:
        path: the file or folder the harness wrote.
        format: one of FORMATS; ``auto`` recognises it.
        answers: the answer dict, required by ``official-mmmu-eval-only``.
        data, revision: the dataset the rows are joined to (``hub`` at the pinned revision, a
            snapshot directory, or ``sample``); not used by the official formats.
        benchmark, split, setting: what the file holds, where its rows do not say (and ``split``
            / ``setting`` to choose one split or setting of a file that holds two); a flag that
            contradicts the rows is refused (``harnesses/identify.py``).
        parsers, fallback, fallback_seed: as for ``score_responses``. ``parsers`` None: the
            file's own prompt decides, as ``run --prompt`` does (``\\boxed{}`` asked for: the
            boxed parser heads, the official one beside it; otherwise the official). With
            ``official-mmmu-eval-only`` the headline parser is always ``eval-only``.

    Raises:
        ConfigError: an unknown or unrecognised format, missing ``--answers``, a file that mixes
            benchmarks or settings, a file that declares another benchmark's task (whatever
            ``benchmark`` says), or a path that cannot be read at all.
        DataError: an empty file, a file without a column its format needs, a file of which
            no row could be read, or no row matches an item.

    A file that covers only part of its split is scored over its rows; ``missing`` names the
    items it lacks (``mmmu-eval rescore`` exits 1 on it unless ``--partial``).
    """
    path = Path(path)
    if path.is_file() and is_empty(path):
        raise empty_file_error(path)
    detected = None
    if format == "auto":
        format, detected = detect(path)
    if format not in FORMATS:
        raise ConfigError(f"{argument('format', format)} is not one of {', '.join(FORMATS)}")
    if format in OFFICIAL_FORMATS:
        items, responses, problems, harness = read_official(path, format, Path(answers) if answers else None,
                                                          setting=setting)
        settled = settle(items, path=path, format=format, benchmark=benchmark, split=split, setting=setting)
        items = list(settled.items)
        keyed = sum(it.split == UNRECORDED_SPLIT for it in items)
        notes = settled.notes + ((no_keyed_note(keyed, len(items)),) if keyed else ())
        parsers = tuple(parsers or ("official",))
        if format == "official-mmmu-eval-only":
            parsers = ("eval-only",) + tuple(p for p in parsers if p not in ("official", "eval-only"))
        scoring = score_responses(items, responses, parsers=parsers, fallback=fallback, fallback_seed=fallback_seed)
        explanation = explain(items, scoring, harness, responses, recorded=None, harness_name=f"{format} (its own verdicts)") if harness else None
        # An official MMMU-Pro file holds every item of its setting; fewer rows is a partial file.
        expected = PRO_ROWS if format == "official-mmmu-pro" else 0
        return Rescore(format, str(path), tuple(items), responses, scoring, tuple(problems) + scoring.problems,
                       detected=detected, harness=harness, explanation=explanation, notes=notes,
                       failures=named_failures([it.id for it in items], responses),
                       expected=max(expected, len(items)), absent=max(0, expected - len(items)),
                       warnings=plausibility(items, responses, scoring))

    source = read_foreign(path, format)
    joined = join(source, reader(format), benchmark=benchmark, split=split, setting=setting, data=data, revision=revision)
    chosen: tuple[str, ...] = ()
    if parsers is None:
        chosen, why = parsers_for_prompts(joined.prompts.values())
    scoring = score_responses(joined.items, joined.responses, parsers=tuple(parsers or chosen),
                              fallback=fallback, fallback_seed=fallback_seed)
    explanation = explain(joined.items, scoring, joined.harness, joined.responses,
                          recorded=source.recorded, harness_name=format)
    return Rescore(
        format, str(path), joined.items, joined.responses, scoring, source.problems + scoring.problems,
        detected=detected, source=source, dataset=joined.dataset, harness=joined.harness, prompts=joined.prompts,
        unjoined=joined.unjoined, notes=source.notes + joined.notes + ((why,) if chosen and why else ()),
        explanation=explanation,
        missing=joined.missing, expected=joined.expected,
        failures=named_failures([it.id for it in joined.items], joined.responses),
        warnings=plausibility(joined.items, joined.responses, scoring),
    )


def parsers_for_prompts(prompts: Iterable[str]) -> tuple[tuple[str, ...], str]:
    """The parsers a file's own prompts call for, the headline first, and why ("" for the default).

    A harness whose prompt asked for the letter in ``\\boxed{}`` (vf-eval's MMMU-Pro environment)
    is headlined by the boxed parser, as ``run --prompt boxed`` is, with the official parser
    beside it so that the gap between the protocols stays visible.
    """
    texts = [p for p in prompts if p]
    boxed = sum(BOX in p for p in texts)
    if texts and boxed * 2 > len(texts):
        return default_parsers("boxed"), (f"headline parser boxed: {boxed} of its {len(texts)} recorded prompts ask for "
                                          "the answer in \\boxed{} (as run --prompt boxed); the official parser beside it")
    return ("official",), ""


def _row(t: Tally) -> dict:
    """A group's figure; ``accuracy`` None when it has no scored row (no figure, never 0.0)."""
    return {"correct": t.correct, "total": t.n, "accuracy": t.correct / t.n if t.n else None}
