"""Run verifiers' own evaluation command (``vf-eval``) on an mmmu-eval environment, offline.

The command is the real console script of the installed verifiers, run as a subprocess against
a local OpenAI-compatible server (``FaultServer``), with the platform upload off and its cache
under the test's directory. What it writes is what a user gets, so a reader of that output can
be tested on it:

    with FaultServer(fault_rate=0.0, answer=lambda body: "\\\\boxed{A}") as server:
        run = vf_eval("mmmu-pro", server.url, tmp_path, mode="vision", data="sample", limit=4)
    run.traces_file          # <tmp_path>/out/run/traces.jsonl, one episode per line
    run.episodes[0]["task"]["data"]["id"]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MODEL = "fake-model"
RUN_NAME = "run"


@dataclass(frozen=True)
class VfRun:
    """One finished ``vf-eval`` run."""

    run_dir: Path
    """``<output_dir>/<run.name>``: ``traces.jsonl``, ``configs/resolved/eval.json``, ``logs/``."""
    stdout: str
    stderr: str

    @property
    def traces_file(self) -> Path:
        return self.run_dir / "traces.jsonl"

    @property
    def episodes(self) -> list[dict]:
        return [json.loads(line) for line in self.traces_file.read_text().splitlines() if line.strip()]


def vf_eval(env_id: str, base_url: str, workdir: Path, *, model: str = MODEL, timeout: float = 240,
            **taskset: object) -> VfRun:
    """Run ``vf-eval ENV_ID --env.taskset.NAME VALUE ...`` against ``base_url``; raise when it fails."""
    command = [str(Path(sys.executable).parent / "vf-eval"), env_id]
    for name, value in taskset.items():
        command += [f"--env.taskset.{name}", str(value)]
    out = workdir / "out"
    command += [
        "-m", model, "--client.base-url", base_url, "--client.api-key-var", "FAKE_API_KEY",
        "--no-push", "--no-rich", "-o", str(out), "--run.name", RUN_NAME,
    ]
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        "HOME": str(home), "FAKE_API_KEY": "test-key", "PRIME_RUNS_MODE": "disabled",
        "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"vf-eval exited {done.returncode}:\n{done.stderr[-4000:]}")
    return VfRun(out / RUN_NAME, done.stdout, done.stderr)


@dataclass(frozen=True)
class VfLegacyRun:
    """One finished ``vf-eval`` run of verifiers' classic CLI (0.3 and earlier), saved with ``-s``."""

    run_dir: Path
    """``<output_dir>/evals/<env>--<model>/<run id>``: ``results.jsonl`` and ``metadata.json``."""
    stdout: str
    stderr: str

    @property
    def rollouts(self) -> list[dict]:
        text = (self.run_dir / "results.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    @property
    def metadata(self) -> dict:
        return json.loads((self.run_dir / "metadata.json").read_text())


def vf_eval_legacy(env_id: str, base_url: str, workdir: Path, *, model: str = MODEL, timeout: float = 240,
                   **env_args: object) -> VfLegacyRun:
    """Run the classic ``vf-eval ENV_ID -a '{...}' -s`` against ``base_url``; raise when it fails."""
    out = workdir / "out"
    command = [
        str(Path(sys.executable).parent / "vf-eval"), env_id, "-a", json.dumps(env_args),
        "-m", model, "-b", base_url, "-k", "FAKE_API_KEY", "-n", "-1", "-r", "1", "-s", "-o", str(out),
    ]
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        "HOME": str(home), "FAKE_API_KEY": "test-key", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"vf-eval exited {done.returncode}:\n{done.stderr[-4000:]}")
    (results,) = out.rglob("results.jsonl")
    return VfLegacyRun(results.parent, done.stdout, done.stderr)
