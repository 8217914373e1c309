"""Text-only trials: each model answers each question ``trials`` times with its images withheld.

Every trial is an ordinary evaluation (``mmmu_eval.evaluate_async``): MMMU-Pro standard, the
``forced-choice`` prompt (ours: the model is told the images are withheld and must pick an
option anyway), the model wrapped in ``text-only:`` (image parts removed), sampling on, and a
generation seed of its own per model and trial so the trials differ. So each trial is a run
directory (``RUNS/<model label>/trial-NN``) with the runner's concurrency, retries, several
endpoints and resume: running the same step again continues each run where it stopped, and
``mmmu-eval report`` reads any of them. The models run side by side (one task each, trials in
turn), so four models on four servers keep all four busy.

A trial is scored by the official MMMU-Pro parser with no random fallback: an answer with no
letter in it counts as wrong, never as a lucky draw (docs/harden.md).

    runs = await run_trials(dataset_dir, "standard-4", parse_models("frequent,random"), TrialSettings(10))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from mmmu_eval.core.config import RunConfig
from mmmu_eval.run.pipeline import evaluate_async
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import ConfigError, StoreError
from mmmu_eval.core.jsonfile import read_json
from mmmu_eval.run.progress import Display, ProgressDisplay
from mmmu_eval.run.resolve import slug
from mmmu_eval.run.resume import FINISHED, finished_answers
from mmmu_eval.run.runner import run_together
from mmmu_eval.core.records import Item, Response, derived_seed
from mmmu_eval.core.urls import without_credentials
from mmmu_eval.scoring.scorer import score_responses
from mmmu_eval.store.rundir import MANIFEST, RESPONSES, RunStore
from mmmu_eval.core.version import __version__

__all__ = ["Model", "Outcome", "TrialRuns", "TrialSettings", "parse_models", "run_trials", "trial_config", "trial_seed", "trials_finished"]

#: The prompt mode of every trial (``prompt/mmmu_pro_templates.py``, FORCED_CHOICE_INSTRUCTION).
PROMPT = "forced-choice"
#: The images' layout of every trial: the text is one part, MMMU-Pro's standard prompt string,
#: with ``<image>`` where each image was (an image-only option reads ``A. <image>``), then the
#: images, which ``text-only:`` removes. Interleaved, removing them also removed their markers.
LAYOUT = "text-then-images"
#: Sampling temperature when none is given: the model's own distribution, so trials differ.
DEFAULT_TEMPERATURE = 1.0
_ENDPOINT = re.compile(r"@(?=https?://)")
#: The scored trials a run directory keeps for the next reading (``trial_verdicts``).
VERDICTS = "trial-verdicts.json"


@dataclass(frozen=True)
class Model:
    """One text-only model of the filter."""

    label: str
    """``m1-frequent``: its position and a slug of its spec; names its run directories."""
    spec: str
    """The spec as given (``openai:gpt-4o``, ``frequent``)."""
    base_urls: tuple[str, ...] | None = None
    """Its own endpoints (``SPEC@URL@URL``); None uses ``--base-url``."""

    @property
    def text_only_spec(self) -> str:
        return self.spec if self.spec.startswith("text-only:") else f"text-only:{self.spec}"

    def to_json(self) -> dict[str, Any]:
        """The model as harden.json records it: its endpoints without the ``user:password@`` they
        may carry (sent as Basic auth, never written; ``text_check.py`` takes them again from the
        URLs the later step is given)."""
        urls = [without_credentials(u) for u in self.base_urls] if self.base_urls else None
        return {"label": self.label, "spec": self.spec, "base_urls": urls}


def parse_models(specs: str | Sequence[str], base_urls: Sequence[str] | None = None) -> tuple[Model, ...]:
    """``"openai:a,openai:b@http://node2:8000/v1,frequent"`` -> Models, numbered from 1.

    A spec may carry its own endpoints after ``@`` (several: ``@URL@URL``); the others use
    ``base_urls``. The same spec may appear twice (two runs of one model count as two models).

    Raises:
        ConfigError: no model given, or an empty entry.
    """
    entries = [s.strip() for s in specs.split(",")] if isinstance(specs, str) else [s.strip() for s in specs]
    if not entries or any(not e for e in entries):
        raise ConfigError("--models: give one or more model specs separated by commas, e.g. openai:gpt-4o,frequent")
    models = []
    for index, entry in enumerate(entries, start=1):
        spec, *urls = _ENDPOINT.split(entry)
        name = slug(spec.removeprefix("text-only:"), limit=40, empty="model")
        own = tuple(urls) or (tuple(base_urls) if base_urls else None)
        models.append(Model(f"m{index}-{name}", spec, own))
    return tuple(models)


@dataclass(frozen=True)
class TrialSettings:
    """How the trials are asked."""

    trials: int = 10
    """Answers per model per question (the paper: 10)."""
    seed: int = 0
    """Derives every trial's generation seed (``trial_seed``)."""
    temperature: float = DEFAULT_TEMPERATURE
    """Sampling temperature of every trial."""
    run: Mapping[str, Any] = field(default_factory=dict)
    """Further RunConfig fields for every trial: concurrency, max_attempts, max_tokens, ..."""

    def __post_init__(self) -> None:
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or self.trials < 1:
            raise ConfigError(f"--trials must be a whole number of at least 1, not {self.trials!r}")
        if self.temperature is None or self.temperature < 0:
            raise ConfigError(f"--temperature must be at least 0, not {self.temperature!r}")


