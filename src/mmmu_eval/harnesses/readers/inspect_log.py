"""``inspect``: Inspect evaluation logs of the MMMU tasks (``.eval`` and ``.json``).

A ``.json`` log is one ``EvalLog`` object: ``eval`` (the task, its dataset, the model),
``results`` (each scorer's metrics, ``accuracy`` among them) and ``samples``. A ``.eval`` log is
a zip archive of the same parts: ``header.json`` (everything but the samples), one
``samples/<id>_epoch_<n>.json`` per sample, and while the evaluation runs ``_journal/start.json``
instead of a header. Current inspect_ai (0.3.285 at least) compresses each member with
Zstandard (zip method 93), which Python's ``zipfile`` reads only from 3.14; ``zstandard``
decompresses them before that. A sample holds ``id``, ``epoch``, ``target``, ``choices``, ``output``
(``completion``, ``choices[0].message``), ``scores`` (``{scorer: {value, answer, explanation}}``),
``error`` when it failed, and ``attachments`` for long texts the log replaced by
``attachment://<hash>``.

inspect_evals' MMMU tasks are ``mmmu_multiple_choice`` (scorer ``choice``; value ``C`` or ``I``,
``answer`` the letter it took from the ``ANSWER: X`` line its ``multiple_choice`` solver asks
for) and ``mmmu_open`` (scorer ``model_graded_fact``: an LLM judge). They give their samples no
id, so Inspect numbers them 1, 2, ... in dataset order: sample N is the N-th multiple-choice (or
open) question of the validation split, subjects in alphabetical order. Only the first epoch of
each sample is scored.
"""

from __future__ import annotations

import math
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    message_text,
    names_mmmu,
    no_rows_error,
    other_benchmark_error,
    prompt_text,
    read_json,
)

NAME = "inspect"
EXPECTED = "an Inspect evaluation log (an EvalLog with eval and samples)"
_CORRECT = ("C", 1, 1.0, True, "1", "correct")
_ATTACHMENT = "attachment://"
#: Inspect task name -> (benchmark, split, question type the task keeps).
TASKS: dict[str, tuple[str, str, str | None]] = {
    "mmmu_multiple_choice": ("mmmu", "validation", "multiple-choice"),
    "mmmu_open": ("mmmu", "validation", "open"),
}


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is an Inspect log, or None."""
    if path.suffix == ".eval" and path.is_file() and zipfile.is_zipfile(path):
        return "a .eval zip archive"
    if path.suffix == ".json" and path.is_file():
        try:
            with path.open("rb") as fh:
                head = fh.read(4096).decode("utf-8", errors="replace")
        except OSError:
            return None
        if '"eval"' in head and ('"status"' in head or '"version"' in head) and head.lstrip().startswith("{"):
            return "a JSON EvalLog (version, status, eval)"
    return None


def read(path: Path) -> ForeignFile:
    """Read the log's header and its samples."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file; --format inspect reads an Inspect .eval or .json log")
    notes: list[str] = []
    if path.suffix == ".eval" or zipfile.is_zipfile(path):
        header, samples, problems = _read_zip(path, notes)
    else:
        log = read_json(path, EXPECTED)
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise no_rows_error(path, NAME, EXPECTED, ["the JSON has no \"eval\" object"])
        header = log
        problems = []
        samples = []
        for index, sample in enumerate(log.get("samples") or []):
            if isinstance(sample, dict):
                samples.append((f"{path.name}[samples][{index}]", sample))
            else:
                problems.append(f"{path.name}[samples][{index}]: not an object; nothing scored from it")
        if log.get("status") not in (None, "success"):
            notes.append(f"the log's status is {log.get('status')!r}: the evaluation did not finish cleanly")
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    task = str(spec.get("task") or "")
    short = task.rsplit("/", 1)[-1]
    dataset = spec.get("dataset") if isinstance(spec.get("dataset"), Mapping) else {}
    if task and short not in TASKS and not any(names_mmmu(v) for v in (task, dataset.get("name"), dataset.get("location"))):
        shown = f"{task}" + (f", dataset {dataset.get('name') or dataset.get('location')}" if dataset else "")
        raise other_benchmark_error(path, shown, "its eval names the task")
    benchmark, split, qtype = TASKS.get(short, (None, None, None))
    args = spec.get("task_args") if isinstance(spec.get("task_args"), dict) else {}
    if isinstance(args.get("split"), str):
        split = args["split"]
    rows = []
    later_epochs = 0
    for where, sample in samples:
        if sample.get("epoch", 1) != 1:
            later_epochs += 1
            continue
        row = _row(where, sample, problems)
        if row is not None:
            rows.append(row)
    if not rows:
        raise no_rows_error(path, NAME, "an Inspect sample with an id and an output", problems)
    if later_epochs:
        notes.append(f"{later_epochs} sample(s) of later epochs left out: the first epoch is scored")
    sample_ids = dataset.get("sample_ids")
    expected = tuple(str(i) for i in sample_ids) if isinstance(sample_ids, list) and sample_ids else None
    subjects = args.get("subjects")
    subjects = (subjects,) if isinstance(subjects, str) else tuple(subjects) if isinstance(subjects, list) else None
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems),
        benchmark=benchmark, split=split, index_scheme="position-1", question_type=qtype,
        task=task or None, model=spec.get("model") if isinstance(spec.get("model"), str) else None,
        recorded=_recorded(header, path), sources=(str(path),), notes=tuple(notes),
        expected_ids=expected, subjects=subjects,
    )


