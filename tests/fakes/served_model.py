"""A real OpenAI-compatible server for tests: ``transformers serve`` of a local model on loopback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from fakes import required


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def transformers_cli() -> str | None:
    """The venv's ``transformers`` command (beside this interpreter), else the one on PATH."""
    return shutil.which("transformers", path=str(Path(sys.executable).parent)) or shutil.which("transformers")


@contextmanager
def transformers_serve(model_dir: Path, log_path: Path, *, ready_within_s: float = 180) -> Iterator[str]:
    """Serve ``model_dir`` on CPU and yield its base URL (``http://127.0.0.1:PORT/v1``).

    Waits for ``GET /health``; fails the test with the server's log tail when it exits or stays
    unhealthy; stops the server on exit. The hub stays offline. It is healthy in about 20 s on
    a quiet machine; 90 s passed with the log still empty (torch still importing) while the suite
    ran on pytest-xdist's workers beside other work, hence the margin: a server that starts
    costs nothing of it.
    """
    cli = transformers_cli()
    if cli is None:
        required.missing("the transformers CLI is missing: pip install 'mmmu-eval[serve]'")
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [cli, "serve", str(model_dir), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
            stdout=log, stderr=subprocess.STDOUT, env=env,
        )
    try:
        deadline = time.monotonic() + ready_within_s
        while True:
            if process.poll() is not None:
                pytest.fail(f"transformers serve exited ({process.returncode}):\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"transformers serve not healthy after {ready_within_s:.0f} s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
