"""What the audit reads: run directories, suites and other harnesses' files, as one kind of record.

Each input becomes one or more ``RunAnswers``: the items a run saw (question, options, gold, as
that run's data held them) and the option it chose on each, named by its TEXT, so that runs of
different shuffles and settings can be set side by side. A random fallback is no choice: the
official parser drew the letter, the model did not pick it.

- a run directory (``manifest.json``): read with ``results.finished_run`` and scored as the run says;
- a suite directory (no manifest, run directories below it): each of its runs;
- any other file or folder: read with ``rescore`` (``--format auto`` unless told), so every
  harness ``rescore`` reads, the official repository's outputs included, feeds the audit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.core.records import Item, letters
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.core.manifest import MANIFEST, Manifest

if TYPE_CHECKING:
    from mmmu_eval.auditing.rows import RowText

#: The official file names of the 2024 outputs: ``<model>_<prompt>_<Setting>.jsonl``.
_OFFICIAL_NAME = re.compile(r"^(?P<model>.+?)_(?P<prompt>direct|cot|ocr)_(?P<setting>[^_]+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """One run's answer on one item: the option it chose, by text, beside the gold, by text."""

    choice: str | None
    """The chosen option's text; None when nothing was parsed or the letter was a random fallback."""
    correct: bool
    """The official verdict (a fallback that happened to hit the gold counts, as officially)."""
    fallback: bool = False
    """Whether the official random fallback chose the letter (then ``choice`` is None)."""


@dataclass(frozen=True)
class RunAnswers:
    """One run (or one harness file) as the audit sees it."""

    name: str
    """How the report names it: the run directory's or the file's name."""
    path: str
    """The run directory or file, as given."""
    model: str
    """The model, so that agreement can be counted across models (several runs of one model
    agreeing are weaker evidence than several models)."""
    setting: str
    """``standard-10``, ``standard-4``, ``vision`` (MMMU-Pro) or ``mmmu``."""
    prompt: str | None
    """The prompt mode (``direct``, ``cot`` ...); None where the file does not say."""
    revision: str | None
    """The data revision the run read (None for files that carry their own items)."""
    kind: str
    """``run`` or the rescore format the file was read as."""
    items: Mapping[str, Item]
    """Item id -> the item as the run held it (options in its order)."""
    answers: Mapping[str, Answer]
    """Item id -> the run's answer."""
    accuracy: float | None
    """The run's official accuracy over the items it answered, against its own gold; None when it
    answered none (every request failed): no figure, and no vote on any item."""
    images: Mapping[str, int] = field(default_factory=dict)
    """Item id -> how many images it holds, where the items carry no image records (official files)."""
    originals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Item id -> its original options in order, where the file's rows hold them beside the
    shuffled ten (the 2024-era official outputs): the four-option form (``forms.py``)."""


@dataclass(frozen=True)
class Inputs:
    """What the audit's paths hold: the runs, and what build data says of the augmentation."""

    runs: list[RunAnswers]
    build: dict[str, tuple[str, ...]]
    """Item id -> its original options, from build data files (``mix_data.jsonl``)."""
    build_files: tuple[str, ...] = ()


def read_sources(paths: Sequence[str | Path], *, data: str | Path = "hub", format: str = "auto") -> list[RunAnswers]:
    """Every run the paths hold, in the order given (a suite's runs in name order); see ``read_inputs``."""
    return read_inputs(paths, data=data, format=format).runs


