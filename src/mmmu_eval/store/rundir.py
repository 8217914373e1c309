"""The run directory: the only place run files are written, append-only and crash-safe.

```
runs/<name>/
  manifest.json     configuration, protocol (with its fingerprint), dataset, backend, times, counts
  responses.jsonl   one JSON line per finished response, flushed as it finishes
  results.json      scores (written at the end, atomically)
  predictions.jsonl, report.html, submission.json
```

Why it is shaped this way:

- ``responses.jsonl`` is only ever appended to, one whole line per ``write`` and flushed at once,
  so a run killed at any moment (SIGKILL included) loses at most the line being written. A torn
  last line is therefore expected after a crash: reading skips it, and reopening the run to
  resume cuts it off before appending, so the file is clean again. Any *other* unreadable line
  means the file was damaged or edited, and reading stops with a StoreError naming the line.
- Every other file is written whole to a temporary file and renamed over the old one, so a
  reader sees the old version or the new one, never half of one.
- The last record for an id wins: a resumed run appends a fresh answer after the old error.
- A run continues only under the protocol it started with: responses asked with another prompt
  or other generation settings would be scored as if they belonged together.

Its parts: ``manifest`` (the checked manifest record and its builder), ``response_json`` (one
line of responses.jsonl), ``lines`` (appending a whole line or none), ``response_lines`` (reading
it back: a torn tail skipped or cut, a damaged line named), ``torn_tail`` (finding an
unfinished last line), ``same_run`` (the rule for continuing a run).

>>> store = RunStore.open("runs/demo", {"config": {"model": "random"}}, resume=False)   # a manifest
>>> store.append(Response("dev_Art_1", "ok", text="A"))
>>> RunStore.read("runs/demo").responses()["dev_Art_1"].text
'A'
"""

from __future__ import annotations

import itertools
import json
import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping

from mmmu_eval.core.atomic import LOCK_FILE, holds_anything, is_leftover, remove_leftovers, write_atomically
from mmmu_eval.core.errors import StoreError, argument, same_again
from mmmu_eval.core.jsonfile import loads, read_json
from mmmu_eval.core.nofollow import exists, open_file
from mmmu_eval.core.records import Response
from mmmu_eval.store.lines import append_line
from mmmu_eval.core.manifest import MANIFEST, NO_MANIFEST, Manifest, how_it_stopped
from mmmu_eval.core.untrusted import for_terminal
from mmmu_eval.store.response_json import STATUSES, encoded_line, record_problem, response_from_json, response_to_json
from mmmu_eval.store.response_lines import count_lines, read_records, repair_torn_tail
from mmmu_eval.store.same_run import SAME_RUN, check_same_run, data_changes, fixes_unreadable_rows

__all__ = ["MANIFEST", "RANKS", "RESPONSES", "SAME_RUN", "STATUSES", "RunStore", "response_from_json", "response_to_json"]

log = logging.getLogger(__name__)

RESPONSES = "responses.jsonl"
#: The folder of a distributed run's per-rank shard stores (``run/distributed.py``): each rank
#: owns one run directory inside it, and the merged run is written beside it, in the same folder.
RANKS = "ranks"


def holds_more_than_ranks(path: Path) -> bool:
    """``holds_anything``, except that a distributed run's ``ranks`` folder does not count: the
    run directory holds it before its merged run is first written."""
    if not path.is_dir():
        return holds_anything(path)
    return any(not (is_leftover(entry) or entry.name == LOCK_FILE or (entry.name == RANKS and entry.is_dir()))
               for entry in path.iterdir())


# -- the store --------------------------------------------------------------------------------

