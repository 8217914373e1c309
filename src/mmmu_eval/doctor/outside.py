"""Causes outside the run: what the published figure says about itself against the run's manifest.

A published row carries its protocol (``published.json``: the source's prompts, whether it
reports the better of them, its data build, max tokens where known, and the row's model
snapshot). Set against the run, four causes can follow:

- ``best_of``: the source reports the better of direct and CoT and the run is one prompt. Its
  size is measured where the other prompt's figure is known: a suite's other run, or the
  official per-prompt counts (results_summary.xlsx of the paper's commit) for the same model;
- ``prompt``: the run used a prompt the published figure did not (boxed, OCR, ...): not sized;
- ``snapshot``: the published row names a model version the run's model name contradicts or
  does not record: not sized;
- ``data_revision``: the run's items are of another MMMU-Pro data build than the published
  figure's (told apart by the items that changed, ``published.revisions()``): each such item,
  another question there, at the run's own accuracy. What the run's data revision is, is said
  only as its manifest records it (``recorded_revision``), else "not recorded": items that match
  a build's content do not say which release the run read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmmu_eval.doctor.effects import NOTHING_BESIDE, Counterfactual, Effect, exact_beside
from mmmu_eval.core.records import Item
from mmmu_eval.core.numbers import fixed
from mmmu_eval.published.figures import Published, Source, per_prompt, revisions

__all__ = ["compared_line", "data_build", "outside_effects", "recorded_revision", "run_model_name", "run_prompt"]

_MODE = re.compile(r"_(direct|cot)(?=[_.]|$)", re.IGNORECASE)
_DATE = re.compile(r"(?<!\d)(20\d\d)-?(\d\d)-?(\d\d)(?!\d)")
_MMDD = re.compile(r"(?<!\d)(0\d|1[0-2])([0-3]\d)(?!\d)")
_NAMES = {"cot": "CoT", "direct": "direct"}


def run_prompt(manifest: Mapping[str, Any]) -> tuple[str | None, str]:
    """The run's prompt mode and where it was read: the manifest's protocol, or a rescored
    official file's name (``<model>_<mode>_<Setting>.jsonl``)."""
    protocol = manifest.get("protocol") or {}
    config = manifest.get("config") or {}
    mode = protocol.get("mode") or config.get("prompt")
    if mode:
        return str(mode), "the run's manifest"
    source = manifest.get("rescored_from") or {}
    name = Path(str(source.get("path") or "")).name
    found = _MODE.search(name)
    if found:
        return found.group(1).lower(), f"the file name {name}"
    return None, "not recorded"


def run_model_name(model: str | None) -> str:
    """The model's own name in a run's model string: no ``format:`` prefix, no ``_<mode>_<Setting>``
    tail of an official file name, no ``org/`` path; dots kept (``llava1.5-7b``)."""
    name = str(model or "")
    if ":" in name:
        name = name.split(":", 1)[1]
    name = _MODE.split(name, maxsplit=1)[0]
    return name.rsplit("/", 1)[-1]


def _snapshots(text: str) -> set[str]:
    """Month-day tokens (``0513``) of the dates a model name carries."""
    dates = {m + d for _, m, d in _DATE.findall(text)}
    return dates or {m + d for m, d in _MMDD.findall(_DATE.sub("", text))}


def _digest(item: Item) -> str:
    return hashlib.sha256(json.dumps([list(item.options), item.answer]).encode()).hexdigest()[:12]


def recorded_revision(manifest: Mapping[str, Any]) -> str:
    """The run's data revision as its manifest records it (the hub commit, the bundled sample's
    version, a local snapshot's commit), with the data's digest; else "not recorded", and why."""
    dataset = manifest.get("dataset") if isinstance(manifest.get("dataset"), Mapping) else {}
    revision, digest = dataset.get("revision"), dataset.get("digest")
    if revision and revision != "local":
        short = str(revision)[:12] if len(str(revision)) == 40 else str(revision)
        return f"{dataset.get('source') or 'data'}@{short} (its manifest)"
    if manifest.get("rescored_from") and dataset.get("source") in (None, "file"):
        return "not recorded (the rescored file's own items)"
    if digest:
        return f"not recorded (local files, sha256 {str(digest)[:12]})"
    return "not recorded"


