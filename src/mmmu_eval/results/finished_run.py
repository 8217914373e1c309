"""A finished run read back: ``FinishedRun``, the one record every command over finished runs
reads (report, compare, doctor, the suite's study and page, the audit, a finished run run again),
and ``read_run``, its one reader.

A run directory holds the manifest and the responses; ``results.json`` is derived from them.
``read_run`` takes ``results.json`` when it is there and was scored as the run's scoring says,
and otherwise rebuilds it: it loads the run's items again (same benchmark, split or setting, data
source, revision and subjects as the manifest says), scores the stored responses with the real
scorer, and builds the results. ``details`` keeps the items, the responses and the scoring (the
item browser of the HTML report, the doctor and the audit need them); ``rebuild=False`` takes
the files as they are and reads no answer (the suite's study, a finished run run again).

Reading writes nothing: a rebuilt results.json is saved, under one rule, by ``commands.report``
through ``run.outputs``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.core.errors import MmmuEvalError, StoreError, argument
from mmmu_eval.core.records import Item, Response
from mmmu_eval.core.renamed import renamed_keywords
from mmmu_eval.results.caveats import void, void_reason
from mmmu_eval.results.results_json import Results, build_results, lookup, read_results
from mmmu_eval.stats.intervals import RESAMPLES
from mmmu_eval.scoring.answers import Answer, apply_answers, load_answer_dict
from mmmu_eval.core.manifest import MANIFEST, Manifest, how_it_stopped

# The types of the record's fields are imported at run time: typing.get_type_hints (and so the
# public-surface test and any tool that reads the annotations) resolves them.
from mmmu_eval.scoring.scorer import Scoring

if TYPE_CHECKING:
    from mmmu_eval.scoring.spec import ScoringSpec

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FinishedRun:
    """A run directory read back; ``items``/``responses``/``scoring`` are None when not asked for."""

    path: Path
    """The run directory."""
    manifest: dict
    """manifest.json (empty for a planned run that left no directory: ``missing``)."""
    results: Results | None
    """results.json, as read or rebuilt; None when the run has none and it was not rebuilt."""
    items: tuple[Item, ...] | None = None
    """The run's items with their gold answers (read with ``details``)."""
    responses: dict[str, Response] | None = None
    """The stored responses by item id (read with ``details``)."""
    scoring: Scoring | None = None
    """The run's scoring of them (read with ``details``)."""
    rebuilt: bool = False
    """True when ``results`` was computed now rather than read from results.json."""
    benchmark: str = ""
    """``mmmu`` or ``mmmu-pro``, as the manifest's configuration says."""
    setting: str | None = None
    """The MMMU-Pro setting; None for MMMU."""
    split: str = ""
    """The split: ``dev``, ``validation`` or ``test`` for MMMU (default ``validation``); MMMU-Pro has one, ``test``."""
    prompt: str = ""
    """The prompt mode: ``direct``, ``cot``, ``ocr`` ..."""
    lacking: int = 0
    """Items without a scored answer: errors, never asked, unreadable dataset rows."""
    problem: str | None = None
    """Why the run gives no figure over all its items (no results, lacking items, no gold
    answers, or why it is not there at all); None when it does."""

    @property
    def name(self) -> str:
        """The run directory's name (a suite names its runs so)."""
        return self.path.name

    @property
    def usable(self) -> bool:
        """The run has results over every one of its items, so its figure stands for the whole run."""
        return self.problem is None

    @property
    def label(self) -> str:
        """``standard-10 (cot)``, ``MMMU validation (direct)``."""
        return f"{self.setting or 'MMMU ' + self.split} ({self.prompt})"

    @property
    def key(self) -> tuple[str, str, str]:
        """(benchmark, setting or split, prompt): what the run measured."""
        return self.benchmark, self.setting or self.split, self.prompt

    def read_responses(self) -> dict[str, Response]:
        """The stored responses by item id, read now (``responses`` holds them with ``details``);
        empty for a run that left no directory."""
        if self.responses is not None:
            return dict(self.responses)
        if not self.manifest:
            return {}
        from mmmu_eval.store.rundir import RunStore

        return RunStore(self.path, writable=False).responses()

    @classmethod
    def missing(cls, path: Path, config: Mapping[str, Any], problem: str) -> FinishedRun:
        """A run that should be at ``path`` (as ``config``, a RunConfig's manifest form, says) and
        is not, or cannot be read: ``problem`` says which."""
        return cls(path, {}, None, problem=problem, **_identity(config))


#: The name the record had before it was the one record of a finished run (``mmmu_eval.LoadedRun``).
LoadedRun = FinishedRun


