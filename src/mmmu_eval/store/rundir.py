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

>>> store = RunStore.open("runs/demo", manifest, resume=False)
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
from dataclasses import fields
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Mapping

from mmmu_eval.atomic import write_atomically
from mmmu_eval.errors import StoreError
from mmmu_eval.records import Response

__all__ = ["MANIFEST", "RESPONSES", "RunStore", "response_from_json", "response_to_json"]

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
RESPONSES = "responses.jsonl"

#: Statuses a stored response may have.
STATUSES = ("ok", "error", "truncated")

# Configuration keys that decide *what* was evaluated; a resumed run must keep them, because
# its old and new responses are scored together. (Prompt texts and generation settings are in
# the protocol fingerprint; throughput knobs such as concurrency may change between sessions.)
SAME_RUN = ("model", "benchmark", "split", "setting")


# -- responses as JSON ------------------------------------------------------------------------

def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


# What each field of a stored response must hold, with the words used when it does not.
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "item_id": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "status": (lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "text": (lambda v: isinstance(v, str), "a string"),
    "reasoning": (_opt_str, "a string or null"),
    "finish_reason": (_opt_str, "a string or null"),
    "prompt_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "completion_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "reasoning_tokens": (lambda v: v is None or _count(v), "a whole number >= 0 or null"),
    "latency_s": (_seconds, "a number of seconds >= 0"),
    "attempts": (lambda v: _count(v) and v >= 1, "a whole number >= 1"),
    "error": (_opt_str, "a string or null"),
    "notes": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
}
_FIELDS = tuple(f.name for f in fields(Response))
# What to do about a damaged manifest.json: without it the run's data and protocol are unknown.
_NO_MANIFEST = "; restore it from a copy, or start again with a new --out (a run cannot go on without it)"
# What to do about a damaged line of responses.jsonl, said after every such error.
_DAMAGED = "; fix or delete that line, then run the same command again (an item whose line is gone is asked again)"
_REQUIRED = ("item_id", "status")


