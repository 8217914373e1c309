"""The stages before a backend: read the data, choose the items, build their requests, draft
the manifest, and fix the answers of the ``frequent`` baseline (which must not see the gold
answers it is computed from). ``evaluate`` and ``plan_run`` both start with ``prepare_run``.

An API run sends its first request (the model listing) before this work, and does it in a
thread meanwhile (``prepare_run_aside``), so the server's answer arrives while the data is read.
That is why the dataset loader, and pyarrow under it, is imported inside ``load_items``: the
request must not wait for those imports either.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mmmu_eval.backends.settings import FixedAnswers
from mmmu_eval.core.clock import utc_now
from mmmu_eval.core.config import SAMPLE_SEED, RunConfig
from mmmu_eval.dataset.digest import file_sha256
from mmmu_eval.core.errors import ConfigError, DataError, argument
from mmmu_eval.prompt.protocol import EvalProtocol, build_request, loose_images_record
from mmmu_eval.core.records import NOT_SENT, Item, Request, Response
from mmmu_eval.scoring.spec import ScoringSpec
from mmmu_eval.core.manifest import MANIFEST, build_manifest
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.store.same_run import ANSWERS_FILE
from mmmu_eval.core.version import __version__

if TYPE_CHECKING:
    from mmmu_eval.dataset.load import Benchmark

__all__ = [
    "PreparedRun", "build_requests", "frequent_answers", "load_items", "prepare_run", "prepare_run_aside", "run_manifest",
    "run_scoring", "select_items",
]


T = TypeVar("T")


@dataclass(frozen=True)
class PreparedRun:
    """Everything a run knows before it asks a model."""

    dataset: Benchmark
    items: tuple[Item, ...]
    """The selected items, in dataset order."""
    protocol: EvalProtocol
    requests: list[Request]
    failures: list[Response]
    """Items whose request could not be built, as ``error`` responses (stored, never sent)."""
    scoring: ScoringSpec
    manifest: dict[str, Any]
    """manifest.json as the run starts, without the backend's entry."""
    fixed_answers: FixedAnswers | None = None
    """What the ``frequent`` baseline answers to each request (``frequent_answers``); None when
    the items have no gold answers."""


def prepare_run(config: RunConfig) -> PreparedRun:
    """Load, select, build and draft, in pipeline order.

    Raises:
        ConfigError, DataError: the data cannot be read or the selection is empty.
    """
    dataset = load_items(config)
    items = select_items(dataset.items, config)
    protocol = EvalProtocol.from_config(config)
    requests, failures = build_requests(items, protocol)
    scoring = run_scoring(config)
    manifest = run_manifest(config, protocol, dataset, items, scoring=scoring,
                            sample=sample_record(dataset.items, config))
    # The frequent choice is the whole evaluation's, not a shard's: the shards of a run (and the
    # ranks of a launcher) answer as one process would, so their merge equals the unsharded run.
    evaluation = items if config.shard is None else select_items(dataset.items, dataclasses.replace(config, shard=None))
    return PreparedRun(dataset, items, protocol, requests, failures, scoring, manifest,
                       fixed_answers=frequent_answers(evaluation, requests))