def _identity(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a run measured, from its configuration: benchmark, setting, split, prompt."""
    benchmark = str(config.get("benchmark") or "")
    return {"benchmark": benchmark,
            "setting": config.get("setting") if benchmark == "mmmu-pro" else None,
            "split": str(config.get("split") or ("test" if benchmark == "mmmu-pro" else "validation")),
            "prompt": str(config.get("prompt") or "direct")}


def lacking_items(manifest: Mapping[str, Any], results: Results | None) -> tuple[int, str | None]:
    """(items lacking a scored answer, why the run gives no figure over all its items)."""
    record = Manifest.of(manifest)
    lacking, problem = _lacking(record, results)
    stopped = how_it_stopped(record)  # a run an exception ended says so wherever its gap is named
    return lacking, problem if problem is None or stopped is None else f"{problem}: {stopped}"


def _lacking(record: Manifest, results: Results | None) -> tuple[int, str | None]:
    if results is None:
        return len(record.item_ids or ()), "has no results.json (the run did not finish)"
    # a results.json edited by hand may lack a count: it is read as none (report and compare use
    # the file's figures; this only says whether they stand for every item)
    coverage = {key: int(results.get("coverage", {}).get(key) or 0) for key in ("items", "errors", "missing")}
    config = record.config
    unreadable = 0 if config.get("ids") or config.get("limit") or config.get("sample") else len(record.dataset.get("problems") or ())
    lacking = coverage["errors"] + coverage["missing"] + unreadable
    if not results.get("gold_available", True):
        return lacking, "has no gold answers (test split): no accuracy"
    if void(results):  # nothing scored: no figure at all, not a figure over fewer items
        return lacking, f"has no score ({void_reason(results)})"
    if not lacking:
        return 0, None
    parts = [f"{n} {what}" for n, what in ((coverage["errors"], "failed"), (coverage["missing"], "not asked"),
                                           (unreadable, "unreadable dataset rows")) if n]
    return lacking, f"lacks {lacking} of {coverage['items'] + unreadable} items ({', '.join(parts)})"


def run_items(
    manifest: Mapping, responses: Mapping[str, Response], *, manifest_path: str | Path | None = None
) -> tuple[Item, ...]:
    """The items a run evaluated, loaded again as its manifest describes them.

    Items come from the same data source; an explicit ``item_ids`` list in the manifest wins.
    Without one, ``--ids`` and ``--limit`` are applied again; a ``--shard`` run is taken to be
    the items that have a response (its missing items cannot be told apart from the others').
    """
    from mmmu_eval.dataset.load import load_benchmark

    record = Manifest.of(manifest, manifest_path or MANIFEST)
    if record.dataset.get("source") == "file" and manifest_path is not None:
        return _file_items(Path(manifest_path).parent)
    if not record.has_config and "benchmark" not in record:
        # Without this, every setting fell back to its default and an offline run was looked up
        # on the hub: a network error that said nothing about the damaged manifest.
        raise StoreError(
            "has no 'config', so which data the run used is unknown; "
            f"restore it from a copy, or run the evaluation again with a new {argument('out')}",
            manifest_path,
        )
    config = record.config
    benchmark = str(config.get("benchmark") or lookup(manifest, "benchmark") or "mmmu")
    data = config.get("data") or "hub"
    revision = config.get("revision")
    if data == "hub":
        revision = lookup(manifest, "dataset_revision", "resolved_revision") or revision
    subjects = config.get("subjects") or None
    dataset = load_benchmark(
        benchmark,
        split=config.get("split") if benchmark == "mmmu" else None,
        setting=config.get("setting") if benchmark == "mmmu-pro" else None,
        data=data,
        revision=revision,
        subjects=subjects,
    )
    recorded = lookup(manifest, "dataset_digest", "digest")
    if recorded and recorded != dataset.digest:
        log.warning("the dataset files differ from those the run used (digest %s vs %s)", str(recorded)[:12], dataset.digest[:12])
    if record.item_ids is not None:
        wanted = set(record.item_ids)
        return tuple(it for it in dataset.items if it.id in wanted)
    items = dataset.items
    if config.get("ids"):
        wanted = set(config["ids"])
        items = tuple(it for it in items if it.id in wanted)
    if config.get("limit"):
        items = items[: int(config["limit"])]
    if config.get("shard"):
        # The slicing belongs to the runner; a shard is taken to be the items it answered.
        items = tuple(it for it in items if it.id in responses)
    return items


def _file_items(run_dir: Path) -> tuple[Item, ...]:
    """The items a run keeps itself (a rescore of the official output files: ``store/itemfile.py``)."""
    from mmmu_eval.store.itemfile import ITEMS, item_from_json
    from mmmu_eval.store.rundir import RunStore

    rows = RunStore(run_dir, writable=False).read_jsonl(ITEMS)
    if not rows:
        raise StoreError(f"has no {ITEMS}, which holds this rescored run's items; rescore into a new {argument('out')}", run_dir)
    return tuple(item_from_json(row, where) for where, row in rows)


@renamed_keywords(seed="bootstrap_seed")
def read_run(
    path: str | Path,
    *,
    details: bool = False,
    rebuild: bool = True,
    answers: str | Path | Mapping[str, Answer] | None = None,
    bootstrap: int = RESAMPLES,
    bootstrap_seed: int = 0,
) -> FinishedRun:
    """Read a run directory; rebuild its results when results.json is missing. Writes nothing.

    Args:
        path: the run directory.
        details: also load items, responses and scoring (the HTML item browser needs them).
        rebuild: False takes results.json as it is (None when there is none) and reads no
            answer: what a run wrote, never scored again (the suite's study, a finished run
            run again); with ``details`` the run is read in full all the same.
        answers: an official answer dict to score against (the test split), as a file path or as
            ``load_answer_dict`` read it; forces a rebuild.
        bootstrap: bootstrap resamples of the intervals when the results are rebuilt.
        bootstrap_seed: the bootstrap's seed when the results are rebuilt.

    Raises:
        StoreError: the directory is not a readable run.
        ConfigError: an unreadable answer dict.

    ::

        run = mmmu_eval.read_run("runs/sample-random")
        print(run.results["overall"]["accuracy"], run.rebuilt)
    """
    from mmmu_eval.store.rundir import RunStore

    from mmmu_eval.scoring.spec import ScoringSpec

    if isinstance(answers, (str, Path)):
        answers = load_answer_dict(answers)
    store = RunStore.read(path)
    manifest = dict(store.manifest())
    identity = _identity(Manifest.of(manifest, Path(store.path) / MANIFEST).config)
    if not rebuild and not details:
        results = read_results(store.path)
        lacking, problem = lacking_items(manifest, results)
        return FinishedRun(Path(store.path), manifest, results, lacking=lacking, problem=problem, **identity)
    spec = ScoringSpec.from_manifest(manifest)  # the run's own scoring, as `run` and `score` use it
    stored = None if answers else read_results(store.path)
    if stored is not None and not scored_by(stored, spec):
        log.warning(
            "%s: results.json was not scored as the run's scoring says (%s); it is rebuilt",
            store.path, spec.describe(),
        )
        stored = None
    if stored is not None and not details:
        # results.json is at hand, but a damaged responses.jsonl is refused here as by every
        # other reader (report --html, score, doctor), not hidden behind older results
        store.check_responses()
        lacking, problem = lacking_items(manifest, stored)
        return FinishedRun(Path(store.path), manifest, stored, lacking=lacking, problem=problem, **identity)

    responses = store.responses()
    items = run_items(manifest, responses, manifest_path=Path(store.path) / MANIFEST)
    items = apply_answers(items, answers) if answers else spec.gold_items(items)
    scoring = spec.score(items, responses)
    if stored is not None:
        results = stored
    else:
        from mmmu_eval.results.harness import harness_section

        results = build_results(scoring, items, manifest, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed, responses=responses,
                                harness=harness_section(store.path, manifest, items, scoring, responses))
    lacking, problem = lacking_items(manifest, results)
    return FinishedRun(Path(store.path), manifest, results, items, responses, scoring, rebuilt=stored is None,
                       lacking=lacking, problem=problem, **identity)


#: The name the reader had before it was the one reader of a finished run (``mmmu_eval.load_run``).
load_run = read_run


def scored_by(results: Results, spec: ScoringSpec) -> bool:
    """Whether ``results`` came from scoring by ``spec`` (same parsers in order, same fallback)."""
    parse = results.get("parse") or {}
    return (
        list(results.get("parsers") or ()) == list(spec.parsers)
        and parse.get("fallback_policy") == spec.fallback
        and (spec.fallback != "official" or parse.get("fallback_seed") == spec.fallback_seed)
    )


def prompts_for(items: Sequence[Item], manifest: Mapping, *, run_dir: str | Path | None = None) -> dict[str, str]:
    """The prompt text each item was sent with, rebuilt from the manifest's configuration.

    A rescored run's prompts were the other harness's: those it recorded (``harness.jsonl`` in
    ``run_dir``), never ours. Empty when the configuration cannot be rebuilt (an older manifest):
    the report then shows no prompt rather than a wrong one.
    """
    from dataclasses import fields

    from mmmu_eval.results.harness import load_harness, rescored_from

    if rescored_from(manifest) is not None:
        if run_dir is None:
            return {}
        return load_harness(run_dir)[1]

    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.prompt.protocol import EvalProtocol, prompt_text

    config = Manifest.of(manifest).config
    known = {f.name for f in fields(RunConfig)}
    values = {}
    for key, value in config.items():
        if key in known:
            values[key] = tuple(value) if isinstance(value, list) else value
    try:
        protocol = EvalProtocol.from_config(RunConfig(**values))
    except (MmmuEvalError, TypeError, ValueError) as exc:
        log.warning("cannot rebuild the prompts for the report (%s); they are left out", exc)
        return {}
    out: dict[str, str] = {}
    for item in items:
        try:
            out[item.id] = prompt_text(item, protocol)
        except MmmuEvalError as exc:
            out[item.id] = f"(no prompt: {exc})"
    return out