def trial_seed(seed: int, label: str, trial: int) -> int:
    """The generation seed of one model's trial: distinct per model and trial, stable forever."""
    return derived_seed(f"{seed}:{label}:{trial}")


@dataclass
class Outcome:
    """One model's trials on one question."""

    preds: list[str | None] = field(default_factory=list)
    """The letter parsed from each answered trial (None: no letter found), in trial order."""
    correct: int = 0
    """Answered trials whose letter is the gold answer."""
    failed: int = 0
    """Trials without an answer (a request that failed after its retries, or never asked)."""

    @property
    def answered(self) -> int:
        return len(self.preds)


@dataclass(frozen=True)
class TrialRuns:
    """Every trial of every model on one set."""

    outcomes: dict[str, dict[str, Outcome]]
    """Model label -> item id -> Outcome."""
    runs: tuple[dict[str, Any], ...]
    """Per run: model label, trial, seed, path, counts."""
    items: tuple[Item, ...]
    """The questions asked, as the trials read them."""

    @property
    def unasked(self) -> int:
        """Trials never asked (a run stopped early or was interrupted): the set is not finished."""
        return sum(int(r["counts"].get("missing", 0)) for r in self.runs)

    @property
    def failed(self) -> int:
        return sum(int(r["counts"].get("error", 0)) for r in self.runs)

    def lacking(self) -> list[str]:
        """Each run whose trials lack answers, named: ``m1-x trial-03: 2 failed, 1 not asked``."""
        named = []
        for run in self.runs:
            failed, unasked = int(run["counts"].get("error", 0)), int(run["counts"].get("missing", 0))
            if failed or unasked:
                named.append(f"{run['model']} trial-{int(run['trial']):02d}: {failed} failed, {unasked} not asked")
        return named

    def complete(self, label: str) -> bool:
        """Whether every trial of the model has its answer (only then is its accuracy whole)."""
        return not any(r["model"] == label and (r["counts"].get("error") or r["counts"].get("missing")) for r in self.runs)

    def whole_accuracy(self, label: str, ids: Sequence[str] | None = None) -> float | None:
        """``accuracy``, but None while some trial of the model lacks its answer: a share over
        the trials that happened to answer is not the figure the paper's rule reads."""
        return self.accuracy(label, ids) if self.complete(label) else None

    def accuracy(self, label: str, ids: Sequence[str] | None = None) -> float | None:
        """Share of answered trials that were right, over ``ids`` (default: every question)."""
        per = self.outcomes.get(label, {})
        chosen = per.values() if ids is None else [per[i] for i in ids if i in per]
        answered = sum(o.answered for o in chosen)
        return sum(o.correct for o in chosen) / answered if answered else None


async def run_trials(
    data_dir: Path,
    setting: str,
    models: Sequence[Model],
    settings: TrialSettings,
    runs_root: Path,
    *,
    display: Display | None = None,
) -> TrialRuns:
    """Ask every model every question of ``data_dir``'s ``setting`` config ``settings.trials`` times.

    Args:
        data_dir: an MMMU-Pro-layout directory (the step's staging set or output).
        setting: ``standard-4`` or ``standard-10``.
        models: the text-only models.
        settings: trials, seed, temperature and run knobs.
        runs_root: the run directories go to ``runs_root/<label>/trial-NN``.
        display: one progress display over all the trials.

    Returns:
        The outcomes; runs with failed or unasked items are in it, counted (see ``TrialRuns``).

    Raises:
        ConfigError: a model cannot be set up (unknown spec, unreachable server), before or
            during the trials; the other models' runs are stopped, and keep what they stored.
    """
    dataset = load_benchmark("mmmu-pro", setting=setting, data=data_dir)
    items = dataset.items
    plan = [
        (model, trial, runs_root / model.label / f"trial-{trial:02d}", trial_seed(settings.seed, model.label, trial))
        for model in models for trial in range(1, settings.trials + 1)
    ]
    shared = display or ProgressDisplay(label="text-only trials")
    shared.start(len(plan) * len(items), done=sum(_answered_before(path, items) for _, _, path, _ in plan))
    forward = _Forward(shared)
    runs: list[dict[str, Any]] = []

    async def one_model(model: Model) -> None:
        for m, trial, path, seed in plan:
            if m is not model:
                continue
            result = await evaluate_async(display=forward, **_trial_run(data_dir, setting, model, settings, path, seed))
            runs.append({"model": model.label, "trial": trial, "seed": seed, "path": str(path), "counts": dict(result.counts)})

    try:
        await run_together([one_model(m) for m in models])
    finally:
        shared.stop()
    runs.sort(key=lambda r: (r["model"], r["trial"]))
    return TrialRuns(_outcomes(items, models, runs, dataset.digest), tuple(runs), tuple(items))