async def prepare_run_aside(config: RunConfig) -> PreparedRun:
    """``prepare_run`` in a thread of its own, so that the event loop serves requests meanwhile.

    A daemon thread rather than the loop's executor: if the run is cancelled (Ctrl-C while the
    hub is downloading), the caller stops waiting at once, where ``asyncio.run`` would wait for
    an executor's thread to finish first. The thread's result or error is handed back as is.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[PreparedRun] = loop.create_future()

    def settle(result: PreparedRun | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            outcome: tuple[PreparedRun | None, BaseException | None] = (prepare_run(config), None)
        except BaseException as exc:  # handed to the awaiting task, which raises it
            outcome = (None, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is closed: the run was cancelled and is gone
            pass

    threading.Thread(target=work, name="mmmu-eval-prepare", daemon=True).start()
    return await done


def load_items(config: RunConfig) -> Benchmark:
    """The dataset the configuration names (hub at the pinned revision, a snapshot, or the sample)."""
    from mmmu_eval.dataset.load import load_benchmark  # pyarrow: see the module doc

    return load_benchmark(
        config.benchmark,
        split=config.resolved_split if config.benchmark == "mmmu" else None,
        setting=config.resolved_setting,
        data=config.data,
        revision=config.revision,
        subjects=config.subjects,
    )


def select_items(items: Sequence[Item], config: RunConfig) -> tuple[Item, ...]:
    """Apply ``ids``, then ``sample``, then ``limit``, then ``shard``, keeping dataset order.

    ``--sample K`` draws K items of those ``--ids`` left (all when fewer), without replacement,
    with ``random.Random(sample_seed)``: the same data, K and seed give the same items. With
    ``--sample-audit`` the draw is stratified by difficulty where the audit's check says so
    (``stats.sample_design``).

    ``--shard K/N`` takes every N-th item starting at the K-th: item i (0-based) goes to shard
    ``(i % N) + 1``. Shards of one selection are disjoint and together hold every item, and a
    shard's items do not depend on which other shards run (``merge`` relies on this).

    Raises:
        ConfigError: an id that is not in the data (with the closest ids), or an empty selection.
    """
    selected = _with_ids(items, config)
    if config.sample is not None and config.sample_audit is not None:
        design = _design(selected, config)
        selected = tuple(selected[i] for i in design.drawn)
    elif config.sample is not None:
        selected = draw_sample(selected, config.sample, config.sample_seed or SAMPLE_SEED)
    if config.limit is not None:
        selected = selected[: config.limit]
    if config.shard is not None:
        k, n = config.shard
        selected = selected[k - 1:: n]
    if not selected:
        raise ConfigError(f"the selection is empty: no item is left after {argument('subjects')}, {argument('ids')}, {argument('sample')}, {argument('limit')} and {argument('shard')}")
    return selected


def _with_ids(items: Sequence[Item], config: RunConfig) -> tuple[Item, ...]:
    selected = tuple(items)
    if config.ids:
        wanted = set(config.ids)
        from mmmu_eval.dataset.load import find_item

        for item_id in config.ids:
            try:
                find_item(selected, item_id)
            except DataError as exc:
                raise ConfigError(f"{argument('ids')}: {exc}") from None
        selected = tuple(it for it in selected if it.id in wanted)
    return selected


def draw_sample(items: Sequence[T], k: int, seed: int) -> tuple[T, ...]:
    """``k`` of ``items`` drawn without replacement by ``random.Random(seed)``, in dataset order."""
    import random

    chosen = sorted(random.Random(seed).sample(range(len(items)), min(k, len(items))))
    return tuple(items[i] for i in chosen)


def sample_record(items: Sequence[Item], config: RunConfig) -> dict[str, Any] | None:
    """The manifest's ``sample`` block: K, the seed, and the population the items were drawn from."""
    if config.sample is None:
        return None
    population = _with_ids(items, config)
    record = {"k": config.sample, "seed": config.sample_seed or SAMPLE_SEED, "population": len(population),
              "drawn": min(config.sample, len(population)),
              "method": "uniform without replacement, random.Random(seed).sample over the items in dataset order"}
    if config.sample_audit is not None:
        record.update(_design(population, config).record)
    return record


def _design(population: Sequence[Item], config: RunConfig) -> Any:
    """The stratified design of ``--sample-audit`` (``run.sample_audit`` over ``stats.sample_design``; computed once per process)."""
    from mmmu_eval.run.sample_audit import design_sample

    assert config.sample is not None and config.sample_audit is not None
    return design_sample([it.id for it in population], config.sample, config.sample_seed or SAMPLE_SEED,
                         config.sample_audit, config.benchmark)


def build_requests(items: Sequence[Item], protocol: EvalProtocol) -> tuple[list[Request], list[Response]]:
    """A request per item; an item whose request cannot be built becomes an ``error`` response."""
    requests: list[Request] = []
    failures: list[Response] = []
    for item in items:
        try:
            requests.append(build_request(item, protocol))
        except DataError as exc:
            message = str(exc) if str(exc).startswith(item.id) else f"{item.id}: {exc}"
            failures.append(Response(item.id, "error", error=message, notes=(NOT_SENT,)))  # logged when stored
    return requests, failures


