"""The runner: every response stored at once, one bad item never stops the run, Ctrl-C keeps work."""

import asyncio
import io

import pytest
from rich.console import Console

from mmmu_eval.core.errors import BackendError, DataError
from mmmu_eval.run.progress import ProgressDisplay, format_duration
from mmmu_eval.core.records import Request, Response, TextPart
from mmmu_eval.run.runner import run_requests
from mmmu_eval.store.rundir import RunStore

from fakes.scripted_backend import Hang, Raise, ScriptedBackend

IDS = [f"dev_Art_{n}" for n in range(1, 6)]


def requests(ids=IDS):
    return [Request(i, (TextPart("Q"),), choices=("A", "B")) for i in ids]


@pytest.fixture
def store(tmp_path):
    return RunStore.open(tmp_path / "run", {"protocol": {"fingerprint": "f"}}, resume=False)


async def test_each_response_is_stored_in_the_order_the_backend_gives_it(store):
    backend = ScriptedBackend(["A", BackendError("HTTP 500, gave up"), "B", Response("x", "truncated", text="Th"), "A"])
    summary = await run_requests(backend, requests(), store)
    assert [r.item_id for r in backend.asked] == IDS
    stored = RunStore.read(store.path).responses()
    assert [(i, r.status) for i, r in stored.items()] == [
        ("dev_Art_1", "ok"), ("dev_Art_2", "error"), ("dev_Art_3", "ok"), ("dev_Art_4", "truncated"), ("dev_Art_5", "ok")]
    assert (summary.ok, summary.truncated, summary.errors, summary.interrupted) == (3, 1, 1, False)


async def test_an_item_the_backend_cannot_prepare_is_stored_as_an_error_and_the_run_goes_on(store):
    """A DataError naming a pending item (a corrupt image) fails that item only."""
    backend = ScriptedBackend(["A", Raise(DataError("image_1 is not a readable image", "dev_Art_2")), "B", "A", "B"])
    summary = await run_requests(backend, requests(), store)
    stored = store.responses()
    assert stored["dev_Art_2"].status == "error"
    assert stored["dev_Art_2"].error == "dev_Art_2: image_1 is not a readable image"
    assert [stored[i].text for i in ("dev_Art_1", "dev_Art_3", "dev_Art_4", "dev_Art_5")] == ["A", "B", "A", "B"]
    assert (summary.ok, summary.errors) == (4, 1)


async def test_a_data_error_that_names_no_pending_item_stops_the_run_keeping_what_is_done(store):
    backend = ScriptedBackend(["A", Raise(DataError("the parquet file vanished"))])
    with pytest.raises(DataError, match="vanished"):
        await run_requests(backend, requests(), store)
    assert list(RunStore.read(store.path).responses()) == ["dev_Art_1"]


async def test_requests_a_backend_leaves_unanswered_are_stored_as_errors(store):
    class Forgetful(ScriptedBackend):
        async def generate(self, reqs):
            async for response in super().generate(reqs[:3]):
                yield response

    await run_requests(Forgetful(["A", "B", "A"]), requests(), store)
    stored = store.responses()
    assert stored["dev_Art_4"].error == "dev_Art_4: the backend scripted returned no answer"
    assert stored["dev_Art_5"].status == "error"


async def test_cancelling_the_run_keeps_everything_answered_and_stops_the_backend(store):
    backend = ScriptedBackend(["A", "B", Hang()])
    task = asyncio.create_task(run_requests(backend, requests(), store))
    for _ in range(100):
        await asyncio.sleep(0)
        if len(RunStore.read(store.path).responses()) == 2:
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list(RunStore.read(store.path).responses()) == ["dev_Art_1", "dev_Art_2"]
    assert (store.path / "responses.jsonl").read_text().count("\n") == 2


async def test_two_requests_for_one_item_are_refused(store):
    with pytest.raises(ValueError, match="share an item id"):
        await run_requests(ScriptedBackend([]), requests(["a", "a"]), store)


# -- progress display -------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_plain_lines_show_done_rate_errors_and_eta_counting_only_this_session():
    out, clock = io.StringIO(), Clock()
    display = ProgressDisplay(Console(file=out, width=120), clock=clock, every_s=10)
    display.start(total=100, done=20, errors=1)  # 20 done in an earlier session
    for n in range(8):
        clock.now += 0.5
        display.advance(Response(f"i{n}", "error" if n == 3 else "ok"))
    display.stop()
    lines = out.getvalue().splitlines()
    # 8 new items in 4 s = 2.0 items/s; 72 left -> 36 s
    assert lines[0] == "done 20/100 (20%) · - items/s · 1 error · ETA ?"
    assert lines[-1] == "done 28/100 (28%) · 2.0 items/s · 2 errors · ETA 36s"
    assert len(lines) == 2  # the start line and the last; 4 s is under the 10 s interval


def test_plain_lines_come_at_most_every_interval():
    out, clock = io.StringIO(), Clock()
    display = ProgressDisplay(Console(file=out, width=120), clock=clock, every_s=10, plain=True)
    display.start(total=1000)
    for n in range(100):
        clock.now += 1
        display.advance(Response(f"i{n}", "ok"))
    assert len(out.getvalue().splitlines()) == 1 + 10  # the start line, then one per 10 s


def test_the_bar_is_drawn_on_a_terminal():
    out, clock = io.StringIO(), Clock()
    display = ProgressDisplay(Console(file=out, width=120, force_terminal=True), clock=clock)
    assert display.plain is False
    display.start(total=4)
    for n in range(4):
        clock.now += 2
        display.advance(Response(f"i{n}", "ok"))
    display.stop()
    text = out.getvalue()
    assert "4/4" in text and "0.5 items/s" in text and "0 errors" in text


@pytest.mark.parametrize("seconds, shown", [(None, "?"), (42.4, "42s"), (185, "3m05s"), (3720, "1h02m")])
def test_durations_read_like_a_clock(seconds, shown):
    assert format_duration(seconds) == shown


def _gave_up(attempts: int = 6) -> Response:
    return Response("x", "error", error="HTTP 503: service unavailable", attempts=attempts)


async def test_a_dead_endpoint_stops_the_session_and_leaves_the_rest_unasked(store):
    """A server that died mid-run used to cost every remaining item its full retries before the
    run ended; now the session stops after a run of retried failures, keeping what is done."""
    from mmmu_eval.run.runner import STOP_AFTER_FAILED_IN_A_ROW as limit

    ids = [f"dev_Art_{n}" for n in range(1, limit + 12)]
    backend = ScriptedBackend(["A", "B", *[_gave_up()] * limit, *["A"] * 9])
    summary = await run_requests(backend, requests(ids), store)
    stored = RunStore.read(store.path).responses()
    assert len(stored) == 2 + limit and summary.errors == limit
    assert summary.stopped_early is not None and "9 items not asked" in summary.stopped_early
    assert "run the same command again" in summary.stopped_early
    assert not set(ids[2 + limit:]) & set(stored)  # left for --resume, not stored as errors


async def test_item_errors_on_the_first_attempt_and_answered_items_keep_the_run_going(store):
    from mmmu_eval.run.runner import STOP_AFTER_FAILED_IN_A_ROW as limit

    script = [*[_gave_up(attempts=1)] * (limit + 1), *[_gave_up()] * (limit - 1), "A", *[_gave_up()] * (limit - 1)]
    ids = [f"dev_Art_{n}" for n in range(1, len(script) + 1)]
    summary = await run_requests(ScriptedBackend(script), requests(ids), store)
    assert summary.stopped_early is None
    assert summary.answered == len(script)
