"""A new API run asks for the model list before it reads the data, and reads it meanwhile.

So the first request leaves at once and the answer (and the connection) is ready when the data
is. Only where nothing can be refused: a resumed run is checked against its manifest first, and
no request goes out before that check. Order is proven by the server's own events, never by
timing: the data loader waits for the server to have been asked.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading

import pytest
from fakes.fault_server import FaultServer
from fakes.processes import signal_when

from mmmu_eval.run import prepare
from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.dataset.sample import SAMPLE_ROOT
from mmmu_eval.core.errors import ConfigError, DataError, StoreError
from mmmu_eval.run.progress import NullDisplay

RUN = dict(benchmark="mmmu", split="dev", data="sample", limit=3, display=NullDisplay(), html=False)


def api_run(server: FaultServer, out, **more):
    return evaluate(model="openai:fake-model", base_urls=[server.url], out=out, **{**RUN, **more})


class Loads:
    """Each data load, as (thread name, whether the server had been asked for its models by then),
    and ``order``: the data loads and the backend's ``contact`` calls (the only way a listing
    starts), as they happened.

    For a new run the loader waits for the listing (``listed``, an event: the wait ends the
    moment the request arrives; the 10 s bound only ends a broken run), so a run that asks only
    after the data is read records False, never a lucky True. For a resumed run nothing waits:
    ``order`` says whether the backend was contacted before the data was read.
    """

    def __init__(self) -> None:
        self.server: FaultServer | None = None
        self.wait_for_listing = True
        self.seen: list[tuple[str, bool]] = []
        self.order: list[str] = []


@pytest.fixture
def loads(monkeypatch) -> Loads:
    watch = Loads()
    original_load, original_contact = prepare.load_items, OpenAIBackend.contact

    def watched(config):
        assert watch.server is not None
        listed = watch.server.listed.wait(10.0) if watch.wait_for_listing else watch.server.listed.is_set()
        watch.seen.append((threading.current_thread().name, listed))
        watch.order.append("load")
        return original_load(config)

    def contact(self):
        watch.order.append("contact")
        return original_contact(self)

    monkeypatch.setattr(prepare, "load_items", watched)
    monkeypatch.setattr(OpenAIBackend, "contact", contact)
    return watch


def test_a_new_run_asks_for_the_model_list_while_it_reads_the_data(tmp_path, loads):
    with FaultServer(fault_rate=0.0) as server:
        loads.server = server
        result = api_run(server, tmp_path / "run")
    assert loads.seen == [("mmmu-eval-prepare", True)], "the data was read in its own thread, after the listing left"
    assert loads.order[:2] == ["contact", "load"], "the backend asks before the data is read"
    assert result.counts == {"items": 3, "ok": 3, "truncated": 0, "error": 0, "missing": 0}
    assert server.listings == 1, "the early listing is the preflight's: the model list is asked once"


def test_a_resumed_run_is_checked_before_the_server_hears_anything(tmp_path, loads):
    with FaultServer(fault_rate=0.0) as server:
        loads.server = server
        api_run(server, tmp_path / "run", limit=2)
        before = sum(server.stats.values()), server.listings
        server.listed.clear()
        loads.wait_for_listing = False
        loads.order.clear()
        with pytest.raises(StoreError, match="differs in"):
            api_run(server, tmp_path / "run", limit=2, resume=True, prompt="cot")
        assert loads.order == ["load"], "a refused resume reads the data and never contacts the server"
        assert (sum(server.stats.values()), server.listings) == before, "a refused resume sent no request at all"
        loads.order.clear()
        finished = api_run(server, tmp_path / "run", resume=True)
    assert loads.seen[1:] == [("MainThread", False), ("MainThread", False)], "on resume the data comes first, in the caller's thread"
    assert loads.order[0] == "load" and "contact" in loads.order, "on resume the data comes first, then the preflight's listing"
    assert finished.counts["ok"] == 3


@pytest.mark.parametrize("where", ["missing", "empty"])
def test_unreadable_data_in_a_new_api_run_fails_as_it_does_for_any_model(tmp_path, monkeypatch, where):
    data = tmp_path / "nowhere"
    if where == "empty":
        data.mkdir()
    closed: list[bool] = []
    original_close = OpenAIBackend.aclose

    async def aclose(self):
        closed.append(True)
        await original_close(self)

    monkeypatch.setattr(OpenAIBackend, "aclose", aclose)
    with pytest.raises((ConfigError, DataError)) as baseline:
        evaluate(model="random", out=tmp_path / "a", **{**RUN, "data": data})
    with FaultServer(fault_rate=0.0) as server:
        with pytest.raises(type(baseline.value)) as api:
            api_run(server, tmp_path / "b", data=data)
    assert str(api.value) == str(baseline.value), "the error the data gives, whoever the model"
    assert closed == [True], "the contacted backend's connections are closed"
    assert not (tmp_path / "b" / "manifest.json").exists()


def test_a_server_without_the_model_is_refused_after_the_early_listing(tmp_path):
    with FaultServer(fault_rate=0.0, model="another-model") as server:
        with pytest.raises(ConfigError, match="'fake-model' is not served by .*it serves: another-model"):
            api_run(server, tmp_path / "run")
        assert server.received == 0, "no chat request, not even the probe"
    assert not (tmp_path / "run" / "manifest.json").exists()


@pytest.mark.slow
def test_ctrl_c_while_the_data_is_read_ends_the_run_at_once(tmp_path):
    """The data is read in a thread; Ctrl-C must not wait for it (here it would wait forever).

    One parquet file of the snapshot is a named pipe with no writer: opening it blocks, as a
    hung network file system would.
    """
    snapshot = tmp_path / "snapshot"
    shutil.copytree(SAMPLE_ROOT / "MMMU", snapshot / "MMMU")
    stuck = next((snapshot / "MMMU").glob("*/dev-*.parquet"))
    stuck.unlink()
    os.mkfifo(stuck)
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        command = [sys.executable, "-m", "mmmu_eval", "run", "--benchmark", "mmmu", "--split", "dev",
                   "--data", str(snapshot), "--model", "openai:fake-model", "--base-url", server.url, "--out", str(out)]
        status, message = signal_when(command, server.listed.is_set, what="the model list was asked",
                                      sig=signal.SIGINT, timeout=60)
        assert server.received == 0
    assert status == 130, message[-3000:]
    assert "interrupted" in message and "Traceback" not in message, message[-3000:]
    assert not (out / "manifest.json").exists()
