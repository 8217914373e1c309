"""``evalscope``: the reviews EvalScope (1.x) writes for its ``mmmu`` and ``mmmu_pro`` benchmarks.

``evalscope eval --datasets mmmu`` writes a run folder ``<work_dir>/<timestamp>/`` holding
``reviews/<model>/<benchmark>_<Subject>.jsonl`` (one file per subject), ``predictions/`` (the raw
outputs), ``reports/<model>/<benchmark>.json`` (its accuracy) and ``configs/task_config.yaml``
(what was asked). A review row holds:

- ``sample_score.sample_metadata.id``: the official item id (``validation_Art_3``);
- ``sample_score.score.prediction``: the model's text, ``extracted_prediction`` what its parser
  took (a letter, or the text after ``ANSWER:`` for an open question);
- ``sample_score.score.value.<main_score_name>`` (``accuracy``): its verdict, 1.0 or 0.0;
- ``target[0]``: its gold answer (an open question's list written as text, ``"['1/4', '0.25']"``);
- ``messages``: the prompt sent; the options live only inside its text.

Its multiple-choice parser takes the label after the last ``ANSWER:``, else the last capital letter
of the response when that letter is an option, else nothing: it never guesses. Its open questions
are matched with the official open matching on the text after ``ANSWER:``.

What a run holds is read from its content: the benchmark from the review files' names
(``mmmu_Art.jsonl``, ``mmmu_pro_Art.jsonl``), the MMMU-Pro setting from ``task_config.yaml``
(``dataset_format``: ``standard (4 options)``, its default, ``standard (10 options)``, ``vision``)
or, without it, from the prompts (the vision prompt; how many option letters each prompt offers).
Where neither says, the setting is left open and the refusal names the evidence.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import yaml

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.identify import shape_of_counts
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    first_json_line,
    jsonl_rows,
    no_rows_error,
    other_benchmark_error,
    prompt_text,
    read_json,
)
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore

NAME = "evalscope"
EXPECTED = "an EvalScope review row (an object with sample_score)"
#: EvalScope's benchmark names -> ours.
BENCHMARKS = {"mmmu": "mmmu", "mmmu_pro": "mmmu-pro"}
#: Its ``dataset_format`` values -> our MMMU-Pro settings.
SETTINGS = {"standard (4 options)": "standard-4", "standard (10 options)": "standard-10", "vision": "vision"}
#: What EvalScope 1.14 uses when ``dataset_format`` is not given.
DEFAULT_FORMAT = "standard (4 options)"
_FILE = re.compile(r"^(?P<bench>[a-z0-9_]+?)_(?P<subject>[A-Z][A-Za-z_]*)\.jsonl$")
_VISION_PROMPT = "multiple choice question in image"
_LETTERS = re.compile(r"is one of ((?:[A-Z],)*[A-Z])\b")
_SCORED = ("success", "fallback")


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is an EvalScope review file or run folder, or None."""
    if path.is_dir():
        found = _review_files(path)
        return f"a folder with EvalScope reviews ({found[0].parent.name}/{found[0].name})" if found else None
    if first is not None and isinstance(first.get("sample_score"), Mapping):
        return "a JSONL row with EvalScope's sample_score (a reviews/<model>/<benchmark>_<Subject>.jsonl file)"
    return None


def read(path: Path) -> ForeignFile:
    """Read one review file, or every MMMU review file of the one run and model in a folder."""
    files = _chosen_files(path)
    bench = _benchmark_of(files)
    run = files[0].parent.parent.parent
    config, config_file = _task_config(run)
    problems: list[str] = []
    rows: list[ForeignRow] = []
    repeats = 0
    for file in files:
        for where, sample in jsonl_rows(file, problems):
            score = sample.get("sample_score") if isinstance(sample.get("sample_score"), Mapping) else None
            if score is None:
                problems.append(f"{where}: no sample_score; nothing scored from it")
                continue
            if isinstance(score.get("generation_index"), int) and score["generation_index"] > 0:
                repeats += 1
                continue
            row = _row(where, sample, score, problems)
            if row is not None:
                rows.append(row)
    if not rows:
        raise no_rows_error(path, NAME, EXPECTED, problems)
    ours = BENCHMARKS.get(bench) if bench else None
    notes = [f"read {len(files)} EvalScope review file(s) of the run {run.name}"
             + (f" (EvalScope {config['evalscope_version']})" if isinstance(config.get("evalscope_version"), str) else "")]
    setting, evidence = (None, "")
    if ours == "mmmu-pro":
        setting, evidence, said = _setting(config, config_file, bench, rows)
        if said:
            notes.append(said)
    if repeats:
        notes.append(f"{repeats} row(s) are repeats (generation_index > 0); the first generation of each item is scored")
    notes.append("the options come from --data: EvalScope's reviews keep them only inside the prompt text")
    benchmark_args = _benchmark_args(config, bench)
    asked = benchmark_args.get("subset_list")
    # What the run should cover: the subjects it was asked for, else those it has files of.
    subjects = (tuple(asked) if isinstance(asked, list) and path.is_dir()
                else tuple(sorted({m["subject"] for f in files if (m := _FILE.match(f.name))})))
    if isinstance(config.get("limit"), (int, float)) and not isinstance(config.get("limit"), bool):
        notes.append(f"EvalScope ran with limit {config['limit']}: only part of each subject was asked")
    recorded, report = _recorded(run, files[0].parent.name, bench)
    split = benchmark_args.get("eval_split") if ours == "mmmu" else None
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems),
        benchmark=ours, split=split if split in ("dev", "validation", "test") else None, setting=setting,
        prompt_mode="cot", index_scheme="none", task=bench, model=files[0].parent.name,
        recorded=recorded, notes=tuple(notes), setting_evidence=evidence,
        sources=tuple(str(f) for f in (*files, config_file, report) if f), subjects=subjects or None,
    )


