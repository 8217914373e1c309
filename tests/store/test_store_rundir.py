"""The run directory: round trip, crash tolerance, damage detection, resume rules."""

import json
from pathlib import Path

import pytest

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore, response_from_json, response_to_json


def manifest(fingerprint="f" * 64, model="random", mode="direct", max_tokens=None):
    return {
        "config": {"model": model, "benchmark": "mmmu", "split": "dev", "setting": None},
        "protocol": {"fingerprint": fingerprint, "mode": mode, "generation": {"max_tokens": max_tokens}},
        "started_at": "2026-01-01T00:00:00+00:00",
    }


FULL = Response(
    "dev_Art_1", "truncated", text="The answer is", reasoning="think", finish_reason="length",
    prompt_tokens=12, completion_tokens=128, latency_s=1.5, attempts=2, error="HTTP 500 once", notes=("scaled",),
)


def test_every_response_field_survives_the_round_trip(tmp_path):
    store = RunStore.open(tmp_path / "run", manifest(), resume=False)
    store.append(FULL)
    store.append(Response("dev_Art_2", "error", error="dev_Art_2: gave up"))
    store.close()
    read = RunStore.read(tmp_path / "run").responses()
    assert read == {"dev_Art_1": FULL, "dev_Art_2": Response("dev_Art_2", "error", error="dev_Art_2: gave up")}


def test_each_append_is_on_disk_before_the_next(tmp_path):
    """A reader (or a crash) right after append sees the line: it is flushed, not buffered."""
    store = RunStore.open(tmp_path / "run", manifest(), resume=False)
    store.append(Response("dev_Art_1", "ok", text="A"))
    lines = (tmp_path / "run" / "responses.jsonl").read_text().splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == ["dev_Art_1"]


def test_the_last_record_for_an_id_wins(tmp_path):
    store = RunStore.open(tmp_path / "run", manifest(), resume=False)
    store.append(Response("dev_Art_1", "error", error="x"))
    store.append(Response("dev_Art_1", "ok", text="B"))
    assert store.responses()["dev_Art_1"].text == "B"


def write_lines(path: Path, raw: bytes) -> None:
    (path / "responses.jsonl").write_bytes(raw)


def ok_line(item_id: str, text: str = "A") -> bytes:
    return (json.dumps(response_to_json(Response(item_id, "ok", text=text))) + "\n").encode()


