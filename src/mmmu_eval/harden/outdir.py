"""The output directory of a step: when a step may write there, and what it leaves behind.

Each step reads ``--data`` and writes ``--out`` as a complete MMMU-Pro-layout dataset: the
configs the input already had (copied byte for byte) plus its own, its ``harden.json`` and its
report. A step may write into:

- a directory that does not exist or is empty;
- its input itself, when that is a harden output (the step extends it: ``all`` works this way);
- a directory that already holds this step's output from the same input (running the same
  command again resumes it; the trial and proposal runs continue where they stopped).

Anything else is refused before any work, so no earlier result is mixed with a new one. A new
output gets its ``harden.json`` before anything else, marked as begun by the step on its input,
so a step killed while it writes its first files is resumed by the same command (the temporary
file of a write cut short does not count as content: ``atomic.holds_anything``). When a
step's result changes (other settings, or a changed input), the configs and record sections of
the steps after it are removed: they were built on the old result.
"""

from __future__ import annotations

import functools
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from mmmu_eval.core.atomic import holds_anything, remove_leftovers
from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden.problems import Problem, count_by_kind
from mmmu_eval.harden.record import RECORD, STEPS, Record
from mmmu_eval.harden.source import Source
from mmmu_eval.harden.writer import remove_config
from mmmu_eval.store.run_stop import stop_fields
from mmmu_eval.core.writer_lock import hold_directory

__all__ = ["StepResult", "mark_stopped", "one_writer", "open_out", "settle_later_steps"]

log = logging.getLogger(__name__)

_Step = TypeVar("_Step", bound=Callable[..., Awaitable[Any]])

#: The config each step writes.
STEP_CONFIG = {"filter": "standard-4", "augment": "standard-10", "render": "vision"}


@dataclass(frozen=True)
class StepResult:
    """What one step (or ``all``) hands back."""

    out: Path
    """The output directory."""
    record: Record
    """harden.json as written."""
    step: str
    """``filter``, ``augment``, ``render`` or ``all``."""
    status: str
    """``complete``, or ``incomplete`` (something remains for a rerun)."""
    problems: tuple[Problem, ...] = ()
    """What this step (and its input) left out."""
    messages: tuple[str, ...] = field(default_factory=tuple)
    """What to tell the user: what remains and how to finish it."""

    @property
    def exit_status(self) -> int:
        """0 when complete and nothing bad was left out; 1 otherwise (the record says what and why).

        Open questions of an MMMU input are left out and counted, but are not bad input.
        """
        return 0 if self.status == "complete" and not any(p.bad for p in self.problems) else 1

    def summary(self) -> str:
        """``12 item(s) left out (no answer 3, image 9)``, or ``nothing left out``.

        Refused review decisions are counted apart: their questions stay, as they were.
        """
        left = [p for p in self.problems if p.left_out]
        refused = len(self.problems) - len(left)
        kinds = ", ".join(f"{k} {n}" for k, n in count_by_kind(left).items())
        text = f"{len(left)} item(s) left out ({kinds})" if left else "nothing left out"
        return text + (f"; {refused} review decision(s) refused (those questions stay as they were)" if refused else "")

    def __repr__(self) -> str:
        return f"StepResult({self.step}, {str(self.out)!r}, {self.status}, {self.summary()})"


def one_writer(step: str) -> Callable[[_Step], _Step]:
    """Make a step function (``async def step(data, out, ...)``) hold ``out`` as its one writer
    for the whole call (``writer_lock.hold_directory``): a second harden command on the same
    output is refused at once, before it reads its input or sends a request. ``harden all``
    holds it once for its three steps."""

    def wrap(function: _Step) -> _Step:
        @functools.wraps(function)
        async def held(data: Any, out: str | Path, *args: Any, **kwargs: Any) -> Any:
            with hold_directory(Path(out).expanduser(), f"harden {step}"):
                try:
                    return await function(data, out, *args, **kwargs)
                except BaseException as exc:
                    mark_stopped(Path(out).expanduser(), step, exc)
                    raise

        return held  # type: ignore[return-value]

    return wrap


