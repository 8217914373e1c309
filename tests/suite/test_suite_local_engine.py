"""A suite of a local engine (``hf:``): one model load, its runs one after another, never two at once.

An in-process engine batches inside one generate call and holds the whole model; two runs at
once would interleave batches on one model (or load it twice). The suite makes one backend for
every run and awaits each run before the next starts (``plan.backend_sharing``: sequential).
Checked on the tiny LLaVA through the real ``hf:`` backend, by recording when each run starts and
ends: a run started beside another one (as the API path does) would show two at a time.
"""

from __future__ import annotations

import asyncio

import pytest

from fakes.tiny_models import build_tiny_llava
from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.suite import execute
from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet

pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]


def test_a_local_engine_runs_the_suite_one_run_after_another_on_one_model(tmp_path, monkeypatch):
    model = f"hf:{build_tiny_llava(tmp_path / 'llava')}"
    events: list[tuple[str, str]] = []
    backends: list[object] = []
    running = {"now": 0, "most": 0}
    real = execute.evaluate_async

    async def recorded(config, **kw):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        events.append(("start", config.out.name))
        backends.append(kw["model"])
        try:
            await asyncio.sleep(0)  # a run started beside this one gets to start here
            return await real(config, **kw)
        finally:
            running["now"] -= 1
            events.append(("end", config.out.name))

    monkeypatch.setattr(execute, "evaluate_async", recorded)
    result = evaluate_suite(model=model, data="sample", settings=("standard-4", "vision"), prompts=("direct",), mmmu=False,
                            limit=2, max_tokens=2, device="cpu", out=tmp_path / "suite", display=quiet(), bootstrap=10)
    assert result.summary["status"] == "complete", result.message
    names = ["standard-4-direct", "vision-direct"]
    assert running["most"] == 1, f"two runs of the local engine at once: {events}"
    assert events == [("start", names[0]), ("end", names[0]), ("start", names[1]), ("end", names[1])]
    assert len(backends) == 2 and backends[0] is backends[1] and isinstance(backends[0], HFBackend), "one model load for all runs"
    for name in names:
        manifest = RunStore.read(tmp_path / "suite" / name).manifest()
        assert manifest["backend"]["backend"] == "hf" and manifest["status"] == "complete"