def _row(where: str, sample: dict, problems: list[str]) -> ForeignRow | None:
    key = sample.get("id")
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        problems.append(f"{where}: no sample id; nothing scored from it")
        return None
    where = f"{where} (sample {key})"
    attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
    error = sample.get("error")
    if isinstance(error, Mapping):
        message = str(error.get("message") or "the sample failed")
        return ForeignRow(where=where, key=key, response=None, error=_resolve(message, attachments))
    output = sample.get("output") if isinstance(sample.get("output"), Mapping) else {}
    text = output.get("completion")
    if not isinstance(text, str) or not text:
        choices = output.get("choices") if isinstance(output.get("choices"), list) else []
        message = choices[0].get("message") if choices and isinstance(choices[0], Mapping) else None
        text = message_text(message.get("content")) if isinstance(message, Mapping) else None
    if text is None:
        if isinstance(output.get("error"), str):
            return ForeignRow(where=where, key=key, response=None, error=output["error"])
        problems.append(f"{where}: no output completion; nothing scored from it")
        return None
    return ForeignRow(where=where, key=key, response=_resolve(text, attachments),
                      harness=_verdict(sample, attachments), prompt=_resolve(prompt_text(sample.get("input")), attachments))


def _verdict(sample: dict, attachments: Mapping) -> HarnessVerdict | None:
    scores = sample.get("scores") if isinstance(sample.get("scores"), Mapping) else {}
    if not scores:
        return None
    name, score = next(iter(scores.items()))
    if not isinstance(score, Mapping):
        return None
    value = score.get("value")
    answer = score.get("answer")
    judged = "model_graded" in name or "judge" in name
    target = sample.get("target")
    failed = _no_verdict(score)
    if failed:
        # Inspect gave no verdict (its grader failed) and left the sample out of its accuracy.
        return HarnessVerdict(correct=None, gold=target, judge=judged, fallback=False, note=f"{name}: no verdict ({failed})")
    return HarnessVerdict(
        correct=value in _CORRECT, pred=_resolve(answer, attachments) if isinstance(answer, str) and not judged else None,
        gold=target, judge=judged, fallback=False,
        note=f"{name}: {value}" + (f" ({_resolve(score['explanation'], attachments)[:200]})"
                                   if judged and isinstance(score.get("explanation"), str) else ""),
    )