def read_inputs(paths: Sequence[str | Path], *, data: str | Path = "hub", format: str = "auto") -> Inputs:
    """Every run the paths hold, in the order given (a suite's runs in name order), and the original
    options that build data among them records (``mix_data.jsonl``: no run, so not scored).

    Raises:
        ConfigError: a path that does not exist, or that nothing recognises.
        DataError / StoreError: a file or run that cannot be read (the message names it).
    """
    from mmmu_eval.auditing.rows import build_data_originals, is_build_data

    runs: list[RunAnswers] = []
    build: dict[str, tuple[str, ...]] = {}
    build_files: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ConfigError(f"{path}: no such file or folder")
        if is_build_data(path):
            build.update(build_data_originals(path))
            build_files.append(str(path))
        elif path.is_dir() and (path / MANIFEST).is_file():
            runs.append(_read_run(path))
        elif path.is_dir() and not _looks_like_harness_folder(path) and _run_dirs(path):
            runs.extend(_read_run(p) for p in _run_dirs(path))
        else:
            runs.append(_read_file(path, data=data, format=format))
    names = [r.name for r in runs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        # Two inputs of one name would be indistinguishable in the report: name them by path.
        runs = [_renamed(r, r.path) if r.name in dup else r for r in runs]
    return Inputs(runs, build, tuple(build_files))


def _renamed(run: RunAnswers, name: str) -> RunAnswers:
    from dataclasses import replace

    return replace(run, name=name)


def _run_dirs(folder: Path) -> list[Path]:
    """The run directories below a suite directory (any depth), in path order."""
    return sorted(p.parent for p in folder.rglob(MANIFEST) if p.parent != folder)


def _looks_like_harness_folder(folder: Path) -> bool:
    """The official MMMU output folder (``<Subject>/output.json``) is a harness's, not a suite."""
    return any(folder.glob("*/output.json"))


def _read_run(path: Path) -> RunAnswers:
    from mmmu_eval.results.finished_run import read_run

    loaded = read_run(path, details=True)
    record = Manifest.of(loaded.manifest, path / MANIFEST)
    config = record.config
    benchmark = str(config.get("benchmark") or "mmmu")
    setting = str(config.get("setting") or "standard-10") if benchmark == "mmmu-pro" else "mmmu"
    model = str(config.get("model") or "unknown")
    rescored = record.rescored_from
    if rescored and rescored.get("model"):
        model = str(rescored["model"])
    revision = record.dataset.get("revision") or record.dataset.get("resolved_revision")
    assert loaded.items is not None and loaded.scoring is not None
    return RunAnswers(
        name=path.name, path=str(path), model=model, setting=setting, prompt=record.prompt_mode,
        revision=None if revision is None else str(revision), kind="run",
        items={it.id: it for it in loaded.items}, answers=_answers(loaded.items, loaded.scoring),
        accuracy=_accuracy(loaded.scoring),
    )


def _read_file(path: Path, *, data: str | Path, format: str) -> RunAnswers:
    from mmmu_eval.auditing.rows import official_row_texts
    from mmmu_eval.harnesses.read import rescore

    try:
        result = rescore(path, format=format, data=data)
    except MmmuEvalError as exc:
        raise type(exc)(f"audit: {exc}") from None
    items = list(result.items)
    images: dict[str, int] = {}
    originals: dict[str, tuple[str, ...]] = {}
    if result.format == "official-mmmu-pro":
        # The official reader builds items without the question text; the audit shows it.
        texts = official_row_texts(path)
        items = [_with_question(it, texts.get(it.id)) for it in items]
        images = {k: v.images for k, v in texts.items()}
        originals = {k: v.original for k, v in texts.items() if v.original is not None}
    first = items[0] if items else None
    benchmark = first.benchmark if first else "mmmu"
    setting = (first.setting or "standard-10") if (first and benchmark == "mmmu-pro") else "mmmu"
    model, prompt = _name_parts(path, result)
    revision = None if result.dataset is None else result.dataset.revision
    return RunAnswers(
        name=path.stem if path.is_file() else path.name, path=str(path), model=model, setting=str(setting),
        prompt=prompt, revision=revision, kind=result.format, items={it.id: it for it in items},
        answers=_answers(items, result.scoring), accuracy=_accuracy(result.scoring), images=images,
        originals=originals,
    )


def _with_question(item: Item, text: RowText | None) -> Item:
    from dataclasses import replace

    return item if text is None or item.question else replace(item, question=text.question)


def _name_parts(path: Path, result: object) -> tuple[str, str | None]:
    """The model and prompt mode of a harness file: its own record, else its official file name."""
    source = getattr(result, "source", None)
    model = getattr(source, "model", None) if source is not None else None
    match = _OFFICIAL_NAME.match(path.stem)
    if model:
        return str(model), match["prompt"].lower() if match else None
    if match:
        return match["model"], match["prompt"].lower()
    return path.stem, None


def _answers(items: Sequence[Item], scoring: Scoring) -> dict[str, Answer]:
    verdicts = scoring.verdicts[scoring.parsers[0]]
    out: dict[str, Answer] = {}
    for item in items:
        v = verdicts.get(item.id)
        if v is None or item.question_type != "multiple-choice":
            continue
        out[item.id] = Answer(choice=None if v.fallback else option_text(item, v.pred),
                              correct=bool(v.correct), fallback=bool(v.fallback))
    return out


def option_text(item: Item, letter: object) -> str | None:
    """The text of the option ``letter`` names in ``item``; None when it names none."""
    if not isinstance(letter, str):
        return None
    labels = letters(len(item.options))
    if letter not in labels:
        return None
    text = item.options[labels.index(letter)]
    return text if isinstance(text, str) else None


def gold_text(item: Item) -> str | None:
    """The gold option's text; None when the gold is no letter of the options (structural)."""
    return option_text(item, item.answer)


def _accuracy(scoring: Scoring) -> float | None:
    overall = scoring.aggregates[scoring.parsers[0]].overall
    return overall.accuracy if overall.n else None