def data_build(items: Sequence[Item], setting: str | None) -> tuple[str | None, list[str]]:
    """Which MMMU-Pro data build the run's items match in content (None: not told apart), and the
    ids of the run's items that differ between the builds. A match says what the items hold, not
    which release the run read: that is ``recorded_revision``'s."""
    known = revisions()
    if setting not in known["settings"]:
        return None, []
    builds = known["builds"]
    ids = next(iter(builds.values())).keys()
    mine = {it.id: _digest(it) for it in items if it.id in ids}
    if not mine:
        return None, []
    for build, digests in builds.items():
        if all(digests[i] == d for i, d in mine.items()):
            return build, sorted(mine)
    return None, sorted(mine)


def _best_of(figure: Mapping[str, Any], mode: str | None, how: str, prompts: Sequence[str],
             other: Mapping[str, Any] | None) -> Effect | None:
    setting = figure.get("setting") or figure.get("split")
    others = [p for p in prompts if p != mode]
    if mode is None:
        return Effect("best_of", "published", None, None, None,
                      "the published figure is the better of " + " and ".join(_NAMES.get(p, p) for p in prompts)
                      + "; the run's prompt is not recorded, so which one it matches is not known")
    if other is not None:
        this_acc, other_acc = figure["accuracy"], other["accuracy"]
        if other_acc <= this_acc:
            return None
        expected = (other_acc + other.get("inrun", 0.0)) - (this_acc + other.get("this_inrun", 0.0))
        # measured: the two runs are over the same items; their own effects carry the ranges
        return Effect("best_of", "published", expected, expected, expected,
                      f"the suite's {_NAMES.get(other['mode'], other['mode'])} run of {setting} scored "
                      f"{fixed(other_acc, 2)}% against this {_NAMES.get(mode, mode)} run's {fixed(this_acc, 2)}%, and Table 1 takes "
                      "the better (each run's own expected effects taken out, so none counts twice)", None, figure["n"],
                      beside=exact_beside(expected))
    counts = per_prompt(run_model_name(figure.get("model")))
    row = (counts or {}).get("counts", {}).get(setting or "")
    if counts and row and mode in row and all(p in row for p in others):
        n = counts["n"]
        best = max(others, key=lambda p: row[p])
        if row[best] <= row[mode]:
            return None
        expected = 100.0 * (row[best] - row[mode]) / n
        # measured: two counts of the same 1,730 items, published as they are
        return Effect("best_of", "published", expected, expected, expected,
                      f"the official counts for {counts['model']} on {setting}: {_NAMES.get(mode, mode)} {row[mode]}, "
                      f"{_NAMES.get(best, best)} {row[best]} of {n} (results_summary.xlsx, commit e3be682); the published "
                      f"figure is the better, {_NAMES.get(best, best)}", None, n, beside=exact_beside(expected))
    return Effect("best_of", "published", None, None, None,
                  "the published figure is the better of " + " and ".join(_NAMES.get(p, p) for p in prompts)
                  + f"; this run is {_NAMES.get(mode, mode)} ({how}) and no "
                  + "/".join(_NAMES.get(p, p) for p in others) + " figure of this model is known here "
                  "(mmmu-eval suite --prompts direct,cot measures it)")


