"""Issue 17: a run died when the ``openai`` SDK was half-imported while a failure was read.

The old backend imported the SDK in a worker thread on the first failure; meanwhile the event
loop classified a malformed answer against ``sys.modules["openai"]``, which Python registers
before the module's body has run, and raised ``AttributeError: partially initialized module
'openai' has no attribute 'APIStatusError'`` out of the run. These tests put such a module in
place for the whole run (the state the race produces, held open instead of hit by luck) and
send every fault the fault server has: every item must come back with its own answer.
"""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
import types
from pathlib import Path

import pytest
from fakes.fault_server import FAULTS, FaultServer, expected_answer, key_of

from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.records import Request, TextPart

PATIENT = RetryPolicy(max_attempts=8, base_delay=0.0, max_delay=0.0, timeout=120.0)


def half_imported(name: str) -> types.ModuleType:
    """A module as ``sys.modules`` holds it while another thread still runs its body."""
    module = types.ModuleType(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    module.__spec__._initializing = True  # what importlib marks a module being imported with
    return module


@pytest.fixture
def sdk_being_imported(monkeypatch):
    for name in ("openai", "httpx"):
        monkeypatch.setitem(sys.modules, name, half_imported(name))


async def test_failures_are_read_while_the_sdk_is_half_imported(sdk_being_imported):
    requests = [Request(f"validation_Art_{n}", parts=(TextPart(f"question {n}"),)) for n in range(1, 41)]
    with FaultServer(fault_rate=0.8, max_faults=3, faults=tuple(f for f in FAULTS if f != "stall")) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=8, policy=PATIENT)
        try:
            await backend.preflight(requests)
            responses = {r.item_id: r async for r in backend.generate(requests)}
        finally:
            await backend.aclose()
        stats = dict(server.stats)
    assert {f for f in FAULTS if f != "stall"} <= set(stats), f"every fault kind was sent: {stats}"
    assert sorted(responses) == sorted(r.item_id for r in requests)
    for request in requests:
        assert (responses[request.item_id].status, responses[request.item_id].text) == (
            "ok", expected_answer(key_of(request))), responses[request.item_id]


def test_a_run_through_failures_never_imports_the_sdk():
    """The start-up choice: nothing on the failure path loads ``openai`` (about a second) either."""
    code = f"""
import asyncio, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from fakes.fault_server import FaultServer
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.records import Request, TextPart

async def main():
    with FaultServer(fault_rate=0.9, faults=("429", "500", "503", "not-json", "drop")) as server:
        b = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=4,
                          policy=RetryPolicy(max_attempts=8, base_delay=0.0, max_delay=0.0, timeout=120.0))
        requests = [Request(f"i{{n}}", parts=(TextPart(f"q{{n}}"),)) for n in range(20)]
        await b.preflight(requests)
        statuses = [r.status async for r in b.generate(requests)]
        await b.aclose()
        failed = sum(v for k, v in server.stats.items() if k != "answered")
    print(statuses.count("ok"), failed > 0, ",".join(m for m in ("openai", "pydantic") if m in sys.modules))

asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["20", "True"], f"loaded: {out.stdout}"
