"""``lmms-eval``: the per-sample log that ``lmms-eval --log_samples`` writes for MMMU and MMMU-Pro.

Three layouts have existed, and all are read:

- v0.1-0.2: ``<task>.json``, one object ``{"args", "model_configs", "logs": [sample, ...]}``;
- v0.3: ``<date>_samples_<task>.jsonl``, one sample a line, with the dataset row under ``doc``;
- v0.4 and later: the same file name, without ``doc`` and ``arguments``, and with ``resps`` /
  ``filtered_resps`` flattened to the single response when there is one.

A sample holds ``doc_id`` (the row's 0-based position in the task's split), ``filtered_resps``
(the text lmms-eval scored, after its filters), and what the task's ``process_results``
returned: for MMMU ``mmmu_acc = {id, subdomain, question_type, answer, parsed_pred}``, for
MMMU-Pro ``mmmu_acc = {id, subject, answer, parsed_pred}``, for the reasoning variants
``llm_as_judge_eval`` (a judge model's score, with no id). The task name comes from the file
name (``mmmu_val``, ``mmmu_test``, ``mmmu_pro_standard``, ``mmmu_pro_vision``, their ``_cot``
variants, ``mmmu_val_reasoning`` ...).

lmms-eval logs no per-item verdict, only what it compared; its verdict is read off that record
with its own rule: a multiple-choice ``parsed_pred`` equal to ``answer``; an open question judged
by the official open matching on each logged prediction. Since mid-2025 it logs an open
question's prediction as one string, and its matcher then walks that string character by
character, so no open answer can match: that is its verdict, and it is reported as such. It does
not log when its parser drew a random letter; that is worked out after the join from its own
passes (``(L)``, ``"L "``, ``"L."``, option text) on the item's options. It parses no MMMU-Pro
vision response at all (the raw text is compared with the letter). When a results file
(``<date>_results.json``, ``results.json``) lies next to the log, its accuracy is the harness's
recorded one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.records import Item
from mmmu_eval.scoring.choices import OfficialCrash, bracket_pass, content_pass, strip_and_pad
from mmmu_eval.scoring.open_answer import eval_open
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    jsonl_rows,
    missing_column_error,
    names_mmmu,
    no_rows_error,
    other_benchmark_error,
    read_json,
    the_one_file,
)

NAME = "lmms-eval"
EXPECTED = "an lmms-eval sample (an object with doc_id and filtered_resps)"
_SAMPLES = re.compile(r"^(?:(?P<date>.+?)_)?samples_(?P<task>.+)\.jsonl$")


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is an lmms-eval log, or None."""
    if path.is_dir():
        found = _sample_files(path)
        return f"a folder with lmms-eval samples files ({found[0].name})" if found else None
    if first is not None and "doc_id" in first and ("filtered_resps" in first or "resps" in first):
        return "a JSONL row with doc_id and filtered_resps"
    if first is not None and "doc_id" in first and _SAMPLES.match(path.name):
        return "an lmms-eval samples_<task>.jsonl file of doc_id rows"
    if path.suffix == ".json" and first is None:
        head = _head(path)
        if '"logs"' in head and '"doc_id"' in head:
            return 'a JSON object whose "logs" hold samples with doc_id (lmms-eval 0.1-0.2)'
    return None


def read(path: Path) -> ForeignFile:
    """Read one samples file (or the only MMMU samples file in a folder)."""
    path = _samples_file(path)
    problems: list[str] = []
    if path.suffix == ".jsonl":
        samples = list(jsonl_rows(path, problems))
        match = _SAMPLES.match(path.name)
        task = match["task"] if match else None
    else:
        doc = read_json(path, EXPECTED)
        logs = doc.get("logs") if isinstance(doc, dict) else None
        if not isinstance(logs, list):
            raise no_rows_error(path, NAME, EXPECTED, ['expected an object with a "logs" list'])
        samples = []
        for index, sample in enumerate(logs):
            if isinstance(sample, dict):
                samples.append((f"{path.name}[logs][{index}]", sample))
            else:
                problems.append(f"{path.name}[logs][{index}]: not an object; nothing scored from it")
        task = path.stem
    _refuse_other_task(path, task, samples)
    benchmark, split, setting, mode = task_target(task)
    if samples and not any("filtered_resps" in s or "resps" in s for _, s in samples):
        raise missing_column_error(path, NAME, "filtered_resps", f"its rows hold {', '.join(sorted(samples[0][1])[:10])}")
    rows = [row for where, sample in samples if (row := _row(where, sample, setting, problems)) is not None]
    if not rows:
        raise no_rows_error(path, NAME, EXPECTED, problems)
    repeated = sum(1 for _, s in samples if _count_texts(s.get("filtered_resps", s.get("resps"))) > 1)
    notes = [f"{repeated} sample(s) hold several responses (repeats); the first of each is scored"] if repeated else []
    recorded, results_file, model = _recorded(path, task)
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems),
        benchmark=benchmark, split=split, setting=setting, prompt_mode=mode,
        index_scheme="position-0", task=task, recorded=recorded, model=model,
        sources=(str(path),) + ((results_file,) if results_file else ()), notes=tuple(notes),
    )


