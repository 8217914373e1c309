"""The synchronous entry points inside a running event loop: a coroutine caller, and a real Jupyter kernel."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mmmu_eval
from fakes import required
from mmmu_eval.core.aio import loop_running, run_coroutine
from mmmu_eval.run.pipeline import RunInterrupted

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "notebook.ipynb"


def _sample_run(out: Path) -> mmmu_eval.RunResult:
    return mmmu_eval.evaluate(benchmark="mmmu-pro", setting="vision", data="sample", model="random", out=str(out))


async def test_evaluate_and_evaluate_suite_work_inside_a_running_loop(tmp_path):
    assert loop_running()
    inside = _sample_run(tmp_path / "inside")
    suite = mmmu_eval.evaluate_suite(model="frequent", data="sample", out=str(tmp_path / "suite"), mmmu=False)
    assert inside.exit_status == 0 and suite.exit_status == 0
    outside = await asyncio.to_thread(_sample_run, tmp_path / "outside")  # a thread without a loop: asyncio.run
    assert inside.counts == outside.counts and inside.accuracy == outside.accuracy
    assert json.loads((tmp_path / "inside" / "predictions.jsonl").read_text().splitlines()[0]) == \
        json.loads((tmp_path / "outside" / "predictions.jsonl").read_text().splitlines()[0])


async def test_an_exception_in_the_worker_reaches_the_caller():
    async def fails():
        raise ValueError("the coroutine's own error")

    with pytest.raises(ValueError, match="the coroutine's own error"):
        run_coroutine(fails())


@contextlib.contextmanager
def kernel_sigint():
    """SIGINT as a Jupyter kernel has it while a cell runs: KeyboardInterrupt in the main thread.
    Set inside the test, after asyncio.Runner put in its own handler (which would cancel the
    test's task instead)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def test_ctrl_c_while_waiting_cancels_the_work_and_raises_keyboard_interrupt():
    started, cancelled = threading.Event(), threading.Event()

    async def long_work():
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    threading.Thread(target=lambda: (started.wait(5), os.kill(os.getpid(), signal.SIGINT)), daemon=True).start()
    with kernel_sigint(), pytest.raises(KeyboardInterrupt):
        run_coroutine(long_work())
    assert cancelled.is_set(), "the worker's coroutine was not cancelled"


async def test_ctrl_c_in_a_notebook_keeps_what_a_run_answered(tmp_path):
    """evaluate() interrupted inside a running loop: RunInterrupted, the stored answers kept, resumable."""
    from mmmu_eval.backends.baselines import RandomBackend

    class Slow(RandomBackend):
        count = 0

        async def generate(self, requests):
            async for response in super().generate(requests):
                Slow.count += 1
                if Slow.count == 5:
                    os.kill(os.getpid(), signal.SIGINT)
                if Slow.count > 5:
                    await asyncio.sleep(30)
                yield response

    with kernel_sigint(), pytest.raises(RunInterrupted) as caught:
        mmmu_eval.evaluate(benchmark="mmmu-pro", setting="vision", data="sample", model=Slow(seed=0),
                           out=str(tmp_path / "run"), concurrency=1)
    assert 0 < caught.value.stored < caught.value.total
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"


@pytest.mark.slow
def test_the_example_notebook_runs_in_a_real_jupyter_kernel(tmp_path):
    required.module("nbconvert", "the notebook test executes examples/notebook.ipynb with nbconvert (test extra)")
    required.module("ipykernel", "the notebook test needs a Jupyter kernel (ipykernel, test extra)")
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", NOTEBOOK.name,
         "--output", "executed.ipynb", "--ExecutePreprocessor.timeout=240"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cells = json.loads((tmp_path / "executed.ipynb").read_text())["cells"]
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    printed = "".join("".join(o.get("text", "")) for o in outputs if o["output_type"] == "stream")
    assert "resumed: same accuracy True" in printed and "suite exit status 0" in printed
    results = json.loads((tmp_path / "runs" / "notebook-random" / "results.json").read_text())
    assert f"accuracy {results['overall']['accuracy']}" in printed
    _check_progress_in_place(cells)
    _check_the_records_show_as_short_lines_and_tables(cells)


def _text(output: dict, kind: str = "text/plain") -> str:
    value = output.get("data", {}).get(kind, "")
    return value if isinstance(value, str) else "".join(value)


def _check_progress_in_place(cells: list[dict]) -> None:
    """Each cell that runs items shows its progress as ONE output, replaced in place (a display
    handle: a second display() would be a second output), ending at 100%; no progress lines."""
    running = [c for c in cells if c["cell_type"] == "code" and ("evaluate(" in "".join(c["source"])
                                                                 or "evaluate_suite(" in "".join(c["source"]))]
    assert len(running) == 3
    for cell in running:
        shown = [o for o in cell["outputs"] if o["output_type"] == "display_data" and "done " in _text(o)]
        assert len(shown) == 1, [_text(o) for o in shown]
        assert "(100%)" in _text(shown[0]).splitlines()[-1]
        streamed = "".join("".join(o["text"]) for o in cell["outputs"] if o["output_type"] == "stream")
        assert "done " not in streamed and "items/s" not in streamed
    suite = running[-1]
    assert any(_text(o).splitlines()[-1].startswith("all runs: done") for o in suite["outputs"] if o["output_type"] == "display_data")


def _check_the_records_show_as_short_lines_and_tables(cells: list[dict]) -> None:
    results = {}
    for cell in cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "execute_result":
                name = _text(output).split("(", 1)[0]
                results[name] = output
    assert set(results) == {"RunResult", "Comparison", "Diagnosis", "SuiteResult"}
    for name, output in results.items():
        line = _text(output)
        assert "\n" not in line and len(line) < 300, line
        assert f"<strong>{name}</strong>" in _text(output, "text/html") and "<table>" in _text(output, "text/html")
