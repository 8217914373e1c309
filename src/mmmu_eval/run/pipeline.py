"""``evaluate``: one evaluation, top to bottom, the way the pipeline reads.

    load items -> select -> protocol -> requests -> backend -> preflight -> store -> run
               -> score -> report

Each stage is one call to the module that owns it; read ``evaluate_async`` first, then follow
the call you care about. The stages before the backend are ``prepare.prepare_run``; a new API
run builds its backend first and asks the server for its model list while they run. The CLI's ``mmmu-eval run`` builds a RunConfig and calls ``evaluate``,
so a notebook and a shell get the same run.

>>> result = evaluate(model="random", benchmark="mmmu", data="sample", split="dev", out="runs/dev-random")
>>> result.results["overall"]["accuracy"], result.run_dir
(0.05, PosixPath('runs/dev-random'))
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmmu_eval.core.atomic import holds_anything
from mmmu_eval.backends.base import PREFLIGHT_SENT, Backend
from mmmu_eval.backends.registry import make_backend, make_backend_before_data
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.clock import utc_now
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.core.errors import ConfigError, DataError, same_again
from mmmu_eval.run.finished import finished_result
from mmmu_eval.run.dry_run import RunPlan, plan_run
from mmmu_eval.run.prepare import prepare_run, prepare_run_aside, select_items
from mmmu_eval.run.resolve import RunConfigArgs, Unpack, resolve_config
from mmmu_eval.run.result import RunResult
from mmmu_eval.run.merge_totals import LAYOUT_ITEMS, layout_items
from mmmu_eval.run.rank_answers import held_elsewhere
from mmmu_eval.run.resume import (answered_before, check_run_dir, finished_answers, inherited_answers, preflight_needed,
                                  requests_to_ask)
from mmmu_eval.run.progress import Display, ProgressDisplay
from mmmu_eval.prompt.protocol import EvalProtocol, loose_images_line, prompt_text
from mmmu_eval.core.records import Item, Request, Response
from mmmu_eval.run.outputs import count_statuses_by_id, write_outputs
from mmmu_eval.run.failure_log import FailureLog
from mmmu_eval.run.runner import run_requests
from mmmu_eval.results.usage import add_probes
from mmmu_eval.store.run_stop import record_stop
from mmmu_eval.store.rundir import RESPONSES, RunStore
from mmmu_eval.core.writer_lock import hold_directory
from mmmu_eval.tracking.log_to import LogToArg, as_log_to

if TYPE_CHECKING:
    from mmmu_eval.scoring.scorer import Scoring

# The stages after the last answer (results, report) are imported where they are called: a run
# reaches its first request without loading them (see docs/design.md, start-up).

__all__ = ["RunInterrupted", "RunPlan", "RunResult", "evaluate", "evaluate_async", "plan_run", "select_items"]

log = logging.getLogger(__name__)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped ``evaluate``; everything answered so far is stored in ``run_dir``."""

    def __init__(self, run_dir: Path, stored: int, total: int) -> None:
        self.run_dir, self.stored, self.total = run_dir, stored, total
        if total:
            message = (
                f"interrupted: {stored} of {total} items have an answer stored in {run_dir}; "
                f"{same_again()} to finish"
            )
        else:
            message = "interrupted before the first request; nothing was stored"
        super().__init__(message)


