"""The writer and the reader of responses.jsonl accept exactly the same records (issue 29).

One table of checks (``store.response_json.record_problem``) judges what is read and what is about
to be written. Tested both ways: every Response the writer takes reads back equal; every record the
reader refuses, the writer refuses too, leaving the file as it was, so a run directory is never
poisoned by its own writer. Before, the writer stored ``completion_tokens: -1`` and the reader then
refused the whole run, and a lone surrogate in a server's text crashed the write.
"""

from __future__ import annotations

import json
import math
import resource
import signal

import pytest
from fakes.scripted_backend import ScriptedBackend

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import MAX_COUNT, Request, Response, TextPart
from mmmu_eval.run.runner import run_requests
from mmmu_eval.store.response_json import encoded_line, record_problem, response_from_json, response_to_json
from mmmu_eval.store.rundir import RunStore

MANIFEST = {
    "config": {"model": "random", "benchmark": "mmmu", "split": "dev", "setting": None},
    "protocol": {"fingerprint": "f" * 64, "mode": "direct", "generation": {"max_tokens": None}},
    "started_at": "2026-01-01T00:00:00+00:00",
}

#: Responses the writer must take, each reading back equal: edge values in range, and text as a
#: hostile server sends it (lone surrogates of both halves, a BOM, NUL, non-BMP characters).
WRITABLE = [
    Response("dev_Art_1", "ok", text="A", prompt_tokens=0, completion_tokens=MAX_COUNT, reasoning_tokens=0),
    Response("dev_Art_1", "ok", text="The answer is (B). \ud800", reasoning="x \udfff y", finish_reason="stop\ud800"),
    Response("dev_Art_1", "error", error="HTTP 500: overloaded \udcff", attempts=MAX_COUNT, latency_s=0.0),
    Response("dev_Art_1", "ok", text="\ufeff\x00 ключ 答案 \U0001f600", notes=("refusal: x", "\ud800")),
    Response("dev_Art_1", "truncated", text="", latency_s=1e300),
]

#: (field, value) that no record may hold; each makes a Response the writer must refuse.
UNWRITABLE = [
    ("completion_tokens", -1),
    ("prompt_tokens", 10**400),
    ("prompt_tokens", MAX_COUNT + 1),
    ("reasoning_tokens", -5),
    ("completion_tokens", True),
    ("latency_s", math.nan),
    ("latency_s", math.inf),
    ("latency_s", -0.5),
    ("attempts", 0),
    ("status", "refused"),
    ("item_id", ""),
    ("text", None),
    ("error", 5),
    ("notes", (1,)),
]


@pytest.mark.parametrize("response", WRITABLE, ids=range(len(WRITABLE)))
def test_what_the_writer_writes_the_reader_reads_back_equal(tmp_path, response):
    store = RunStore.open(tmp_path / "run", MANIFEST, resume=False)
    store.append(response)
    store.close()
    assert RunStore.read(tmp_path / "run").responses() == {response.item_id: response}
    (tmp_path / "run" / "responses.jsonl").read_bytes().decode("utf-8")  # plain UTF-8, escapes and all


@pytest.mark.parametrize("field, value", UNWRITABLE, ids=[f"{f}={v!r}"[:40] for f, v in UNWRITABLE])
def test_what_the_reader_refuses_the_writer_never_writes(tmp_path, field, value):
    good = Response("dev_Art_1", "ok", text="A")
    line = {**response_to_json(good), field: list(value) if isinstance(value, tuple) else value}
    with pytest.raises(StoreError, match=field):  # the reader refuses the line ...
        response_from_json(json.loads(json.dumps(line)), "line 1")
    store = RunStore.open(tmp_path / "run", MANIFEST, resume=False)
    store.append(good)
    before = (tmp_path / "run" / "responses.jsonl").read_bytes()
    bad = Response(**{**{k: getattr(good, k) for k in response_to_json(good)}, field: value})
    with pytest.raises(StoreError, match=f"not stored, the record would not read back .*{field}"):
        store.append(bad)  # ... and the writer never writes it
    store.close()
    assert (tmp_path / "run" / "responses.jsonl").read_bytes() == before
    assert RunStore.read(tmp_path / "run").responses() == {"dev_Art_1": good}


def test_one_definition_judges_both_sides():
    """The writer's check is the reader's: the same sentence for the same record."""
    record = {**response_to_json(Response("dev_Art_1", "ok", text="A")), "completion_tokens": -1}
    problem = record_problem(record)
    assert problem == f"completion_tokens must be a whole number from 0 to {MAX_COUNT} or null, found -1"
    with pytest.raises(StoreError) as read:
        response_from_json(record, "line 7")
    assert str(read.value) == f"line 7: {problem}"


async def test_a_backend_answer_the_store_would_refuse_becomes_that_items_error(tmp_path):
    """A backend that lets a bad count through costs its item (an error, asked again on resume),
    never the run, and never a line the next session cannot read."""
    store = RunStore.open(tmp_path / "run", MANIFEST, resume=False)
    backend = ScriptedBackend([Response("x", "ok", text="A", completion_tokens=-3, attempts=2), "B"])
    requests = [Request(f"dev_Art_{n}", parts=(TextPart("q"),)) for n in (1, 2)]
    summary = await run_requests(backend, requests, store)
    assert (summary.ok, summary.errors) == (1, 1)
    stored = RunStore.read(tmp_path / "run").responses()
    assert stored["dev_Art_1"].status == "error" and stored["dev_Art_1"].attempts == 2
    assert "could not be stored (completion_tokens must be a whole number" in stored["dev_Art_1"].error
    assert stored["dev_Art_2"].text == "B"


@pytest.mark.parametrize("response", [*WRITABLE, Response("dev_Art_1", "ok", text=("ab\ud800\"\\\n" * 400_000), reasoning="r" * 3_000_000)],
                         ids=[*map(str, range(len(WRITABLE))), "huge"])
def test_a_line_is_the_bytes_json_dumps_makes_however_long(response):
    """The line is written in slices (a 20 MB answer is never held three times), and the slices
    join to exactly what ``json.dumps`` writes, escapes at slice boundaries included."""
    record = response_to_json(response)
    whole = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace") + b"\n"
    assert b"".join(encoded_line(record)) == whole
    assert response_from_json(json.loads(whole), "line 1") == response


def test_a_line_that_cannot_be_written_whole_is_taken_back(tmp_path):
    """A write that fails half way (here the file-size limit, as a full disk) leaves the file
    as it was, so the next line does not follow half a line (a damaged middle line)."""
    store = RunStore.open(tmp_path / "run", MANIFEST, resume=False)
    store.append(Response("dev_Art_1", "ok", text="A"))
    file = tmp_path / "run" / "responses.jsonl"
    before = file.read_bytes()
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 3_000_000, limit[1]))
    try:
        with pytest.raises(StoreError, match="cannot write"):
            store.append(Response("dev_Art_2", "ok", text="x" * 5_000_000))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        signal.signal(signal.SIGXFSZ, handler)
    assert file.read_bytes() == before
    store.append(Response("dev_Art_3", "ok", text="C"))
    store.close()
    assert set(RunStore.read(tmp_path / "run").responses()) == {"dev_Art_1", "dev_Art_3"}