def _no_verdict(score: Mapping) -> str | None:
    """Why a score is no verdict: a NaN or missing value, or a reason that says the grader failed."""
    metadata = score.get("metadata") if isinstance(score.get("metadata"), Mapping) else {}
    for where in (score, metadata):
        for key in ("reason", "score_reason", "failure"):
            said = where.get(key)
            if isinstance(said, str) and ("grader_failed" in said or "scoring_failed" in said):
                return said
    value = score.get("value")
    if value is None:
        return "no value"
    if isinstance(value, float) and math.isnan(value):
        return "value NaN"
    return None


def _resolve(text: str, attachments: Mapping) -> str:
    if text.startswith(_ATTACHMENT):
        return str(attachments.get(text[len(_ATTACHMENT):], text))
    return text


def _recorded(header: Mapping, path: Path) -> RecordedScore | None:
    results = header.get("results") if isinstance(header.get("results"), Mapping) else {}
    for score in results.get("scores") or []:
        metrics = score.get("metrics") if isinstance(score, Mapping) else None
        accuracy = metrics.get("accuracy") if isinstance(metrics, Mapping) else None
        value = accuracy.get("value") if isinstance(accuracy, Mapping) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            n = score.get("scored_samples") or results.get("completed_samples")
            return RecordedScore(float(value), f"{path.name}: results.scores[{score.get('name')}].metrics.accuracy",
                                 n if isinstance(n, int) else None)
    return None


def _read_zip(path: Path, notes: list[str]) -> tuple[dict, list[tuple[str, dict]], list[str]]:
    problems: list[str] = []
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{path}: not a complete .eval archive ({exc}); expected {EXPECTED}") from None
    with archive:
        names = archive.namelist()
        header = _member(archive, "header.json", problems)
        if header is None:
            header = _member(archive, "_journal/start.json", problems)
            if header is None:
                raise DataError(f"{path}: neither header.json nor _journal/start.json in the archive; expected {EXPECTED}")
            notes.append("the log has no header.json (the evaluation did not finish); its recorded score is unknown")
        samples = []
        for name in sorted(n for n in names if n.startswith("samples/") and n.endswith(".json")):
            sample = _member(archive, name, problems)
            if isinstance(sample, dict):
                samples.append((f"{path.name}:{name}", sample))
            elif sample is not None:
                problems.append(f"{path.name}:{name}: not an object; nothing scored from it")
    return header, samples, problems


#: The zip compression method number of Zstandard (APPNOTE 4.4.5), which inspect_ai writes.
ZIP_ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature ... file name length, extra field length


def _read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; Zstandard members (current inspect_ai) are decompressed here.

    Python's ``zipfile`` reads Zstandard only from 3.14 on; before that the member's raw bytes
    are taken from behind its local header and handed to ``zstandard``.
    """
    info = archive.getinfo(name)
    if info.compress_type != ZIP_ZSTANDARD or _zipfile_reads_zstd():
        return archive.read(name)
    import zstandard

    fp = archive.fp
    if fp is None:
        raise ValueError("the archive is closed")
    fp.seek(info.header_offset)
    header = _LOCAL_HEADER.unpack(fp.read(_LOCAL_HEADER.size))
    if header[0] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{name}: no local file header where the directory says")
    fp.seek(header[-2] + header[-1], 1)  # the file name and the extra field
    raw = fp.read(info.compress_size)
    try:
        data = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    except zstandard.ZstdError as exc:
        raise zipfile.BadZipFile(f"a Zstandard member that does not decompress ({exc})") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"{name}: decompressed to {len(data)} bytes, not the {info.file_size} the archive records")
    return data


def _zipfile_reads_zstd() -> bool:
    return getattr(zipfile, "ZIP_ZSTANDARD", None) == ZIP_ZSTANDARD


def _member(archive: zipfile.ZipFile, name: str, problems: list[str]) -> dict | None:
    try:
        data = _read_member(archive, name)
    except KeyError:
        return None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        problems.append(f"{Path(str(archive.filename)).name}:{name}: cannot be read from the archive ({exc}); nothing scored from it")
        return None
    try:
        value = loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{Path(str(archive.filename)).name}:{name}: not valid JSON ({exc}); nothing scored from it")
        return None
    return value if isinstance(value, dict) else None