def frequent_answers(items: Sequence[Item], requests: Sequence[Request]) -> FixedAnswers | None:
    """The papers' "Frequent Choice": the answer the ``frequent`` baseline gives each request.

    The gold letters of the multiple-choice items are ranked by frequency (ties: the earlier
    letter); each request gets the top-ranked letter it offers (its first letter when none
    ranks). Open questions get the most frequent gold open answer (the first accepted answer of
    each; ties: the one met first), or an empty answer when there is none. Decided here, so the
    backend is handed its answers and never the gold answers they come from.

    Returns:
        The answers and how they were decided (the manifest records the ranking); None when no
        item has a gold answer (the test split).

    >>> from mmmu_eval.dataset import load_benchmark
    >>> from mmmu_eval.prompt.protocol import EvalProtocol
    >>> from mmmu_eval.core.config import RunConfig
    >>> items = load_benchmark("mmmu", split="dev", data="sample").items
    >>> requests, _ = build_requests(items, EvalProtocol.from_config(RunConfig(model="frequent", split="dev")))
    >>> fixed = frequent_answers(items, requests)
    >>> fixed.letter_ranking, fixed.open_answer, fixed.computed_from_items
    (('B', 'A', 'C'), 'triangle', 20)
    """
    letter_counts: Counter[str] = Counter()
    open_counts: Counter[str] = Counter()
    graded = 0
    for item in items:
        if item.answer is None:
            continue
        graded += 1
        if item.question_type == "multiple-choice" and isinstance(item.answer, str):
            letter_counts[item.answer] += 1
        elif item.question_type == "open":
            first = item.answer if isinstance(item.answer, str) else (item.answer[0] if item.answer else None)
            if first:
                open_counts[first] += 1
    ranking = tuple(sorted(letter_counts, key=lambda letter: (-letter_counts[letter], letter)))
    # Counter.most_common keeps first-met order among equal counts.
    open_answer = open_counts.most_common(1)[0][0] if open_counts else None
    if not ranking and open_answer is None:
        return None
    by_item = {r.item_id: _top_offered(r.choices, ranking, open_answer) for r in requests}
    return FixedAnswers(by_item=by_item, letter_ranking=ranking, open_answer=open_answer, computed_from_items=graded)


def _top_offered(choices: Sequence[str], ranking: Sequence[str], open_answer: str | None) -> str:
    """The top-ranked letter among ``choices`` (the first choice when none ranks); an open question's answer."""
    if not choices:
        return open_answer or ""
    offered = set(choices)
    return next((letter for letter in ranking if letter in offered), choices[0])


def run_scoring(config: RunConfig) -> ScoringSpec:
    """How the run is scored: its flags, and on resume the run's own record where they are unset.

    ``mmmu-eval score R --parser strict`` records its choice in R's manifest; running the run's
    command again (a resume, to retry failed items) must not quietly put the mode's defaults back.
    """
    spec = ScoringSpec.from_config(config)
    if not (config.resume and config.out is not None and (Path(config.out) / MANIFEST).is_file()):
        return spec
    recorded = ScoringSpec.from_manifest(RunStore.read(config.out).manifest())
    return recorded.replace(parsers=config.parsers, fallback=config.fallback,
                            fallback_seed=config.fallback_seed, answers=config.answers)


def run_manifest(
    config: RunConfig, protocol: EvalProtocol, dataset: Benchmark, items: Sequence[Item],
    *, scoring: ScoringSpec | None = None, sample: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What manifest.json says about this run when it starts; ``with_backend`` adds the backend.

    ``scoring`` is the run's scoring record (``run_scoring``); None: the configuration's.
    """
    scoring = scoring or ScoringSpec.from_config(config)
    extra = {ANSWERS_FILE: _answers_file(scoring.answers)} if scoring.answers else {}
    return build_manifest(
        package_version=__version__,
        started_at=utc_now(),
        config=config.to_manifest(),
        protocol=protocol.describe(),
        scoring=scoring.to_manifest(),
        dataset=dataset.manifest_block(),
        shard=config.shard or None,
        item_ids=[it.id for it in items],
        unreferenced_images=loose_images_record(items, protocol),
        **extra,
        **({"sample": dict(sample)} if sample is not None else {}),
    )


def _answers_file(path: str) -> dict[str, Any]:
    """The ``--answers`` file's path and sha256 (None when it cannot be read: scoring says why),
    so a resume on other golds is refused like one on other data (``store.same_run``)."""
    try:
        digest: str | None = file_sha256(path)
    except OSError:
        digest = None
    return {"path": path, "digest": digest}


# -- what is left to ask --------------------------------------------------------------------


