"""``rescore --out``: another harness's output, rescored, as a normal run directory.

    rescore (read -> join -> score -> explain)  ->  manifest  ->  store (responses, verdicts)
            ->  run.outputs (statuses, results.json + harness, predictions.jsonl, report.html)

The rescore's scoring is the stored responses' scoring, so it is not scored again (only a row
whose response was not text, stored as an error, makes the stored responses differ).

The directory is what ``mmmu-eval run`` leaves, so ``report``, ``report --html``, ``score`` and
``compare`` work on it: ``manifest.json`` names the data the rows were joined to and the scoring
record, and ``rescored_from`` says which harness file the responses came from (its path, digest,
task, model and recorded accuracy). Two files are its own: ``harness.jsonl`` (the harness's
verdicts and prompts, from which the ``harness`` section is rebuilt whenever the run is scored
again) and, for the official formats whose items come from the file, ``items.jsonl``.

>>> import json
>>> from pathlib import Path
>>> rows = [{"id": "validation_Accounting_2", "response": "The answer is (B).", "correct": True},
...         {"id": "validation_Art_2", "response": "I think it is B", "correct": True},
...         {"id": "validation_Art_3", "response": "C", "correct": True}]   # the harness's own verdicts
>>> _ = Path("answers.jsonl").write_text("".join(json.dumps(row) + "\\n" for row in rows))
>>> from mmmu_eval.harnesses.read import rescore
>>> run = write_rescored_run(rescore("answers.jsonl", data="sample", benchmark="mmmu"), "runs/rescored")
>>> run.results["harness"]["causes"]["open-match"]["harness_only_right"]
1
>>> sorted(p.name for p in Path("runs/rescored").iterdir())
['harness.jsonl', 'manifest.json', 'predictions.jsonl', 'report.html', 'responses.jsonl', 'results.json']
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from mmmu_eval.core.clock import utc_now
from mmmu_eval.dataset.digest import file_sha256
from mmmu_eval.core.records import Response
from mmmu_eval.results.harness import HARNESS, MANIFEST_KEY, harness_rows
from mmmu_eval.harnesses.read import Rescore
from mmmu_eval.run.outputs import write_outputs
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.scoring.spec import ScoringSpec
from mmmu_eval.store.itemfile import ITEMS, item_to_json
from mmmu_eval.core.manifest import build_manifest
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.core.version import __version__
from mmmu_eval.core.writer_lock import hold_directory


@dataclass(frozen=True)
class RescoredRun:
    """The run directory ``write_rescored_run`` wrote, and what it holds."""

    run_dir: Path
    """The run directory written."""
    manifest: dict[str, Any]
    """Its manifest.json: the harness, the format read, the data, the scoring (no protocol fingerprint)."""
    results: dict[str, Any]
    """results.json, with its ``harness`` section."""
    scoring: Scoring
    """The scoring of the stored responses (what results.json says)."""
    stored_as_errors: tuple[str, ...]
    """Ids whose response was not text (official formats only): stored, and counted, as errors."""


def write_rescored_run(result: Rescore, out: str | Path, *, html: bool = True, images: bool = True) -> RescoredRun:
    """Write ``result`` as a run directory in ``out`` (which must not hold a run yet).

    Raises:
        StoreError: ``out`` holds a run or files, cannot be written, or another process writes it.
    """
    with hold_directory(Path(out), "rescore"):  # one writer per directory (writer_lock.py)
        return _write_held(result, out, html=html, images=images)


def _write_held(result: Rescore, out: str | Path, *, html: bool, images: bool) -> RescoredRun:
    spec = ScoringSpec(parsers=result.scoring.parsers, fallback=result.scoring.fallback_policy,
                       fallback_seed=result.scoring.fallback_seed)
    manifest = rescored_manifest(result, spec)
    store = RunStore.open(out, manifest, resume=False)
    stored_as_errors = []
    with store:
        for item in result.items:
            response = result.responses.get(item.id)
            if response is None:
                continue
            if not isinstance(response.text, str):
                # A run directory holds text; the official code would have crashed on this row.
                response = Response(item.id, "error", error=f"the row's response is {type(response.text).__name__}, not text")
                stored_as_errors.append(item.id)
            store.append(response)
    if manifest["dataset"]["source"] == "file":
        store.write_jsonl(ITEMS, (item_to_json(it) for it in result.items))
    store.write_jsonl(HARNESS, harness_rows(result.harness, result.prompts, [it.id for it in result.items]))

    responses = store.responses()
    items = result.items
    scoring = _scoring_of(result, spec, responses)
    written = write_outputs(store, items, responses, scoring, prompts=result.prompts,
                            html=html, images=images, absent=len(result.missing) + result.absent)
    return RescoredRun(store.path, written.manifest, written.results, scoring, tuple(stored_as_errors))


def _scoring_of(result: Rescore, spec: ScoringSpec, stored: Mapping[str, Response]) -> Scoring:
    """The scoring of the stored responses: the rescore's own when they are the ones it scored.

    They differ only where a row's response was not text and is stored as an error; only then
    are the stored responses scored again, so a rescore is scored once.
    """
    scored = {it.id: result.responses[it.id] for it in result.items if it.id in result.responses}
    return result.scoring if stored == scored else spec.score(result.items, stored)


#: The endings a harness's output file is named with; only these are taken off a file's name.
KNOWN_ENDINGS = (".jsonl", ".json", ".xlsx", ".eval", ".csv", ".tsv")


def file_model_name(path: str | Path) -> str:
    """The run's model name read from a harness file's (or folder's) name: only a known ending
    taken off, never at the first dot, so ``llava1.5_13b`` stays whole (``Path.stem`` keeps
    ``llava1``).

    >>> file_model_name("eval/example_outputs/llava1.5_13b_val.json"), file_model_name("outputs/llava1.5_13b")
    ('llava1.5_13b_val', 'llava1.5_13b')
    """
    name = Path(path).name
    if Path(path).is_dir():
        return name
    for ending in KNOWN_ENDINGS:
        if name.lower().endswith(ending) and len(name) > len(ending):
            return name[: -len(ending)]
    return name


def rescored_manifest(result: Rescore, spec: ScoringSpec) -> dict[str, Any]:
    """What manifest.json says about a rescored run."""
    first = result.items[0] if result.items else None
    benchmark = first.benchmark if first else "mmmu"
    split = first.split if first and benchmark == "mmmu" else ("test" if benchmark == "mmmu-pro" else None)
    setting = first.setting if first else None
    source = result.source
    model = (source.model if source and source.model else None) or file_model_name(result.path)
    mode = source.prompt_mode if source else None
    dataset = result.dataset
    if dataset is None:  # an official format: the items are the file's
        data_block: dict[str, Any] = {"benchmark": benchmark, "split": split, "setting": setting, "source": "file",
                                      "revision": None, "digest": None, "files": [ITEMS], "problems": []}
        data, revision = "file", None
    else:
        data_block = dataset.manifest_block()
        data = dataset.source if dataset.source in ("hub", "sample") else str(Path(dataset.source).resolve())
        revision = dataset.revision if dataset.source == "hub" else None
    recorded = source.recorded if source else None
    sources = source.sources if source else (result.path,)
    return build_manifest(
        package_version=__version__,
        started_at=utc_now(),
        config={
            "model": f"{result.format}:{model}", "benchmark": benchmark, "split": split, "setting": setting,
            "data": data, "revision": revision, "subjects": None, "prompt": mode,
        },
        protocol={
            "benchmark": benchmark, "setting": setting, "mode": mode, "fingerprint": None,
            "harness": result.format,
            "notes": [f"prompts and generation were {result.format}'s; the responses are scored here"],
        },
        scoring=spec.to_manifest(),
        dataset=data_block,
        shard=None,
        item_ids=[it.id for it in result.items],
        **{MANIFEST_KEY: {
            "format": result.format,
            "path": str(Path(result.path).resolve()),
            "detected": result.detected,
            "task": source.task if source else None,
            "model": source.model if source else None,
            "files": [{"path": str(Path(p).resolve()), "sha256": file_sha256(p)} for p in sources if Path(p).is_file()],
            "recorded": None if recorded is None else {"accuracy": recorded.accuracy, "source": recorded.source, "n": recorded.n},
            "problems": list(result.problems),
            "unjoined": list(result.unjoined),
            # Items the file should cover that no row names (a cut file, a run with a limit).
            "missing": list(result.missing),
            "absent": result.absent,  # rows lacking whose ids the file cannot tell (an official file cut short)
            "notes": list(result.notes),
            "warnings": list(result.warnings),
        }},
    )