def evaluate(
    config: RunConfig | None = None, /, *, display: Display | None = None, log_to: LogToArg = None,
    **overrides: Unpack[RunConfigArgs],
) -> RunResult:
    """Run one evaluation and return its results; the synchronous face of ``evaluate_async``.

    Args:
        config: a RunConfig; None builds one from ``overrides``.
        display: the progress display (``run/progress.Display``); default a bar on stderr.
        log_to: ``"mlflow"``, ``"wandb"``, a list of them, or a ``tracking.LogTo``: once the run's
            files are written, log them there (docs/guides/logging.md); a logging failure warns
            and changes nothing else. Not part of the run's configuration.
        **overrides: RunConfig fields to set or override (``RunConfigArgs`` types each one;
            ``model`` may also be a model object). Any other name is refused (ConfigError).

    Returns:
        The RunResult; ``exit_status`` is 1 when some items failed or were not asked.

    Raises:
        ConfigError: a wrong setup, found before the first request (``log_to`` naming an SDK that
            is not installed included).
        RunInterrupted: Ctrl-C; what was answered is stored, and the same call resumes.

    Examples:
        >>> result = evaluate(model="random", benchmark="mmmu-pro", setting="vision", data="sample", out="runs/v")
        >>> result.counts
        {'items': 24, 'ok': 24, 'truncated': 0, 'error': 0, 'missing': 0}
    """
    config, model = resolve_config(config, overrides, named=("display", "log_to"))
    try:
        return run_coroutine(evaluate_async(config, model=model, display=display, log_to=log_to))
    except KeyboardInterrupt as exc:
        if isinstance(exc, RunInterrupted):
            raise
        stored, total = _stored_count(config)
        raise RunInterrupted(Path(config.out or "."), stored, total) from None


async def evaluate_async(
    config: RunConfig | None = None,
    /,
    *,
    display: Display | None = None,
    keep_backend: bool = False,
    log_to: LogToArg = None,
    **overrides: Unpack[RunConfigArgs],
) -> RunResult:
    """Run one evaluation; see ``evaluate`` for the arguments. Cancelling it keeps what is done.

    ``keep_backend=True`` leaves a Backend object given as ``model`` open at the end, for a
    caller that shares it between runs (``evaluate_suite``) and closes it itself.

    Examples:
        >>> result = asyncio.run(evaluate_async(model="random", data="sample", limit=5, out="runs/five"))
        >>> result.counts["ok"]          # in a notebook's running loop: ``await evaluate_async(...)``
        5
    """
    logging_to = as_log_to(log_to)  # an unknown sink or a missing SDK, before anything runs
    config, model = resolve_config(config, overrides, named=("display", "keep_backend", "log_to"))
    with ExitStack() as held:
        try:  # one writer per run directory, from before the first request (writer_lock.py)
            held.enter_context(hold_directory(Path(config.out or "."), "run"))
        except BaseException:
            if not isinstance(model, str) and not keep_backend:
                await model.aclose()
            raise
        result = await _evaluate_held(config, model, display, keep_backend)
    if logging_to is not None:  # from the files just written; a failure warns (tracking/send.py)
        from mmmu_eval.tracking.send import log_run

        log_run(logging_to, result.run_dir)
    return result


async def _evaluate_held(config: RunConfig, model: str | Backend, display: Display | None, keep_backend: bool) -> RunResult:
    """``evaluate_async`` once it holds the run directory."""
    done = finished_result(config)
    if done is not None:  # nothing to ask, nothing to load: the stored result (finished.py)
        log.info("%s: finished already (%d items); nothing to ask", done.run_dir, done.counts["items"])
        if not isinstance(model, str) and not keep_backend:
            await model.aclose()
        return done

    opened: list[RunStore] = []
    try:
        return await _ask_and_score(config, model, display, keep_backend, opened)
    except BaseException as exc:  # what the runner does not take as an item's failure ends the run
        if opened:  # its manifest says so (failed, or interrupted), never "running"; exc goes on unchanged
            record_stop(opened[0], exc, counts=_counts_now(opened[0]))
        raise


