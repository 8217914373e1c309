"""``--sample-audit AUDIT.json`` read for a run: the audit's answers of the run's benchmark, and the
sample drawn from them (``stats/sample_design.py``, which holds the design and reads no file).

The file is the JSON of ``mmmu-eval audit --json``; its runs' answers right and wrong
(``items.responses``) and its sha256 (recorded in the manifest) are read here. The check and the
2PL fit of one audit are computed once per process for each K and seed (a suite's runs of several
settings share them), and again when the file changes (its size and time).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.dataset.digest import file_sha256
from mmmu_eval.stats.irt import fit_2pl
from mmmu_eval.stats.sample_check import Check, hold_out_check
from mmmu_eval.stats.sample_design import AuditAnswers, Design, design_from

__all__ = ["design_sample", "read_audit_answers"]


def read_audit_answers(path: str | Path, benchmark: str) -> AuditAnswers:
    """The runs of ``benchmark`` in the audit's JSON, with their answers (``items.responses``).

    Raises:
        ConfigError: the file cannot be read, is no audit, predates ``items.responses``, or holds
            no run of the benchmark (each message names the file).
    """
    path = Path(path)
    try:
        doc = loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"--sample-audit {path}: cannot be read as JSON ({exc})") from None
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, dict) or not isinstance(doc.get("runs"), list):
        raise ConfigError(f"--sample-audit {path}: not the JSON of `mmmu-eval audit --json` (no runs and items)")
    responses = items.get("responses")
    if not isinstance(responses, dict):
        raise ConfigError(f"--sample-audit {path}: it has no items.responses (an audit by an older mmmu-eval); "
                          "run `mmmu-eval audit ... --json` again")
    ids = tuple(sorted(items.get("per_item") or {}))
    wanted = [r for r in doc["runs"] if isinstance(r, dict) and (r.get("setting") == "mmmu") == (benchmark == "mmmu")]
    if not wanted:
        raise ConfigError(f"--sample-audit {path}: none of its {len(doc['runs'])} runs is of {benchmark}")
    right = np.zeros((len(wanted), len(ids)))
    seen = np.zeros((len(wanted), len(ids)))
    for k, run in enumerate(wanted):
        row = responses.get(run.get("name"))
        if not isinstance(row, str) or len(row) != len(ids) or set(row) - set("01."):
            raise ConfigError(f"--sample-audit {path}: the responses of run {run.get('name')!r} are not "
                              f"{len(ids)} characters of 1, 0 and '.'")
        codes = np.frombuffer(row.encode("ascii"), dtype=np.uint8)
        right[k] = codes == ord("1")
        seen[k] = codes != ord(".")
    return AuditAnswers(str(path), file_sha256(path), ids, tuple(str(r.get("name")) for r in wanted),
                        tuple(str(r.get("model")) for r in wanted), right, seen)


def design_sample(population: Sequence[str], k: int, seed: int, audit: str | Path, benchmark: str) -> Design:
    """Draw ``k`` of the ``population`` ids as the audit's check says (see the module)."""
    return _design(tuple(population), k, seed, str(audit), _stamp(audit), benchmark)


def _stamp(path: str | Path) -> tuple[int, int]:
    """The audit file's size and time: a changed file is designed again within one process."""
    try:
        st = Path(path).stat()
    except OSError:
        return (0, 0)
    return (st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _checked(audit: str, _stamp: tuple[int, int], benchmark: str, k: int, seed: int) -> tuple[AuditAnswers, Check]:
    """The audit's answers and the check at K: one per audit, K and seed in a process (a suite's
    runs of several settings share them)."""
    answers = read_audit_answers(audit, benchmark)
    return answers, hold_out_check(answers.right, answers.seen, answers.models, answers.ids, k, seed=seed)


@functools.lru_cache(maxsize=2)
def _fitted(audit: str, _stamp: tuple[int, int], benchmark: str) -> Any:
    """The 2PL on all the audit's runs of the benchmark."""
    answers = read_audit_answers(audit, benchmark)
    return fit_2pl(answers.right, answers.seen)


@functools.lru_cache(maxsize=4)
def _design(population: tuple[str, ...], k: int, seed: int, audit: str, _stamp: tuple[int, int],
            benchmark: str) -> Design:
    answers, check = _checked(audit, _stamp, benchmark, k, seed)
    model = _fitted(audit, _stamp, benchmark) if "2pl" in check.offered else None
    return design_from(answers, check, population, k, seed, model)