def outside_effects(
    figure: Mapping[str, Any],
    manifest: Mapping[str, Any],
    items: Sequence[Item],
    correct: Mapping[str, bool],
    row: Published | None,
    source: Source | None,
    *,
    in_run: Sequence[str] = (),
    other: Mapping[str, Any] | None = None,
) -> list[Effect]:
    """The causes outside the run, from the published row's protocol against the run's manifest."""
    protocol = dict(source.protocol) if source is not None else {}
    if not protocol:
        return []
    out: list[Effect] = []
    mode, how = run_prompt(manifest)
    prompts = list(protocol.get("prompts") or ())
    if mode is not None and prompts and mode not in prompts and "prompt" not in in_run:
        out.append(Effect("prompt", "published", None, None, None,
                          f"the published figure used the {' and '.join(_NAMES.get(p, p) for p in prompts)} prompts; "
                          f"this run used {mode} ({how}): not measurable from this run alone"))
    elif protocol.get("best_of") and len(prompts) > 1 and (mode is None or mode in prompts):
        effect = _best_of(figure, mode, how, prompts, other)
        if effect is not None:
            out.append(effect)
    if row is not None and row.snapshot:
        name = run_model_name(figure.get("model"))
        theirs, mine = _snapshots(row.snapshot), _snapshots(name)
        if not mine:
            out.append(Effect("snapshot", "published", None, None, None,
                              f"the published figure is of {row.snapshot}; the run's model name ({name}) records no "
                              "version, so whether it is the same model is not known"))
        elif not mine & theirs:
            out.append(Effect("snapshot", "published", None, None, None,
                              f"the published figure is of {row.snapshot}, this run of {name}: another version of the "
                              "model, not measurable from this run"))
    wanted = protocol.get("data_revision")
    if wanted and figure.get("benchmark") == "mmmu-pro":
        build, ids = data_build(items, figure.get("setting"))
        if build is not None and build != wanted:
            out.append(_data_revision(wanted, manifest, [i for i in ids if i in correct], correct, figure))
    return out


def _data_revision(wanted: str, manifest: Mapping[str, Any], scored: Sequence[str], correct: Mapping[str, bool],
                   figure: Mapping[str, Any]) -> Effect:
    """The items whose options or answer differ in the published figure's build: each another
    question there, at the run's own accuracy (no direction known beyond that)."""
    n = figure["n"] or 1
    p = figure["correct"] / n
    deltas = {i: Counterfactual(p, correct[i]) for i in scored}
    wrong = sum(1 for i in scored if not correct[i])
    return Effect("data_revision", "published", None, None, None,
                  f"the published figure is on the {wanted} data build; this run's data revision: "
                  f"{recorded_revision(manifest)}; {len(scored)} of its items have other options or another answer in "
                  f"the {wanted} build (e.g. {', '.join(scored[:3])}): each, another question there, at the run's own "
                  "accuracy; range their binomial spread", 100.0 * wrong / n, len(scored), deltas, beside=NOTHING_BESIDE)


def compared_line(figure: Mapping[str, Any], manifest: Mapping[str, Any], row: Published | None,
                  source: Source | None) -> str:
    """Which published column and prompt the run was set against, and why."""
    setting = figure.get("setting")
    where = f"the {setting} column" if setting else f"the {figure.get('split')} column"
    why = "the run's setting (results.json)" if setting else "the run's split (results.json)"
    notes = list((manifest.get("rescored_from") or {}).get("notes") or ())
    said = next((n for n in notes if "holds" in n), None)
    if said:
        why += f" (the rescore: {said})"
    mode, how = run_prompt(manifest)
    protocol = dict(source.protocol) if source is not None else {}
    theirs = ""
    if protocol.get("prompts"):
        names = " and ".join(_NAMES.get(p, p) for p in protocol["prompts"])
        theirs = f"; published: {'the better of ' if protocol.get('best_of') else ''}{names}"
    elif source is not None:
        theirs = "; published: prompt and protocol not stated by the source"
    ours = f"; this run: {_NAMES.get(mode, mode)} ({how})" if mode else "; this run's prompt: not recorded"
    who = f" ({row.model})" if row is not None else ""
    return f"compared{who} with {where}, {why}{theirs}{ours}"