def response_to_json(r: Response) -> dict[str, Any]:
    """A Response as a JSON-ready dict (tuples become lists); one line of responses.jsonl."""
    out: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(r, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def response_from_json(d: Any, where: str) -> Response:
    """Check a stored record field by field and build the Response.

    Args:
        d: the decoded JSON value.
        where: what to name in an error, e.g. ``runs/x/responses.jsonl line 12``.

    Raises:
        StoreError: naming ``where`` and the field that is wrong.
    """
    if not isinstance(d, dict):
        raise StoreError(f"{where}: expected a JSON object, found {type(d).__name__}")
    for name in _REQUIRED:
        if name not in d:
            raise StoreError(f"{where}: the record has no {name!r}")
    unknown = sorted(set(d) - set(_FIELDS))
    if unknown:
        raise StoreError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    values: dict[str, Any] = {}
    for name, value in d.items():
        check = _CHECKS.get(name)
        if check is not None and not check[0](value):
            raise StoreError(f"{where}: {name} must be {check[1]}, found {value!r}"[:300])
        values[name] = tuple(value) if isinstance(value, list) else value
    return Response(**values)


# -- the store --------------------------------------------------------------------------------

class RunStore:
    """One run directory. ``open`` it to write a run, ``read`` it to look at one."""

    path: Path
    """The run directory."""

    def __init__(self, path: Path, *, writable: bool) -> None:
        """Use ``RunStore.open`` or ``RunStore.read``."""
        self.path = path
        self._writable = writable
        self._file: IO[str] | None = None

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
        if (path / MANIFEST).exists():
            old = store.manifest()
            store._repair_torn_tail()
            merged = {**old, **manifest}
            merged["started_at"] = old.get("started_at", manifest.get("started_at"))
            merged["sessions"] = int(old.get("sessions", 1)) + 1
            store._write_manifest(merged)
        else:
            with _writing(path):
                path.mkdir(parents=True, exist_ok=True)
                store._write_manifest({**manifest, "sessions": 1})
                (path / RESPONSES).touch()
        return store

    @classmethod
    def check(cls, path: str | Path, manifest: Mapping[str, Any], *, resume: bool) -> None:
        """Raise the StoreError ``open`` would, without writing anything.

        Lets a caller refuse a mismatched resume before it loads a model or probes a server.
        """
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise StoreError("is a file, not a run directory; choose another --out", path)
        if (path / MANIFEST).exists():
            store = cls(path, writable=False)
            if not resume:
                raise StoreError(
                    f"already holds a run ({store._count_lines()} responses); pass --resume "
                    "(or run the same command again) to continue it, or choose a new --out",
                    path,
                )
            _check_same_run(path, store.manifest(), manifest)
        elif path.exists() and any(path.iterdir()):
            raise StoreError("is a non-empty directory without a manifest.json; choose a new --out", path)

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
        """The parsed manifest.json."""
        file = self.path / MANIFEST
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise StoreError(f"has no {MANIFEST}", self.path) from exc
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreError(f"cannot be read ({exc}){_NO_MANIFEST}", file) from exc
        if not isinstance(data, dict):
            raise StoreError(f"must hold a JSON object, found {type(data).__name__}{_NO_MANIFEST}", file)
        return data

    def responses(self) -> dict[str, Response]:
        """Every stored response by item id; the last record for an id wins.

        A torn last line (a run killed mid-write) is skipped with a warning.

        Raises:
            StoreError: any other line is not a valid record (the message names the line).
        """
        out: dict[str, Response] = {}
        for response in self._records():
            out.pop(response.item_id, None)  # keep insertion order = order of the latest answer
            out[response.item_id] = response
        return out

    def _records(self) -> Iterable[Response]:
        """Every record in file order, read a line at a time (CoT answers make big files)."""
        file = self.path / RESPONSES
        if not file.exists():
            return
        with file.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                where = f"{file} line {number}"
                try:
                    value = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    if not raw.endswith(b"\n"):  # only the last line can lack its newline
                        log.warning("%s is an unfinished record (the run stopped mid-write); ignored", where)
                        return
                    raise StoreError(f"{where}: not valid JSON ({exc}){_DAMAGED}") from exc
                try:
                    response = response_from_json(value, where)
                except StoreError as exc:
                    raise StoreError(f"{exc}{_DAMAGED}") from exc
                yield response

    def read_jsonl(self, name: str) -> list[tuple[str, Any]]:
        """``(where, value)`` for each line of a derived JSONL file (items.jsonl, harness.jsonl); [] when absent.

        Raises:
            StoreError: a line is not JSON (named), the file cannot be read.
        """
        file = self.path / name
        if not file.exists():
            return []
        out = []
        try:
            with file.open(encoding="utf-8") as fh:
                for number, line in enumerate(fh, start=1):
                    if line.strip():
                        out.append((f"{file} line {number}", json.loads(line)))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreError(f"cannot be read ({exc}); restore it, or rescore into a new --out", file) from exc
        return out

    def _count_lines(self) -> int:
        file = self.path / RESPONSES
        if not file.exists():
            return 0
        with file.open("rb") as fh:
            return sum(1 for line in fh if line.strip())

    # -- writing ------------------------------------------------------------------------------

    def append(self, response: Response) -> None:
        """Add one response as one JSON line, flushed to the OS at once.

        One ``write`` per line: a crash can leave only the last line unfinished. Flushing (not
        fsync per line) survives a killed process; ``close`` fsyncs for a power cut.
        """
        self._require_writable()
        line = json.dumps(response_to_json(response), ensure_ascii=False, separators=(",", ":"))
        with _writing(self.path / RESPONSES):
            if self._file is None:
                self._file = (self.path / RESPONSES).open("a", encoding="utf-8")
            self._file.write(line + "\n")
            self._file.flush()

    def update_manifest(self, **fields_: Any) -> None:
        """Set top-level manifest fields, rewriting the file atomically."""
        self._require_writable()
        manifest = self.manifest()
        manifest.update(fields_)
        self._write_manifest(manifest)

    def write_json(self, name: str, data: Any) -> Path:
        """Write ``name`` (results.json, submission.json) atomically; returns its path."""
        return self.write_text(name, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")

    def write_jsonl(self, name: str, rows: Iterable[Mapping[str, Any]]) -> Path:
        """Write ``name`` (predictions.jsonl) atomically, one JSON object a line."""
        return self.write_text(name, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))

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
        with _writing(self.path / MANIFEST):
            self._write_manifest_file(manifest)

    def _write_manifest_file(self, manifest: Mapping[str, Any]) -> None:
        # Same atomic path as the other files, but under the reserved name.
        text = json.JSONEncoder(indent=2, ensure_ascii=False, default=str).iterencode(manifest)
        write_atomically(self.path / MANIFEST, itertools.chain(text, "\n"))

    def _repair_torn_tail(self) -> None:
        """Cut an unfinished last line off responses.jsonl, so appends start on a clean line.

        A last line that is complete JSON but lost only its newline is kept and finished.
        Every line is checked on the way (a damaged file is refused before we add to it).
        """
        file = self.path / RESPONSES
        if not file.exists():
            file.touch()
            return
        for _ in self._records():  # raises on a damaged line other than a torn tail
            pass
        with file.open("r+b") as fh:
            cut = _start_of_last_line(fh)
            if cut is None:
                return  # empty, or ends with a newline
            fh.seek(cut)
            tail = fh.read()
            try:
                response_from_json(json.loads(tail.decode("utf-8")), f"{file} last line")
            except (UnicodeDecodeError, json.JSONDecodeError, StoreError):
                log.warning("%s: removing an unfinished last record (%d bytes) before resuming", file, len(tail))
                fh.truncate(cut)
                return
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")

    def _require_writable(self) -> None:
        if not self._writable:
            raise StoreError("was opened read-only (RunStore.read); use RunStore.open to write", self.path)

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _start_of_last_line(fh: IO[bytes], block: int = 1 << 16) -> int | None:
    """Offset where an unfinished last line starts; None when the file ends with a newline.

    Reads backwards a block at a time, so a large file is not loaded to find its tail.
    """
    end = fh.seek(0, os.SEEK_END)
    if end == 0:
        return None
    fh.seek(end - 1)
    if fh.read(1) == b"\n":
        return None
    position = end
    while position > 0:
        start = max(0, position - block)
        fh.seek(start)
        chunk = fh.read(position - start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        position = start
    return 0


def _check_same_run(path: Path, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse to continue a run under another protocol, model or benchmark."""
    old_protocol = old.get("protocol") if isinstance(old.get("protocol"), Mapping) else {}
    new_protocol = new.get("protocol") if isinstance(new.get("protocol"), Mapping) else {}
    a, b = old_protocol.get("fingerprint"), new_protocol.get("fingerprint")
    if a != b:
        differences = _differences(old_protocol, new_protocol) or ["the template texts"]
        raise StoreError(
            f"was run under protocol {str(a)[:12]}, but this run's protocol is {str(b)[:12]} "
            f"(it differs in {'; '.join(differences)}). Its responses cannot be scored together "
            "with new ones: use a new --out for this protocol, or rerun with the old settings to continue",
            path,
        )
    old_data, new_data = _data_of(old), _data_of(new)
    if old_data and new_data and old_data != new_data:
        # Answers to one dataset revision scored with another's items would mix two datasets.
        # A fixed file in the same snapshot keeps its source and revision, so it may continue.
        raise StoreError(
            f"holds a run on data {old_data[0]} at revision {old_data[1]}, not {new_data[0]} at "
            f"{new_data[1]}; use a new --out for other data, or rerun with the old --data/--revision to continue",
            path,
        )
    old_config = old.get("config") if isinstance(old.get("config"), Mapping) else {}
    new_config = new.get("config") if isinstance(new.get("config"), Mapping) else {}
    for key in SAME_RUN:
        if old_config.get(key) != new_config.get(key):
            raise StoreError(
                f"holds a run with {key} {old_config.get(key)!r}, not {new_config.get(key)!r}; "
                "use a new --out for a different run",
                path,
            )


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
            f"cannot write ({reason}); choose a writable --out, or free space and run the same command "
            "again (what is stored is kept)",
            path,
        ) from exc


def _data_of(manifest: Mapping[str, Any]) -> tuple[str, str] | None:
    """(source kind, revision) of a manifest's dataset: ``hub``, ``sample`` or ``a snapshot``.

    A snapshot counts by kind, not path, so a run directory still continues after ``cd``.
    """
    dataset = manifest.get("dataset")
    if not isinstance(dataset, Mapping) or "source" not in dataset or "revision" not in dataset:
        return None
    source = str(dataset["source"])
    return (source if source in ("hub", "sample") else "a snapshot directory"), str(dataset["revision"])


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``key: old -> new`` for each setting that differs (templates named, not printed)."""
    out = []
    for key in sorted(set(old) | set(new)):
        if key in ("fingerprint", "official", "notes"):
            continue
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        name = f"{prefix}{key}"
        if key == "templates":
            out.append("the template texts")
        elif isinstance(a, Mapping) and isinstance(b, Mapping):
            out.extend(_differences(a, b, prefix=f"{name}."))
        else:
            out.append(f"{name}: {a!r} -> {b!r}")
    return out