# -- one review row -------------------------------------------------------------------------------

def _row(where: str, sample: Mapping, score_block: Mapping, problems: list[str]) -> ForeignRow | None:
    meta = score_block.get("sample_metadata") if isinstance(score_block.get("sample_metadata"), Mapping) else {}
    key = meta.get("id")
    if not isinstance(key, str) or not key:
        problems.append(f"{where}: no sample_metadata.id; nothing scored from it")
        return None
    score = score_block.get("score") if isinstance(score_block.get("score"), Mapping) else {}
    response = score.get("prediction")
    if not isinstance(response, str):
        problems.append(f"{where} ({key}): no response text in score.prediction; nothing scored from it")
        return None
    return ForeignRow(where=where, key=key, response=response, harness=_verdict(sample, meta, score),
                      prompt=prompt_text(sample.get("messages")))


def _verdict(sample: Mapping, meta: Mapping, score: Mapping) -> HarnessVerdict | None:
    values = score.get("value") if isinstance(score.get("value"), Mapping) else {}
    main = score.get("main_score_name") if isinstance(score.get("main_score_name"), str) else next(iter(values), None)
    value = values.get(main)
    target = sample.get("target")
    gold: object = target[0] if isinstance(target, list) and target else target
    open_question = meta.get("question_type") == "open"
    if open_question and isinstance(gold, str) and gold.startswith("["):
        try:
            gold = list(ast.literal_eval(gold))  # EvalScope reads the list back before matching
        except (ValueError, SyntaxError):
            pass
    status = score.get("status", "success")
    if status not in _SCORED or not isinstance(value, (int, float)) or isinstance(value, bool):
        return HarnessVerdict(correct=None, gold=gold, note=f"EvalScope recorded no usable score (status {status})")
    extracted = score.get("extracted_prediction")
    pred = extracted if isinstance(extracted, str) and extracted.strip() else None
    note = "" if pred is not None or open_question else "EvalScope found no option label and never guesses"
    return HarnessVerdict(correct=value >= 1, pred=pred, gold=gold, fallback=False, note=note)


# -- what the run holds ---------------------------------------------------------------------------

def _setting(config: Mapping, config_file: Path | None, bench: str, rows: list[ForeignRow]) -> tuple[str | None, str, str]:
    """(setting, the evidence when it stays open, the note saying how it was decided)."""
    args = _benchmark_args(config, bench)
    extra = args.get("extra_params") if isinstance(args.get("extra_params"), Mapping) else {}
    named = extra.get("dataset_format")
    if config_file is not None:
        fmt = named if isinstance(named, str) else DEFAULT_FORMAT
        if fmt not in SETTINGS:
            raise ConfigError(f"{config_file}: dataset_format {fmt!r} is not one of EvalScope's MMMU-Pro formats "
                              f"({', '.join(SETTINGS)})")
        how = "its dataset_format" if isinstance(named, str) else f"no dataset_format, so EvalScope's default {fmt!r}"
        return SETTINGS[fmt], "", f"MMMU-Pro {SETTINGS[fmt]}, as {config_file.name} says ({how})"
    prompts = [r.prompt for r in rows if r.prompt]
    vision = sum(_VISION_PROMPT in p for p in prompts)
    if prompts and vision == len(prompts):
        return "vision", "", f"MMMU-Pro vision: no task_config.yaml, and every prompt is EvalScope's vision prompt"
    counts = [len(m[1].split(",")) for p in prompts if (m := _LETTERS.search(p))]
    ten = sum(n == 10 for n in counts)
    if not vision and ten:
        return "standard-10", "", (f"MMMU-Pro standard-10: no task_config.yaml, and {ten} prompt(s) offer ten options, "
                                   "which only the ten-option set has")
    if not vision and shape_of_counts(counts) == "four":
        return "standard-4", "", (f"MMMU-Pro standard-4: no task_config.yaml, and none of its {len(counts)} prompts "
                                  "offers nine or more options (the original option set)")
    shown = ", ".join(f"{n} option(s): {c}" for n, c in sorted(Counter(counts).items()))
    evidence = (f"there is no configs/task_config.yaml beside the reviews (EvalScope records dataset_format there), "
                f"{vision} of {len(prompts)} prompt(s) are its vision prompt, and the prompts offer "
                f"{shown or 'no option letters'}: too few to tell the option sets apart")
    return None, evidence, ""


