"""Step 2, ``augment``: grow each question's options to ten with LLM-proposed distractors.

MMMU-Pro (arXiv:2409.02813, section 2.2) had a strong LLM propose distractors and experts review
them. Here: the model named by ``model`` proposes the missing options for every question of the
input's ``standard (4 options)`` (our prompt, ``prompt/distractors.py``), asked through the
ordinary backends and runner (``proposals.py``); each reply is checked (``distractors.py``); the
options are placed by a seeded shuffle that keeps position-dependent options meaningful
(``shuffle.py``); the answer letter follows the correct option. The output gets
``standard (10 options)``, ``review.jsonl`` and ``review.html`` (``review.py``), and is marked
*unreviewed* until ``--apply DECISIONS`` applies a reviewer's decisions.

Questions that cannot take text distractors keep their options unchanged in the 10-option
config, with a note (options that are images; already ``options`` or more; a correct "All of
the above"). A question whose proposals stay unusable after every attempt is left out of the
10-option config and reported, never padded.

When the input's record names filter models, they answer the augmented set text-only as well
(``check``, run by ``text_check.py``), for the third bar of Figure 5.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from mmmu_eval.core.renamed import renamed_keywords
from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.backends.registry import make_backend
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden.outdir import StepResult, config_entry, one_writer, open_out, settle_later_steps
from mmmu_eval.harden.problems import Problem
from mmmu_eval.harden.proposals import ItemProposals, ProposalSettings, propose
from mmmu_eval.harden.record import Record, json_digest, versions
from mmmu_eval.harden.harden_report import write_report
from mmmu_eval.harden.review import apply_decisions, read_decisions, write_review
from mmmu_eval.harden.shuffle import POLICIES, arrange, shuffle_rng
from mmmu_eval.harden.step_settings import OPTIONS, AugmentSettings, CheckSettings, SourceSettings
from mmmu_eval.harden.source import Source, content_digest, read_source
from mmmu_eval.harden.text_check import check_lacks, text_only_check, why_stale
from mmmu_eval.harden.writer import Beside, copy_config, standard_row, write_config
from mmmu_eval.run.pipeline import with_backend
from mmmu_eval.run.progress import Display
from mmmu_eval.run.resolve import RunConfigArgs
from mmmu_eval.prompt.distractors import DISTRACTOR_TEMPLATE, template_fingerprint
from mmmu_eval.prompt.layout import TOKEN
from mmmu_eval.core.records import Item, letters
from mmmu_eval.core.manifest import MANIFEST, build_manifest
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.store.run_stop import record_stop
from mmmu_eval.core.clock import utc_now

__all__ = ["OPTIONS", "harden_apply", "harden_apply_async", "harden_augment", "harden_augment_async"]

#: Options per question after augmenting (the paper: 10).
#: Entry statuses whose question is in ``standard (10 options)``.
IN_TEN = ("augmented", "unchanged")


@one_writer("augment")
@renamed_keywords(seed="draw_seed")
async def harden_augment_async(
    data: str | Path,
    out: str | Path,
    settings: AugmentSettings,
    *,
    draw_seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
) -> StepResult:
    """Augment ``data`` into ``out`` (module doc); ``harden_apply_async`` applies the review after.

    Args:
        settings: the model, how it is asked, the options wanted, and the check after
            (``AugmentSettings``; its ``check``: text-only models for the augmented set, default
            the filter's, ``""`` for none, and their trials, default the filter's).
        draw_seed: derives each attempt's generation seed and each question's shuffle.
        run_settings: further RunConfig fields for the model's requests (concurrency, top_p, extra_body ...).
        source: which questions of ``data`` are read (``read_source``; default all).

    For example (it asks a server, so it is a sketch, not a doctest)::

        result = harden_augment("hard", "hard", AugmentSettings(model="openai:gpt-4o"))
    """
    seed = draw_seed  # every draw of the step: trial seeds, the sample, shuffles, page styles
    model, options, attempts, position_dependent = settings.model, settings.options, settings.attempts, settings.position_dependent
    temperature, max_tokens, base_urls, read = settings.temperature, settings.max_tokens, settings.base_urls, source or SourceSettings()
    if position_dependent not in POLICIES:
        raise ConfigError(f"--position-dependent {position_dependent!r} is not one of {', '.join(POLICIES)}")
    if options < 2:
        raise ConfigError(f"--options must be at least 2, not {options}")
    source = read_source(data, setting="standard-4", split=read.split, subjects=read.subjects, limit=read.limit,
                         default_subject=read.default_subject)
    if not model:
        raise ConfigError("augment needs --model SPEC: the model that proposes the distractors (or --apply DECISIONS)")
    out, record = open_out(out, source, "augment")
    problems = list(source.problems)
    if source.kind in ("harden", "mmmu-pro") and source.path is not None:
        copy_config(source.path, out, "standard-4")
        four_digest = content_digest(source.items)
    else:
        written4 = write_config(out, "standard-4", source.items, standard_row, step="input")
        problems += written4.problems
        four_digest = content_digest([it for it in source.items if it.id in set(written4.ids)])
        record.set_left_out("input", [*source.problems, *written4.problems])
    record.data["configs"].setdefault("standard (4 options)", config_entry(tuple(it.id for it in source.items), four_digest, step="input"))

    proposal = ProposalSettings(attempts, seed, temperature, max_tokens, (run_settings or {}).get("top_p"),
                                tuple(sorted(((run_settings or {}).get("extra_body") or {}).items())))
    plans = {it.id: _plan(it, options, position_dependent, seed) for it in source.items}
    needs = {i: p["needed"] for i, p in plans.items() if p["status"] == "pending"}
    section = {
        "status": "running", "input": source.describe(), "model": model, "options": options, "attempts": attempts,
        "seed": seed, "temperature": temperature, "max_tokens": max_tokens, "position_dependent": position_dependent,
        "prompt": {"template": DISTRACTOR_TEMPLATE, "fingerprint": template_fingerprint(), "official": False},
        "run": "runs/augment", "review": "unreviewed", "versions": versions(),
    }
    record.set_step("augment", section)
    record.save(out)
    if needs:
        run_fields = {k: v for k, v in (run_settings or {}).items() if k not in ("top_p", "extra_body", "max_tokens")}
        config = RunConfig(model=model, benchmark="mmmu-pro", setting="standard-10", base_urls=tuple(base_urls) if base_urls else None,
                           temperature=temperature, generation_seed=seed, max_tokens=max_tokens, **run_fields)
        store_path = out / "runs" / "augment"
        manifest = _manifest(config, source, proposal, [i for i in needs])
        RunStore.check(store_path, manifest, resume=(store_path / MANIFEST).exists())
        backend = make_backend(model, backend_settings(config))
        store: RunStore | None = None
        try:
            store = RunStore.open(store_path, with_backend(manifest, backend, config), resume=(store_path / MANIFEST).exists())
            results = await propose(source.items, needs, backend, store, proposal, display=display)
        except BaseException as exc:
            if store is not None:
                record_stop(store, exc)
            raise
        finally:
            await backend.aclose()
        _close_proposal_run(store, results)
        for item_id, got in results.items():
            _settle(plans[item_id], got, source, item_id, position_dependent, seed)
    for item in source.items:
        entry = record.item(item.id)
        entry["subject"] = item.subject
        old = entry.get("augment") or {}
        if old.get("options") == plans[item.id].get("options") and old.get("review"):
            plans[item.id]["review"] = old["review"]  # a rerun keeps the decisions already applied
        entry["augment"] = plans[item.id]
    status = "incomplete" if any(p["status"] == "unasked" for p in plans.values()) else "complete"
    check = settings.check if settings.check.base_urls is not None else dataclasses.replace(settings.check, base_urls=base_urls)
    return await _finish(out, record, source, problems, status, check, display)


def _close_proposal_run(store: RunStore, results: Mapping[str, ItemProposals]) -> None:
    """The proposal run's manifest says how it ended, as an evaluation's does: ``complete`` when
    every item's proposals were settled, else ``incomplete`` (a request failed or went unasked;
    the same command asks those again), with the items counted by how they ended."""
    counts = Counter(got.status for got in results.values())
    status = "incomplete" if counts["error"] or counts["unasked"] else "complete"
    store.update_manifest(status=status, ended_at=utc_now(), counts={"items": len(results), **dict(sorted(counts.items()))})


@one_writer("augment")
async def harden_apply_async(
    data: str | Path,
    out: str | Path,
    decisions: str | Path,
    *,
    check: CheckSettings | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
) -> StepResult:
    """Apply a reviewer's ``decisions`` (the file ``review.html`` downloads) to an augment output.

    Args:
        data: the output of an augment step (it holds review.jsonl); ``out`` may be the same.
        decisions: the decisions file.
        check: the text-only check of the augmented set, as ``AugmentSettings.check``.
        source: which questions of ``data`` are read (default all).

    For example, after a reviewer saved decisions.json from review.html::

        result = harden_apply("hard", "hard", "decisions.json")
    """
    read = source or SourceSettings()
    source = read_source(data, setting="standard-4", split=read.split, subjects=read.subjects, limit=read.limit,
                         default_subject=read.default_subject)
    decisions_file = Path(decisions)
    if source.record is None or source.record.step("augment") is None:
        raise ConfigError(f"--apply needs --data to be the output of an augment step (it holds review.jsonl); {source.data} is not")
    out, record = open_out(out, source, "augment")
    if Path(out).resolve() != Path(source.path or ".").resolve():
        copy_config(source.path, out, "standard-4")
    read = read_decisions(decisions_file)
    review_problems, dropped = apply_decisions(record, source.items, read, lambda item, distractors: _arrangement(item, distractors, record))
    # In place, the 4-option file is both read (every item's images point at its rows) and
    # rewritten without the dropped rows: the new files wait beside the old ones until the
    # 10-option config and the review page have read their last image (``_finish``).
    with Beside() as beside:
        if dropped:
            kept = [it for it in source.items if it.id not in dropped]
            written4 = write_config(out, "standard-4", kept, standard_row, step="review", beside=beside)
            record.data["configs"]["standard (4 options)"] = config_entry(written4.ids, content_digest(kept), step="review")
            source = Source(tuple(kept), source.problems, source.kind, source.data, source.path, source.revision, source.setting, record)
        record.set_left_out("review", review_problems)
        told = _what_the_review_did(read, review_problems, decisions_file)
        return await _finish(out, record, source, [*source.problems, *review_problems], "complete", check or CheckSettings(),
                             display, beside=beside, told=told)


def _what_the_review_did(decisions: dict[str, dict[str, Any]], refused: Sequence[Problem], file: Path) -> list[str]:
    """One line per kind of outcome, naming the questions each happened to."""
    not_applied = {p.where for p in refused}
    by_action: dict[str, list[str]] = {"accept": [], "edit": [], "drop": []}
    for item_id, decision in decisions.items():
        if item_id not in not_applied:
            by_action[decision["action"]].append(item_id)
    what = {
        "accept": "accepted (kept as they are)",
        "edit": "edited (their new options replaced, placed by the same seeded shuffle)",
        "drop": "dropped (removed from both standard configs)",
    }
    lines = [f"review {file.name}: " + ", ".join(f"{len(ids)} {what[a]}" for a, ids in by_action.items())
             + f", {len(not_applied)} refused (those questions stay as they were)"]
    for action in ("edit", "drop"):
        ids = by_action[action]
        if ids:
            shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more (harden.json)" if len(ids) > 10 else "")
            lines.append(f"{what[action].split(' (')[0]}: {shown}")
    return lines


async def _finish(out: Path, record: Record, source: Source, problems: list[Problem], status: str,
                  check: CheckSettings, display: Display | None, beside: Beside | None = None,
                  told: Sequence[str] = ()) -> StepResult:
    """Write the 10-option config, the review files, the check, the record and the report.

    The configs and review files are written beside the old ones (with any ``beside`` already
    holds) and put in place together once ``source``'s images are all read.
    """
    beside = beside or Beside()
    section = record.step("augment") or {}
    entries = {it.id: record.item(it.id).get("augment") or {} for it in source.items}
    ten = [it for it in source.items if entries[it.id].get("status") in IN_TEN and (entries[it.id].get("review") or {}).get("state") != "dropped"]
    step_problems = [_problem(i, e) for i, e in entries.items() if e.get("status") in ("unusable", "error")]
    messages: list[str] = list(told)
    if status == "incomplete":
        unasked = sum(1 for e in entries.values() if e.get("status") == "unasked")
        messages.append(f"{unasked} question(s) were not asked (the model stopped answering); run the same command again to continue")
        section["status"] = "incomplete"
        record.save(out)
        return StepResult(out, record, "augment", "incomplete", tuple(problems + step_problems), tuple(messages))
    written = write_config(out, "standard-10", ten, lambda it: standard_row(it, entries[it.id]["options"], entries[it.id]["answer"]),
                           step="augment", beside=beside)
    digest = json_digest([[i, entries[i]["options"], entries[i]["answer"]] for i in written.ids])
    review = write_review(out, record, source.items, beside=beside)
    beside.replace_all()  # source's images are not read after this line
    settle_later_steps(out, record, "augment", digest)
    states = [(e.get("review") or {}).get("state", "unreviewed") for e in entries.values() if e.get("status") in IN_TEN]
    unreviewed = states.count("unreviewed")
    section.update(
        status="complete", review=review["state"], review_files=["review.jsonl", "review.html"],
        counts={
            "input": len(source.items), "augmented": sum(e.get("status") == "augmented" for e in entries.values()),
            "unchanged": sum(e.get("status") == "unchanged" for e in entries.values()),
            "flagged": sum(bool(e.get("flag")) for e in entries.values()), "unusable": sum(e.get("status") == "unusable" for e in entries.values()),
            "errors": sum(e.get("status") == "error" for e in entries.values()), "written": len(written.ids),
            "unreviewed": unreviewed, "accepted": states.count("accepted"), "edited": states.count("edited"), "dropped": states.count("dropped"),
        },
    )
    record.data["configs"]["standard (10 options)"] = config_entry(written.ids, digest, step="augment", review=review["state"])
    record.set_left_out("augment", [*step_problems, *written.problems])
    record.save(out)
    checked = await text_only_check(out, record, digest, check, display)
    status = "complete"
    if checked is not None:
        section["check"] = checked
        if checked["status"] == "incomplete":
            status = section["status"] = "incomplete"
            messages.append(check_lacks(checked, out))
    elif section.get("check"):
        stale = why_stale(section["check"], digest)
        if stale:
            section["check"]["stale"] = stale
            messages.append(f"the text-only check is stale: {stale}")
        else:
            section["check"].pop("stale", None)
    record.save(out)
    write_report(out, record)
    if unreviewed:
        messages.append(f"{unreviewed} question(s) are unreviewed: open {out / 'review.html'}, decide, download the decisions, "
                        f"then: mmmu-eval harden augment --data {out} --out {out} --apply DECISIONS.json")
    return StepResult(out, record, "augment", status, tuple(problems + step_problems + list(written.problems)), tuple(messages))


def _problem(item_id: str, entry: dict[str, Any]) -> Problem:
    if entry["status"] == "unusable":
        tries = len(entry.get("attempts") or [])
        return Problem(item_id, "augment", f"no usable distractors after {tries} attempt(s), not padded (last: {entry.get('error')}); "
                       "left out of standard (10 options); --attempts N asks more", "unusable proposals")
    return Problem(item_id, "augment", f"the model request failed after its retries ({entry.get('error')}); "
                   "run the same command again to ask it again", "model error")


def _plan(item: Item, options: int, policy: str, seed: int) -> dict[str, Any]:
    """What augmenting ``item`` takes: its entry before any proposal."""
    entry: dict[str, Any] = {"status": "pending", "needed": max(0, options - len(item.options)), "review": {"state": "unreviewed"}}
    if all(TOKEN.fullmatch(o.strip()) for o in item.options):
        return _unchanged(entry, item, "the options are images; text distractors cannot join them", flag=True)
    if len(item.options) >= options:
        return _unchanged(entry, item, f"already has {len(item.options)} options")
    layout = arrange(item.options, str(item.answer), [], shuffle_rng(seed, item.id), policy=policy)
    if layout.flag:
        return _unchanged(entry, item, layout.flag, flag=True)
    return entry


def _unchanged(entry: dict[str, Any], item: Item, why: str, *, flag: bool = False) -> dict[str, Any]:
    entry.update(status="unchanged", needed=0, note=why, options=list(item.options), answer=item.answer,
                 sources=list(letters(len(item.options))), flag=why if flag else None)
    return entry


def _settle(entry: dict[str, Any], got: Any, source: Source, item_id: str, policy: str, seed: int) -> None:
    entry["attempts"] = got.attempts
    if got.status != "ok":
        entry.update(status=got.status, error=got.error)
        return
    item = next(it for it in source.items if it.id == item_id)
    layout = arrange(item.options, str(item.answer), got.accepted, shuffle_rng(seed, item_id), policy=policy)
    entry.update(status="augmented", distractors=list(got.accepted), options=list(layout.options), answer=layout.answer,
                 sources=list(layout.sources), held=list(layout.held), flag=layout.flag, error=None)


def _arrangement(item: Item, distractors: Sequence[str], record: Record) -> dict[str, Any]:
    """A reviewer's edited distractors, placed as the step places the model's."""
    section = record.step("augment") or {}
    layout = arrange(item.options, str(item.answer), distractors, shuffle_rng(int(section.get("seed", 0)), item.id),
                     policy=str(section.get("position_dependent", "keep")))
    return {"options": list(layout.options), "answer": layout.answer, "sources": list(layout.sources), "held": list(layout.held)}


def _manifest(config: RunConfig, source: Source, settings: ProposalSettings, ids: list[str]) -> dict[str, Any]:
    protocol = {
        "purpose": "harden augment: distractor proposals (not an evaluation; nothing here is scored)",
        "templates": {"distractors": DISTRACTOR_TEMPLATE},
        "generation": {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "top_p": settings.top_p,
                       "seed": settings.seed, "extra_body": dict(settings.extra_body)},
        "official": False,
    }
    protocol["fingerprint"] = json_digest(protocol)
    return build_manifest(
        config=config.to_manifest(), protocol=protocol,
        dataset={"source": "harden", "revision": source.describe()["digest"]}, item_ids=ids,
        # Not in the fingerprint: more attempts continue the same run (each attempt is its own record).
        attempts=settings.attempts,
    )


@renamed_keywords(seed="draw_seed")
def harden_augment(
    data: str | Path,
    out: str | Path,
    settings: AugmentSettings,
    *,
    draw_seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
) -> StepResult:
    """``harden_augment_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_augment_async(
        data, out, settings, draw_seed=draw_seed, run_settings=run_settings, source=source, display=display))


def harden_apply(
    data: str | Path,
    out: str | Path,
    decisions: str | Path,
    *,
    check: CheckSettings | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
) -> StepResult:
    """``harden_apply_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_apply_async(data, out, decisions, check=check, source=source, display=display))
