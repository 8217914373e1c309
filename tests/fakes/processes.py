"""Run a command in a subprocess and signal it once a condition holds: a crash (SIGKILL) or a
Ctrl-C (SIGINT) at a chosen moment; and read back the JSON lines such a process left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Sequence


def offline_environment() -> dict[str, str]:
    """The environment for a subprocess run: hub offline, no API key or base URL from the caller."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)  # loopback: no key needed
    env.pop("OPENAI_BASE_URL", None)
    return env


def signal_when(
    command: Sequence[str], ready: Callable[[], bool], *, what: str, sig: int = signal.SIGKILL,
    timeout: float = 60.0,
) -> tuple[int, str]:
    """Start ``command``, wait until ``ready()`` (failing if it exits or ``timeout`` passes), send it
    ``sig`` and wait for it to end. Returns its exit status and what it wrote to stderr."""
    process = subprocess.Popen(list(command), env=offline_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Read stderr as it comes: a process that logs more than a pipe holds (64 KB of retry
    # warnings) would otherwise block on its next line and never reach ``ready``.
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: process.stderr.read1(65536), b"")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            if process.poll() is not None:
                reader.join(10)
                raise AssertionError(b"".join(chunks).decode(errors="replace")[-3000:])
            assert time.monotonic() < deadline, f"{what} within {timeout:.0f} s"
            time.sleep(0.02)
        process.send_signal(sig)
        process.wait(timeout=60)
        reader.join(60)
        return process.returncode, b"".join(chunks).decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(10)
        process.stderr.close()


def kill_when(command: Sequence[str], ready: Callable[[], bool], *, what: str, timeout: float = 60.0) -> None:
    """Start ``command``, wait until ``ready()`` (failing if it exits or ``timeout`` passes), SIGKILL it."""
    signal_when(command, ready, what=what, timeout=timeout)


def jsonl_records(path: Path) -> list[dict]:
    """The records of a JSON-lines file a process may have been killed while writing.

    Only a last line without its newline (a write cut off by the kill, or one being written as
    we read) is not a record. Any other line that does not decode fails the test: the store
    must never leave one, so skipping it would hide the very damage a kill test looks for.
    """
    if not path.exists():
        return []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    records = []
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            torn_tail = number == len(lines) and not raw.endswith(b"\n")
            assert torn_tail, f"{path} line {number} is not a record ({exc}): {line[:120]!r}"
    return records