def _benchmark_args(config: Mapping, bench: str | None) -> Mapping:
    """The benchmark's resolved arguments (EvalScope 1.x), else what was passed in dataset_args."""
    for block in ("resolved_benchmarks", "dataset_args"):
        section = config.get(block)
        if isinstance(section, Mapping) and isinstance(section.get(bench), Mapping):
            return section[bench]
    return {}


def _benchmark_of(files: list[Path]) -> str | None:
    """The one EvalScope benchmark the files are reviews of; other benchmarks are refused."""
    names = {m["bench"] if (m := _FILE.match(f.name)) else f.stem for f in files}
    mmmu = names & set(BENCHMARKS)
    if not mmmu:
        (shown, *_) = sorted(names)
        raise other_benchmark_error(files[0], shown, "EvalScope names review files <benchmark>_<subset>.jsonl, "
                                    "and these name the benchmark")
    if len(mmmu) > 1:
        raise DataError(f"{files[0].parent}: holds EvalScope reviews of both mmmu and mmmu_pro; a rescore scores one "
                        "benchmark: put one benchmark's review files in a folder of their own and rescore that")
    return next(iter(mmmu))


def _chosen_files(path: Path) -> list[Path]:
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    if path.is_file():
        return [path]
    found = _review_files(path)
    if not found:
        raise DataError(f"{path}: no EvalScope review files in it (reviews/<model>/mmmu_<Subject>.jsonl)")
    groups: dict[Path, list[Path]] = {}
    for file in found:
        groups.setdefault(file.parent, []).append(file)
    if len(groups) > 1:
        listed = ", ".join(str(p.relative_to(path)) if p != path else "." for p in list(groups)[:6])
        raise DataError(f"{path}: EvalScope reviews of {len(groups)} runs or models ({listed}); "
                        "name the one to rescore (a run's reviews/<model> folder)")
    (files,) = groups.values()
    mmmu = [f for f in files if (m := _FILE.match(f.name)) and m["bench"] in BENCHMARKS]
    return mmmu or files


def _review_files(folder: Path) -> list[Path]:
    """Review files under ``folder``: ``reviews/<model>/*.jsonl``, or a folder of rows with sample_score."""
    found = sorted(p for p in folder.rglob("*.jsonl") if p.parent.parent.name == "reviews")
    if found:
        return found
    return sorted(p for p in folder.glob("*.jsonl")
                  if isinstance((first_json_line(p) or {}).get("sample_score"), Mapping))


def _task_config(run: Path) -> tuple[dict, Path | None]:
    """``configs/task_config*.yaml`` of the run (the newest), parsed; ``({}, None)`` when absent."""
    found = sorted((run / "configs").glob("task_config*.yaml"), key=lambda p: (p.stat().st_mtime, p.name))
    if not found:
        return {}, None
    try:
        value = yaml.safe_load(found[-1].read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DataError(f"{found[-1]}: not a readable EvalScope task config ({type(exc).__name__}: {exc})") from None
    return (value if isinstance(value, dict) else {}), found[-1]


def _recorded(run: Path, model: str, bench: str | None) -> tuple[RecordedScore | None, Path | None]:
    """The accuracy of ``reports/<model>/<benchmark>.json``."""
    report = run / "reports" / model / f"{bench}.json"
    if not bench or not report.is_file():
        return None, None
    try:
        doc = read_json(report, "an EvalScope report")
    except (DataError, ConfigError):
        return None, None
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    for metric in metrics if isinstance(metrics, list) else []:
        score = metric.get("score") if isinstance(metric, dict) else None
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            n = metric.get("num")
            name = metric.get("name") or (metric.get("identity") or {}).get("name", "")
            return RecordedScore(float(score), f"reports/{model}/{report.name}: metrics[{name}].score",
                                 n if isinstance(n, int) else None), report
    return None, None