class RunStore:
    """One run directory. ``open`` it to write a run, ``read`` it to look at one."""

    path: Path
    """The run directory."""

    def __init__(self, path: Path, *, writable: bool) -> None:
        """Use ``RunStore.open`` or ``RunStore.read``."""
        self.path = path
        self._writable = writable
        self._file: IO[bytes] | None = None

    def __repr__(self) -> str:
        return f"RunStore({str(self.path)!r}{'' if self._writable else ', read-only'})"

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, manifest: Mapping[str, Any], *, resume: bool) -> "RunStore":
        """Start a run in ``path``, or continue the one there.

        Args:
            path: the run directory; created when missing.
            manifest: what ``manifest.json`` should say about this run (JSON-ready).
            resume: continue a run already in ``path``. Without it, a directory that holds a
                run is refused rather than mixed into.

        Returns:
            A store whose ``append`` adds to ``responses.jsonl``.

        Raises:
            StoreError: ``path`` holds a run and ``resume`` is False; it holds a run asked under
                another protocol fingerprint or of another model or benchmark; it is a file or a
                non-empty directory that is not a run; or its responses are damaged.
        """
        path = Path(path)
        cls.check(path, manifest, resume=resume)
        store = cls(path, writable=True)
        remove_leftovers(path)  # of a session killed mid-write: the manifest's first write, say
        if (path / MANIFEST).exists():
            old = store.manifest_record()
            repair_torn_tail(path / RESPONSES)
            merged = {**old.to_json(), **manifest}
            merged["started_at"] = old.get("started_at", manifest.get("started_at"))
            merged["sessions"] = old.sessions + 1
            if old.failure is not None:  # a failed run resumes as an interrupted one; this session is a new try
                merged.pop("failure", None)
                log.info("%s: continuing: %s", path, for_terminal(how_it_stopped(old) or ""))
            changes = data_changes(old, Manifest.of(manifest, "the new run's manifest"))
            for what, before, now in changes:  # allowed, and recorded for good
                why = ("after the rows it could not read were fixed" if what == "data" and fixes_unreadable_rows(old)
                       else "as --allow-different-data asks")
                log.warning("%s: continuing on other %s (digest %s, was %s), %s", path, what, now, before, why)
            if changes:
                merged["data_changes"] = [*(old.get("data_changes") or []), *(
                    {"session": merged["sessions"], "at": manifest.get("started_at"), "what": what,
                     "from_digest": before, "to_digest": now} for what, before, now in changes)]
            store._write_manifest(merged)
        else:
            with _writing(path):
                path.mkdir(parents=True, exist_ok=True)
                store._write_manifest({**manifest, "sessions": 1})
                open_file(path / RESPONSES, "create").close()
        return store

    @classmethod
    def check(cls, path: str | Path, manifest: Mapping[str, Any], *, resume: bool) -> None:
        """Raise the StoreError ``open`` would, without writing anything.

        Lets a caller refuse a mismatched resume before it loads a model or probes a server.
        """
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise StoreError(f"is a file, not a run directory; choose another {argument('out')}", path)
        if (path / MANIFEST).exists():
            store = cls(path, writable=False)
            if not resume:
                raise StoreError(
                    f"already holds a run ({count_lines(path / RESPONSES)} responses); continue it with "
                    f"{argument('resume', True)}, or choose a new {argument('out')}",
                    path,
                )
            check_same_run(path, store.manifest_record(), manifest)
        elif holds_more_than_ranks(path):
            raise StoreError(f"is a non-empty directory without a manifest.json; choose a new {argument('out')}", path)

    @classmethod
    def read(cls, path: str | Path) -> "RunStore":
        """A run directory, read-only (for score, report, compare and merge).

        Raises:
            StoreError: ``path`` has no manifest.json.
        """
        path = Path(path)
        if not (path / MANIFEST).is_file():
            raise StoreError(f"is not a run directory (no {MANIFEST})", path)
        return cls(path, writable=False)

    # -- reading ------------------------------------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        """The parsed manifest.json, checked (``Manifest.from_json``), as the JSON object it is.

        Raises:
            StoreError: the file is missing, not JSON, or a field is wrong (named).
        """
        data, _ = self._read_manifest()
        return data

    def manifest_record(self) -> Manifest:
        """The parsed manifest.json as the checked record (same errors as ``manifest``)."""
        return self._read_manifest()[1]

    def _read_manifest(self) -> tuple[dict[str, Any], Manifest]:
        file = self.path / MANIFEST
        try:
            data = read_json(file)  # never through a link; too deep or too long is damage too
        except FileNotFoundError as exc:
            raise StoreError(f"has no {MANIFEST}", self.path) from exc
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot be read ({exc}){NO_MANIFEST}", file) from exc
        return data, Manifest.from_json(data, file)

    def responses(self) -> dict[str, Response]:
        """Every stored response by item id; the last record for an id wins.

        A torn last line (a run killed mid-write) is skipped with a warning.

        Raises:
            StoreError: any other line is not a valid record (the message names the line).
        """
        out: dict[str, Response] = {}
        for response in read_records(self.path / RESPONSES):
            out.pop(response.item_id, None)  # keep insertion order = order of the latest answer
            out[response.item_id] = response
        return out

    def check_responses(self) -> int:
        """Read every line of responses.jsonl as ``responses`` would, keeping none; the count of records.

        For a reader that needs no response (``report`` with its results.json at hand) but must
        not print results over a damaged file: the same lines are refused as everywhere else.

        Raises:
            StoreError: as ``responses``.
        """
        return sum(1 for _ in read_records(self.path / RESPONSES))

    def read_jsonl(self, name: str) -> list[tuple[str, Any]]:
        """``(where, value)`` for each line of a derived JSONL file (items.jsonl, harness.jsonl); [] when absent.

        Raises:
            StoreError: a line is not JSON (named), the file cannot be read.
        """
        file = self.path / name
        if not exists(file):
            return []
        out = []
        try:
            with open_file(file) as fh:
                for number, line in enumerate(fh, start=1):
                    if line.strip():
                        out.append((f"{file} line {number}", loads(line.decode("utf-8"))))
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot be read ({exc}); restore it, or rescore into a new {argument('out')}", file) from exc
        return out

    # -- writing ------------------------------------------------------------------------------

    def append(self, response: Response) -> None:
        """Add one response as one JSON line, flushed to the OS at once.

        One ``write`` per line (a huge line in slices): a crash can leave only the last line
        unfinished, and a failed write takes its part line back. Written straight to the OS (not
        fsync per line), it survives a killed process; ``close`` fsyncs for a power cut.

        Raises:
            StoreError: the record would not read back (``record_problem``: a negative token
                count, a NaN latency); nothing is written, so the file stays readable.
        """
        self._require_writable()
        record = response_to_json(response)
        problem = record_problem(record)
        if problem is not None:
            raise StoreError(f"{response.item_id}: not stored, the record would not read back ({problem})",
                             self.path / RESPONSES)
        with _writing(self.path / RESPONSES):
            if self._file is None:  # unbuffered: what is written is in the OS at once; never through a link
                self._file = open_file(self.path / RESPONSES, "ab")
            append_line(self._file.fileno(), encoded_line(record))

    def update_manifest(self, **fields_: Any) -> dict[str, Any]:
        """Set top-level manifest fields, rewriting the file atomically; returns the manifest written."""
        self._require_writable()
        manifest = self.manifest()
        manifest.update(fields_)
        self._write_manifest(manifest)
        return manifest

    def write_json(self, name: str, data: Any) -> Path:
        """Write ``name`` (results.json, submission.json) atomically; returns its path."""
        return self.write_text(name, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")

    def write_jsonl(self, name: str, rows: Iterable[Mapping[str, Any]]) -> Path:
        """Write ``name`` (predictions.jsonl) atomically, one JSON object a line, each written as
        it is made (a run with huge answers is never held as one string)."""
        return self.write_stream(name, _lines(rows))

    def write_text(self, name: str, text: str) -> Path:
        """Write ``name`` (report.html) atomically: a temporary file renamed over the old one."""
        return self.write_stream(name, (text,))

    def write_stream(self, name: str, chunks: Iterable[str]) -> Path:
        """Write ``name`` atomically from pieces of text, each written as it comes.

        For a file too large to hold whole (report.html with its images, ``html_chunks``):
        memory holds one piece at a time. Readers see the old file until the last piece is in.
        """
        self._require_writable()
        if Path(name).name != name or name in (MANIFEST, RESPONSES):
            raise StoreError(f"cannot write {name!r}: only plain file names other than {MANIFEST} and {RESPONSES}", self.path)
        target = self.path / name
        with _writing(target):
            write_atomically(target, chunks)
        return target

    def close(self) -> None:
        """Flush and close responses.jsonl (appending again reopens it)."""
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        Manifest.from_json(dict(manifest), self.path / MANIFEST)  # what is written reads back
        with _writing(self.path / MANIFEST):
            self._write_manifest_file(manifest)

    def _write_manifest_file(self, manifest: Mapping[str, Any]) -> None:
        # Same atomic path as the other files, but under the reserved name.
        text = json.JSONEncoder(indent=2, ensure_ascii=False, default=str).iterencode(manifest)
        write_atomically(self.path / MANIFEST, itertools.chain(text, "\n"))

    def _require_writable(self) -> None:
        if not self._writable:
            raise StoreError("was opened read-only (RunStore.read); use RunStore.open to write", self.path)

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lines(rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False)
        yield "\n"


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """OS errors while writing (no such folder, read-only, disk full) as one StoreError line.

    What was stored before stays: each write is a whole line or an atomic rename.
    """
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StoreError(
            f"cannot write ({reason}); choose a writable {argument('out')}, or free space and "
            f"{same_again(resume=False)} (what is stored is kept)",
            path,
        ) from exc