async def _ask_and_score(config: RunConfig, model: str | Backend, display: Display | None, keep_backend: bool,
                         opened: list[RunStore]) -> RunResult:
    """Ask what lacks an answer, then score and write the run; ``opened`` receives the run's store
    once its manifest is written (``_evaluate_held`` marks it if an exception ends the run)."""
    # A new run has nothing to refuse, so an API client asks for the model list now and reads
    # the data while the answer comes; a local model loads only after the protocol check.
    new = not holds_anything(Path(config.out or ".")) and not held_elsewhere(config.out)
    backend = make_backend_before_data(model, backend_settings(config)) if new else None
    try:
        if backend is not None:
            backend.contact()
            prepared = await prepare_run_aside(config)
        else:
            prepared = prepare_run(config)
        items, requests, manifest = prepared.items, prepared.requests, prepared.manifest
        check_run_dir(config, manifest)  # before a model loads or a server is probed
        answered = answered_before(config.out)
        inherited = inherited_answers(config.out, answered)  # a rank's shard: what its run holds elsewhere
        answered = {**inherited, **answered}
        pending = requests_to_ask(requests, answered)
        # A finished run loads no model, reaches no server; a shard that inherits answers makes
        # its backend (no model is loaded without a request) to record what its requests get.
        if backend is None and (pending or not answered or inherited):
            backend = make_backend(model, backend_settings(config, fixed_answers=prepared.fixed_answers))
        probes: list[dict[str, Any]] = []
        if backend is not None and preflight_needed(pending):
            noting = PREFLIGHT_SENT.set(probes)
            try:
                await backend.preflight(pending)
            finally:
                PREFLIGHT_SENT.reset(noting)
        if backend is not None and (pending or inherited):
            manifest = await with_effective_layout(manifest, backend, requests, prepared.protocol.image_layout)
        store = RunStore.open(config.out, _with_backend_of(manifest, backend, config), resume=config.resume)
        opened.append(store)
        if probes:  # each session's probes add to the earlier sessions' (usage and cost count them)
            store.update_manifest(preflight=add_probes(store.manifest().get("preflight"), probes))
        log.info("%s: %d items of %r to %s", config.out, len(items), prepared.dataset, config.model)
        loose = loose_images_line(manifest["unreferenced_images"])
        if loose:
            log.info("%s: %s", config.out, loose)
        await run(backend, requests, prepared.failures, store, display or ProgressDisplay(), answered=answered,
                  inherited=inherited)
    finally:
        if backend is not None and not keep_backend:
            await backend.aclose()

    spec, protocol = prepared.scoring, prepared.protocol
    scored_items = spec.gold_items(items)
    responses = stored_responses(store, items)
    scoring = spec.score(scored_items, responses)
    result = report(store, config, protocol, scored_items, responses, scoring)
    log.info("%s: finished, %s", result.run_dir, result.counts)
    return result


# -- stages, in pipeline order ----------------------------------------------------------------


def with_backend(manifest: Mapping[str, Any], backend: Backend, config: RunConfig) -> dict[str, Any]:
    """The manifest with ``backend.describe()`` added, and never an API key."""
    return _without_secret({**manifest, "backend": backend.describe()}, config)


async def with_effective_layout(
    manifest: Mapping[str, Any], backend: Backend, requests: Sequence[Request], asked: str
) -> dict[str, Any]:
    """The manifest with ``effective_layout``, for a backend that renders the model's own chat
    template (``hf``): the image layout the model saw, which its template may have changed (the
    backend warns when it did), and ``effective_layout_items``, the items per layout, which the
    shards of a run add up (``run/merge_totals.py``). Other backends add nothing: a server's
    template is out of sight."""
    rendered = getattr(backend, "effective_layout", None)
    if rendered is None:
        return dict(manifest)
    layout = await rendered(requests, asked)
    return {**manifest, "effective_layout": layout, LAYOUT_ITEMS: layout_items(layout, requests)}


def _with_backend_of(manifest: Mapping[str, Any], backend: Backend | None, config: RunConfig) -> dict[str, Any]:
    """``with_backend``; for a finished run that made none, the backend its manifest names already."""
    if backend is not None:
        return with_backend(manifest, backend, config)
    old = RunStore.read(config.out or ".").manifest_record().backend
    return _without_secret({**manifest, "backend": old}, config)