def _refuse_other_task(path: Path, task: str | None, samples: list[tuple[str, dict]]) -> None:
    """Refuse the log of a task that is not MMMU's: the file's name declares it.

    A ``samples_<task>.jsonl`` name is lmms-eval's own; an old ``<task>.json`` may have been
    renamed, so there a name without MMMU in it is refused only when no row holds ``mmmu_acc``.
    """
    if not task or names_mmmu(task):
        return
    if path.suffix == ".jsonl" and _SAMPLES.match(path.name):
        raise other_benchmark_error(path, task, "lmms-eval names its samples files after the task, and this one is task")
    if not any(isinstance(sample.get("mmmu_acc"), Mapping) for _, sample in samples):
        raise other_benchmark_error(path, task, "its name (lmms-eval's <task>.json) and rows (no mmmu_acc) say task")


def task_target(task: str | None) -> tuple[str | None, str | None, str | None, str | None]:
    """``(benchmark, split, setting, prompt mode)`` of an lmms-eval task name; Nones when it does not say.

    Raises:
        ConfigError: an MMMU-Pro task we do not score (the composite setting).
    """
    if not task:
        return None, None, None, None
    name = task.lower()
    mode = "cot" if ("cot" in name or "reasoning" in name) else "direct"
    if name.startswith("mmmu_pro"):
        if "composite" in name:
            raise ConfigError(f"lmms-eval task {task}: the composite setting (several questions per image) "
                              "is not an MMMU-Pro setting that the official scorer scores")
        setting = "vision" if "vision" in name else "standard-10" if "standard" in name else None
        return "mmmu-pro", None, setting, mode
    if name.startswith("mmmu"):
        return "mmmu", "test" if "test" in name else "validation", None, mode
    return None, None, None, None


def refine(verdict: HarnessVerdict, item: Item, response: str | None) -> HarnessVerdict:
    """Whether lmms-eval's parser fell back to a random letter: none of its passes finds one.

    Its passes are those of the official MMMU-Pro parser without the ``Answer:`` step (the
    ``(L)`` pass, ``"L "``, ``"L."``, then option text in a response of more than 5 tokens).
    """
    if verdict.fallback is not None or item.question_type != "multiple-choice" or not isinstance(response, str):
        return verdict
    padded = strip_and_pad(response)
    choices = item.choices
    found = (bracket_pass(padded, choices) is not None
             or any(f"{c} " in padded or f"{c}." in padded for c in choices))
    if not found:
        try:
            found = content_pass(padded, dict(zip(choices, item.options))) is not None
        except OfficialCrash:
            found = True  # lmms-eval would have crashed rather than guessed
    return replace(verdict, fallback=not found)


# -- one sample ---------------------------------------------------------------------------------

def _row(where: str, sample: dict, setting: str | None, problems: list[str]) -> ForeignRow | None:
    acc = sample.get("mmmu_acc") if isinstance(sample.get("mmmu_acc"), Mapping) else {}
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    submission = sample.get("submission") if isinstance(sample.get("submission"), Mapping) else {}
    key: str | int | None = next((v for v in (acc.get("id"), doc.get("id"), *submission.keys()) if isinstance(v, str)), None)
    if key is None:
        key = sample.get("doc_id") if isinstance(sample.get("doc_id"), int) and not isinstance(sample.get("doc_id"), bool) else None
    if key is None:
        problems.append(f"{where}: neither an id (mmmu_acc.id, doc.id) nor a doc_id; nothing scored from it")
        return None
    text = _first_text(sample.get("filtered_resps", sample.get("resps")))
    if text is None:
        problems.append(f"{where} ({key}): no response text in filtered_resps; nothing scored from it")
        return None
    benchmark = "mmmu-pro" if "subject" in acc and "subdomain" not in acc else "mmmu" if "subdomain" in acc else None
    prompt = sample.get("input") if isinstance(sample.get("input"), str) else ""
    return ForeignRow(where=where, key=key, response=text, harness=_verdict(sample, acc, setting),
                      benchmark=benchmark, prompt=prompt)