def test_a_torn_last_line_is_skipped_when_reading(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    write_lines(tmp_path, ok_line("dev_Art_1") + ok_line("dev_Art_2")[:17])
    assert list(RunStore.read(tmp_path).responses()) == ["dev_Art_1"]


def test_a_torn_last_line_is_cut_off_on_resume_and_appends_start_clean(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    write_lines(tmp_path, ok_line("dev_Art_1") + ok_line("dev_Art_2")[:17])
    store = RunStore.open(tmp_path, manifest(), resume=True)
    store.append(Response("dev_Art_2", "ok", text="C"))
    store.close()
    lines = (tmp_path / "responses.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and [json.loads(x)["item_id"] for x in lines[:-1]] == ["dev_Art_1", "dev_Art_2"]
    assert RunStore.read(tmp_path).responses()["dev_Art_2"].text == "C"


def test_a_complete_last_record_that_lost_only_its_newline_is_kept(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    write_lines(tmp_path, ok_line("dev_Art_1") + ok_line("dev_Art_2").rstrip(b"\n"))
    store = RunStore.open(tmp_path, manifest(), resume=True)
    store.append(Response("dev_Art_3", "ok", text="D"))
    assert list(store.responses()) == ["dev_Art_1", "dev_Art_2", "dev_Art_3"]


def test_a_bad_line_before_the_end_names_its_line_number(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    write_lines(tmp_path, ok_line("dev_Art_1") + b"{not json\n" + ok_line("dev_Art_3"))
    with pytest.raises(StoreError, match=r"responses.jsonl line 2: not valid JSON"):
        RunStore.read(tmp_path).responses()
    with pytest.raises(StoreError, match=r"line 2"):
        RunStore.open(tmp_path, manifest(), resume=True)


def test_a_bad_last_line_that_ends_with_a_newline_is_damage_not_a_tear(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    write_lines(tmp_path, ok_line("dev_Art_1") + b"{torn\n")
    with pytest.raises(StoreError, match="line 2"):
        RunStore.read(tmp_path).responses()


@pytest.mark.parametrize(
    "record, complaint",
    [
        ({"item_id": "x", "status": "maybe"}, "status must be one of ok, error, truncated"),
        ({"item_id": "", "status": "ok"}, "item_id must be a non-empty string"),
        ({"status": "ok"}, "has no 'item_id'"),
        ({"item_id": "x", "status": "ok", "attempts": 0}, "attempts must be a whole number >= 1"),
        ({"item_id": "x", "status": "ok", "prompt_tokens": True}, "prompt_tokens must be"),
        ({"item_id": "x", "status": "ok", "latency_s": -1}, "latency_s must be a number of seconds"),
        ({"item_id": "x", "status": "ok", "text": None}, "text must be a string"),
        ({"item_id": "x", "status": "ok", "notes": [1]}, "notes must be a list of strings"),
        ({"item_id": "x", "status": "ok", "colour": "red"}, "unknown field 'colour'"),
        (["x"], "expected a JSON object"),
    ],
)
def test_records_are_checked_field_by_field(record, complaint):
    with pytest.raises(StoreError, match=complaint) as info:
        response_from_json(record, "responses.jsonl line 7")
    assert str(info.value).startswith("responses.jsonl line 7: ")


def test_a_directory_holding_a_run_is_refused_without_resume(tmp_path):
    store = RunStore.open(tmp_path, manifest(), resume=False)
    store.append(Response("dev_Art_1", "ok", text="A"))
    with pytest.raises(StoreError, match="already holds a run \\(1 responses\\); pass --resume"):
        RunStore.open(tmp_path, manifest(), resume=False)


def test_a_changed_protocol_is_refused_with_what_differs_and_what_to_do(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    with pytest.raises(StoreError) as info:
        RunStore.open(tmp_path, manifest(fingerprint="0" * 64, mode="cot", max_tokens=4096), resume=True)
    message = str(info.value)
    assert "protocol ffffffffffff" in message and "000000000000" in message
    assert "generation.max_tokens: None -> 4096" in message and "mode: 'direct' -> 'cot'" in message
    assert "new --out" in message


def test_a_different_model_cannot_continue_a_run(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    with pytest.raises(StoreError, match="model 'random', not 'frequent'"):
        RunStore.open(tmp_path, manifest(model="frequent"), resume=True)


def test_resume_keeps_the_first_start_time_and_counts_sessions(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    later = {**manifest(), "started_at": "2026-02-02T00:00:00+00:00"}
    store = RunStore.open(tmp_path, later, resume=True)
    assert store.manifest()["started_at"] == "2026-01-01T00:00:00+00:00"
    assert store.manifest()["sessions"] == 2


def test_a_non_run_directory_is_neither_written_into_nor_read(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="non-empty directory without a manifest.json"):
        RunStore.open(tmp_path, manifest(), resume=False)
    with pytest.raises(StoreError, match="is not a run directory"):
        RunStore.read(tmp_path)


def test_result_files_are_written_whole_and_leave_no_temporary_files(tmp_path):
    store = RunStore.open(tmp_path, manifest(), resume=False)
    store.write_json("results.json", {"overall": {"accuracy": 0.5}})
    store.write_json("results.json", {"overall": {"accuracy": 0.75}})
    store.write_jsonl("predictions.jsonl", [{"id": "a", "pred": "A"}, {"id": "b", "pred": None}])
    store.write_text("report.html", "<html></html>")
    assert json.loads((tmp_path / "results.json").read_text()) == {"overall": {"accuracy": 0.75}}
    assert (tmp_path / "predictions.jsonl").read_text().splitlines()[1] == '{"id": "b", "pred": null}'
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "manifest.json", "predictions.jsonl", "report.html", "responses.jsonl", "results.json"]


def test_a_streamed_file_replaces_the_old_one_only_when_complete(tmp_path):
    """report.html is written piece by piece (html_chunks); a failure midway keeps the old page."""
    store = RunStore.open(tmp_path, manifest(), resume=False)
    store.write_stream("report.html", iter(["<html>", "old", "</html>"]))

    def failing():
        yield "<html>new"
        raise RuntimeError("the report could not be finished")

    with pytest.raises(RuntimeError):
        store.write_stream("report.html", failing())
    assert (tmp_path / "report.html").read_text() == "<html>old</html>"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_reserved_and_nested_names_cannot_be_overwritten(tmp_path):
    store = RunStore.open(tmp_path, manifest(), resume=False)
    for name in ("responses.jsonl", "manifest.json", "../x.json"):
        with pytest.raises(StoreError, match="only plain file names"):
            store.write_text(name, "x")


def test_a_read_only_store_refuses_writes(tmp_path):
    RunStore.open(tmp_path, manifest(), resume=False)
    with pytest.raises(StoreError, match="read-only"):
        RunStore.read(tmp_path).append(Response("a", "ok"))


def test_update_manifest_rewrites_fields_and_keeps_the_rest(tmp_path):
    store = RunStore.open(tmp_path, manifest(), resume=False)
    store.update_manifest(status="complete", counts={"ok": 3})
    m = RunStore.read(tmp_path).manifest()
    assert m["status"] == "complete" and m["counts"] == {"ok": 3} and m["config"]["model"] == "random"


@pytest.mark.parametrize("block", [1, 7, 1 << 16])
def test_the_unfinished_tail_is_found_whatever_the_read_block(tmp_path, block):
    """The tail is searched backwards in blocks; a line longer than a block must still be found."""
    import io

    from mmmu_eval.store.torn_tail import start_of_last_line as _start_of_last_line

    data = ok_line("dev_Art_1") + ok_line("dev_Art_2", text="x" * 50) + b'{"item_id": "dev_Ar'
    assert _start_of_last_line(io.BytesIO(data), block) == len(ok_line("dev_Art_1") + ok_line("dev_Art_2", text="x" * 50))
    assert _start_of_last_line(io.BytesIO(b'{"torn'), block) == 0
    assert _start_of_last_line(io.BytesIO(ok_line("a")), block) is None
    assert _start_of_last_line(io.BytesIO(b""), block) is None