async def run(
    backend: Backend | None, requests: Sequence[Request], failures: Sequence[Response], store: RunStore,
    display: Display, *, answered: Mapping[str, Response] | None = None,
    inherited: Mapping[str, Response] | None = None,
) -> None:
    """Store the preparation failures, then ask the backend every item still without an answer.

    Items already answered ``ok`` or ``truncated`` in the store (a resumed run) are skipped;
    errors and missing items are asked again. Ctrl-C marks the manifest ``interrupted``.
    ``answered``: those stored answers, when the caller has read them already; ``backend`` may
    be None only when none is left to ask. ``inherited``: answers of a rank's shard held by its
    run elsewhere (``resume.inherited_answers``), stored first so the shard holds its whole slice.
    """
    finished = set(answered_before(store.path) if answered is None else answered)
    todo = requests_to_ask(requests, finished)
    ids = {r.item_id for r in requests} | {f.item_id for f in failures}
    for item_id, response in (inherited or {}).items():
        if item_id in ids:
            store.append(response)
    new_failures = [f for f in failures if f.item_id not in finished]
    failure_log = FailureLog(store.path / RESPONSES)
    for failure in new_failures:
        store.append(failure)
        failure_log.add(failure.item_id, failure.error or "failed")
    done_before = len(finished & ids)
    if done_before:
        log.info("resuming: %d items already answered, %d to ask", done_before, len(todo))
    if todo and backend is None:
        raise ValueError("run: requests are left to ask, but no backend was given")
    try:
        await run_requests(
            backend, todo, store, display=display,  # type: ignore[arg-type]  # None only with nothing to ask
            already_done=done_before + len(new_failures), already_errors=len(new_failures), failures=failure_log,
        )
    except (asyncio.CancelledError, KeyboardInterrupt):
        selected = [r.item_id for r in requests] + [f.item_id for f in failures]
        store.update_manifest(status="interrupted", ended_at=utc_now(), counts=count_statuses_by_id(selected, store.responses()))
        raise
    finally:
        failure_log.close()


def stored_responses(store: RunStore, items: Sequence[Item]) -> dict[str, Response]:
    """The stored responses of the selected items (the last one per item)."""
    every = store.responses()
    return {it.id: every[it.id] for it in items if it.id in every}


def report(
    store: RunStore,
    config: RunConfig,
    protocol: EvalProtocol,
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
) -> RunResult:
    """Write results.json, predictions.jsonl, report.html (and submission.json for MMMU test)."""
    prompts = {it.id: _prompt_or_reason(it, protocol) for it in items} if config.html else {}
    written = write_outputs(store, items, responses, scoring, prompts=prompts, html=config.html, record_answers_size=True)
    return RunResult(store.path, written.manifest, written.results, written.counts)


# -- small helpers ----------------------------------------------------------------------------

def _prompt_or_reason(item: Item, protocol: EvalProtocol) -> str:
    try:
        return prompt_text(item, protocol)
    except DataError as exc:
        return f"(no prompt: {exc})"


def _stored_count(config: RunConfig) -> tuple[int, int]:
    """(items with an answer, items selected) of an interrupted run, from its directory."""
    try:
        store = RunStore.read(config.out or ".")
        ids = store.manifest_record().item_ids or ()
        finished = finished_answers(store.responses())
        return sum(1 for i in ids if i in finished), len(ids)
    except Exception:  # nothing stored yet (interrupted during loading or preflight)
        return 0, 0


def _counts_now(store: RunStore) -> dict[str, int] | None:
    """The statuses of the run's items as stored now; None when they cannot be read (a run that
    failed for want of memory or disk is not made to fail again here)."""
    try:
        ids = store.manifest_record().item_ids
        return count_statuses_by_id(ids, store.responses()) if ids else None
    except Exception:
        return None


def _without_secret(manifest: dict[str, Any], config: RunConfig) -> dict[str, Any]:
    """The manifest with the API key's value blanked wherever a backend let it slip in."""
    key = os.environ.get(config.api_key_env or "OPENAI_API_KEY", "")
    if len(key) < 8:
        return manifest
    text = json.dumps(manifest, default=str)
    if key not in text:
        return manifest
    log.warning("a backend described itself with the API key in it; it is blanked in manifest.json")
    return json.loads(text.replace(key, "<redacted>"))