def mark_stopped(out: Path, step: str, exc: BaseException) -> None:
    """Record in ``out``'s harden.json how ``step`` stopped, when its section still says ``running``:
    ``interrupted`` for Ctrl-C or a cancellation, else ``failed`` with the exception (bounded).

    Before, a step that raised left ``running`` behind, and nothing told a dead step from a live
    one. The same command resumes either. Never raises: the caller re-raises ``exc``, which a
    second failure while writing (a full disk) must not hide; that one is logged.
    """
    try:
        if not (out / RECORD).is_file():
            return
        record = Record.load(out)
        section = record.step(step)
        if section is None or section.get("status") != "running":
            return  # ``all`` has no section of its own; a finished step keeps what it says
        section.update(stop_fields(exc))
        record.save(out)
    except Exception as second:  # noqa: BLE001 - the first exception is the one the caller sees
        log.warning("%s: could not record in harden.json how step %s stopped (%s)", out, step, second)


def open_out(out: str | Path, source: Source, step: str) -> tuple[Path, Record]:
    """Check that ``step`` may write to ``out``; the record to build on.

    The record is the output's own when the step resumes or extends it, else the input's (a
    harden output) carried on, else a new one.

    Raises:
        ConfigError: ``out`` is a file, or holds something this step must not overwrite.
    """
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; choose a directory")
    extending = source.path is not None and out.exists() and source.path.is_dir() and out.resolve() == source.path.resolve()
    if extending:
        if source.record is None:
            raise ConfigError(f"--out {out} is the input itself but not a harden output; write to a new directory")
        return out, source.record
    described = source.describe()  # a digest over every item's content: computed once here
    digest = described["digest"]
    if (out / RECORD).exists():
        existing = Record.load(out)
        section = existing.step(step) or {}
        same_input = (section.get("input") or {}).get("digest") == digest or existing.claimed_by(step, digest)
        if not same_input:
            raise ConfigError(
                f"--out {out} already holds a harden output "
                + ("of another input" if section else f"without a {step} step")
                + f"; choose a new --out (or the same --data as before to resume the {step} step)"
            )
        return out, existing
    if holds_anything(out):
        raise ConfigError(f"--out {out} is a non-empty directory without {RECORD}; choose a new one")
    remove_leftovers(out)  # of a step killed while writing its first harden.json
    record = source.record.copy() if source.record is not None else Record.new(described)
    # The record goes first: a step killed while it writes its first files (configs, staging)
    # leaves an output the same command resumes, not a folder it refuses as not empty.
    record.claim(step, digest)
    record.save(out)
    return out, record


def settle_later_steps(out: Path, record: Record, step: str, digest: str) -> None:
    """Record ``step``'s config digest; when it changed, drop the later steps built on the old one.

    Their run directories (``runs/augment``: the proposals) go too: they were asked about the old
    questions, and a store of another input refuses to resume, so the later step could not run
    here again.
    """
    name = PRO_CONFIGS[STEP_CONFIG[step]]
    before = (record.data["configs"].get(name) or {}).get("digest")
    if before is not None and before != digest:
        for dropped in record.forget_after(step):
            log.warning("the %s result changed, so the %s output in %s is stale: removed", step, dropped, out)
        for later in STEPS[STEPS.index(step) + 1:]:
            if remove_config(out, STEP_CONFIG[later]):
                record.data["configs"].pop(PRO_CONFIGS[STEP_CONFIG[later]], None)
            if (out / "runs" / later).is_dir():
                shutil.rmtree(out / "runs" / later)


def config_entry(ids: tuple[str, ...], digest: str, **extra: Any) -> dict[str, Any]:
    return {"items": len(ids), "digest": digest, **extra}