def _trial_run(data_dir: Path, setting: str, model: Model, settings: TrialSettings, path: Path, seed: int) -> dict[str, Any]:
    """The settings of one trial's evaluation (``evaluate_async`` keywords)."""
    return dict(model=model.text_only_spec, benchmark="mmmu-pro", setting=setting, prompt=PROMPT,
                data=str(data_dir), out=path, resume=(path / MANIFEST).exists(), generation_seed=seed,
                temperature=settings.temperature, base_urls=model.base_urls, html=False,
                **{**dict(settings.run), "image_layout": LAYOUT})


def trial_config(data_dir: Path, setting: str, model: Model, settings: TrialSettings, trial: int, path: Path) -> RunConfig:
    """The RunConfig of one trial's run in ``path``, as ``run_trials`` evaluates it."""
    from mmmu_eval.run.resolve import resolve_config

    config, _ = resolve_config(None, _trial_run(data_dir, setting, model, settings, path,
                                                trial_seed(settings.seed, model.label, trial)))
    return config


def trials_finished(data_dir: Path, setting: str, models: Sequence[Model], settings: TrialSettings,
                    runs_root: Path) -> float | None:
    """When every trial run is finished exactly as ``run_trials`` would run it (``finished.py``):
    the time its last results were written (ns since the epoch); None when any is not."""
    from mmmu_eval.run.finished import finished_result

    newest = 0
    for model in models:
        for trial in range(1, settings.trials + 1):
            path = runs_root / model.label / f"trial-{trial:02d}"
            config = trial_config(data_dir, setting, model, settings, trial, path)
            if finished_result(config) is None:
                return None
            newest = max(newest, (path / "results.json").stat().st_mtime_ns)
    return newest


def _outcomes(items: Sequence[Item], models: Sequence[Model], runs: Sequence[Mapping[str, Any]],
              digest: str) -> dict[str, dict[str, Outcome]]:
    outcomes = {m.label: {it.id: Outcome() for it in items} for m in models}
    for run in runs:
        verdicts = trial_verdicts(Path(run["path"]), items, digest)
        per = outcomes[run["model"]]
        for item in items:
            verdict = verdicts.get(item.id)
            if verdict is None:
                per[item.id].failed += 1
                continue
            per[item.id].preds.append(verdict[0])
            per[item.id].correct += int(verdict[1])
    return outcomes


def trial_verdicts(path: Path, items: Sequence[Item], digest: str) -> dict[str, tuple[str | None, bool]]:
    """Item id -> (letter parsed, right) for each answered trial of one run directory.

    Scoring every stored answer of a 40-run filter again on each rerun took most of the time a
    finished filter needed to find out it was done; the verdicts are kept in the run directory
    (``VERDICTS``) under what they were read from (the answers file's size and time, the data
    digest, the package version) and read back while those are unchanged.
    """
    answers = (path / RESPONSES).stat()
    key = [answers.st_size, answers.st_mtime_ns, digest, len(items), __version__]
    try:
        kept = read_json(path / VERDICTS)
        if isinstance(kept, dict) and kept.get("from") == key:
            return {i: (v[0], bool(v[1])) for i, v in kept["verdicts"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError, StoreError):  # StoreError: a link, never followed
        pass
    store = RunStore.read(path)
    answered = finished_answers(store.responses())
    scored = score_responses(items, answered, parsers=("official",), fallback="none").verdicts["official"]
    verdicts = {i: (v.pred, bool(v.correct)) for i, v in scored.items()}
    try:
        RunStore(path, writable=True).write_json(VERDICTS, {"from": key, "verdicts": {i: list(v) for i, v in verdicts.items()}})
    except (OSError, StoreError):  # a read-only copy: score again next time
        pass
    return verdicts


def _answered_before(path: Path, items: Sequence[Item]) -> int:
    """Items already answered in a run directory from an earlier session (0 when there is none)."""
    if not (path / MANIFEST).exists():
        return 0
    store = RunStore.read(path)
    manifest = store.manifest_record()
    counts = manifest.counts or {}
    if manifest.status == "complete" and counts.get("items") == len(items):
        return sum(int(counts.get(status, 0)) for status in FINISHED)  # without reading every answer
    finished = finished_answers(store.responses())
    return sum(1 for it in items if it.id in finished)


class _Forward:
    """One run's display calls, passed on to the display of all the trials."""

    def __init__(self, shared: Display) -> None:
        self.shared = shared

    def start(self, total: int, done: int = 0, errors: int = 0) -> None:
        return None

    def advance(self, response: Response) -> None:
        self.shared.advance(response)

    def stop(self) -> None:
        return None
