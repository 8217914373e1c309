"""Run a command in a subprocess and SIGKILL it once a condition holds: a crash at a chosen moment."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable, Sequence


def offline_environment() -> dict[str, str]:
    """The environment for a subprocess run: hub offline, no API key or base URL from the caller."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)  # loopback: no key needed
    env.pop("OPENAI_BASE_URL", None)
    return env


def kill_when(command: Sequence[str], ready: Callable[[], bool], *, what: str, timeout: float = 60.0) -> None:
    """Start ``command``, wait until ``ready()`` (failing if it exits or ``timeout`` passes), SIGKILL it."""
    process = subprocess.Popen(list(command), env=offline_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert process.poll() is None, process.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, f"{what} within {timeout:.0f} s"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stderr.close()