def _verdict(sample: Mapping, acc: Mapping, setting: str | None) -> HarnessVerdict | None:
    if "parsed_pred" in acc:
        gold = acc.get("answer")
        preds = acc["parsed_pred"]
        per_repeat = "mmmu_acc_pass_at_k" in sample  # since 2025-02 one prediction per repeat
        tried = list(preds) if per_repeat and isinstance(preds, list) else [preds]
        mc = acc.get("question_type", "multiple-choice") == "multiple-choice"
        if gold is None or gold == "":
            correct = None  # the test split: withheld answers
        elif mc:
            correct = any(_equal(gold, p) for p in tried)
        else:
            correct = any(eval_open(gold if isinstance(gold, (str, list)) else str(gold),
                                    list(p) if isinstance(p, (str, list)) else [p]) for p in tried)
        shown = tried[0] if tried else None
        if isinstance(shown, list):
            shown = ", ".join(str(p) for p in shown)
        # It parses no vision response (the raw text is compared), so it never falls back there.
        unparsed = "subject" in acc and setting == "vision"
        note = ""
        if unparsed:
            note = "lmms-eval compares the raw response with the letter (it parses no vision answer)"
        elif not mc and per_repeat and any(isinstance(p, str) for p in tried):
            note = "lmms-eval logs the open prediction as one string and its matcher walks it character by character"
        return HarnessVerdict(correct=correct, pred=None if shown is None else str(shown), gold=gold,
                              fallback=False if (unparsed or not mc) else None, note=note)
    score = sample.get("llm_as_judge_eval")
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        return HarnessVerdict(correct=score >= 1, judge=True, note=f"llm_as_judge_eval {score:g}")
    return None


def _equal(gold: object, pred: object) -> bool:
    """``eval_multi_choice``: equality with the gold, or with any element of a list gold."""
    if isinstance(gold, list):
        return any(g == pred for g in gold)
    return gold == pred


def _first_text(value: object) -> str | None:
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _count_texts(value: object) -> int:
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return len(value) if isinstance(value, list) else 1


# -- files --------------------------------------------------------------------------------------

def _sample_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*samples_*.jsonl") if "mmmu" in p.name.lower())


def _samples_file(path: Path) -> Path:
    return the_one_file(path, _sample_files(path) if path.is_dir() else [],
                        "no lmms-eval samples file of an MMMU task in it (<date>_samples_<task>.jsonl)", "samples files")


def _recorded(samples: Path, task: str | None) -> tuple[RecordedScore | None, str | None, str | None]:
    """(accuracy, results file, model) from the results file next to the log (same date prefix first)."""
    if not task:
        return None, None, None
    match = _SAMPLES.match(samples.name)
    date = match["date"] if match and match["date"] else None
    candidates = sorted(samples.parent.glob("*results.json"), key=lambda p: (not (date and p.name.startswith(date)), p.name))
    for file in candidates:
        try:
            doc = read_json(file, "an lmms-eval results file")
        except (DataError, ConfigError):
            continue
        results = doc.get("results") if isinstance(doc, dict) else None
        entry = results.get(task) if isinstance(results, dict) else None
        if not isinstance(entry, dict):
            continue
        for metric in ("mmmu_acc,none", "mmmu_acc", "llm_as_judge_eval,none", "llm_as_judge_eval"):
            value = entry.get(metric)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                counts = (doc.get("n-samples") or {}).get(task) if isinstance(doc.get("n-samples"), dict) else None
                n = counts.get("effective") if isinstance(counts, dict) else None
                model = doc.get("model_name") or (doc.get("config") or {}).get("model_args")
                return RecordedScore(float(value), f'{file.name}: results.{task}["{metric}"]',
                                     n if isinstance(n, int) else None), str(file), model if isinstance(model, str) else None
    return None, None, None


def _head(path: Path, size: int = 65536) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""

