"""Malformed is malformed at any depth and size (issue 40): JSON nested 100,000 deep
(``RecursionError``) and an integer of 5,000 digits (``ValueError: Exceeds the limit (4300
digits)``) in a run's files are damage like any other, named with its file or line and the fix,
never a traceback. On main both ended ``report`` and ``run`` with a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmmu_eval import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.harden.record import Record
from mmmu_eval.core.jsonfile import MAX_DEPTH, MalformedJSON, loads
from mmmu_eval.store.rundir import RunStore

DEEP = "[" * 100_000 + "]" * 100_000
LONG = "1" * 5_000
#: Parses (under Python's recursion limit), then broke whatever walked it: ``run --resume`` wrote
#: such a manifest back and ended in a RecursionError.
WALL = "[" * 500 + "]" * 500

RUN = ["--model", "random", "--benchmark", "mmmu", "--split", "dev", "--data", "sample", "--subjects", "Art"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("deep") / "run"
    evaluate(model="random", benchmark="mmmu", split="dev", data="sample", out=out, subjects=["Art"])
    return out


@pytest.fixture
def run(finished: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(finished, tmp_path / "run"))


@pytest.mark.parametrize("bad", [DEEP, WALL, LONG], ids=["deep", "deep-parseable", "long-int"])
def test_loads_names_the_damage_as_a_value_error(bad):
    with pytest.raises(MalformedJSON) as caught:
        loads(bad)
    assert isinstance(caught.value, ValueError)
    assert "set_int_max_str_digits" not in str(caught.value)


def test_what_we_write_and_read_is_far_inside_the_depth_limit():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) and loads('{"a": "' + "[" * 5000 + '"}')
    with pytest.raises(MalformedJSON, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


def with_value(file: Path, bad: str) -> None:
    """``file``'s JSON object with ``bad`` as the value of a new key (kept as an unknown key)."""
    text = file.read_text().rstrip()
    assert text.endswith("}")
    file.write_text(text[:-1] + f', "x_extra": {bad}}}\n')


@pytest.mark.parametrize("bad", [DEEP, WALL, LONG], ids=["deep", "deep-parseable", "long-int"])
@pytest.mark.parametrize("command", [["report"], ["score"], ["run", *RUN, "--resume", "--out"]], ids=["report", "score", "resume"])
def test_a_damaged_manifest_is_one_line_for_every_command(run, bad, command, capsys):
    with_value(run / "manifest.json", bad)
    assert main([*command, str(run)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "manifest.json: cannot be read (" in err, err[-2000:]
    assert "restore it from a copy" in err


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_a_damaged_responses_line_names_the_line(run, bad, capsys):
    lines = (run / "responses.jsonl").read_text().splitlines(keepends=True)
    lines.insert(1, f'{{"item_id": "dev_Art_9", "status": "ok", "text": {bad}}}\n')
    (run / "responses.jsonl").write_text("".join(lines))
    with pytest.raises(StoreError, match=r"responses.jsonl line 2: not valid JSON .*fix or delete that line"):
        RunStore.read(run).responses()
    assert main(["run", *RUN, "--resume", "--out", str(run)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "responses.jsonl line 2: not valid JSON" in err


def test_a_damaged_torn_tail_is_still_a_torn_tail(run):
    """The last line, unfinished and too deep: a run killed mid-write, cut before appending."""
    with (run / "responses.jsonl").open("a") as fh:
        fh.write('{"item_id": "dev_Art_9", "text": ' + "[" * 100_000)
    RunStore.open(run, RunStore.read(run).manifest(), resume=True).close()
    assert (run / "responses.jsonl").read_text().endswith("}\n")


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_a_damaged_results_file_is_one_line(run, bad, capsys):
    with_value(run / "results.json", bad)
    assert main(["report", str(run)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "results.json" in err, err[-2000:]


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_a_damaged_items_file_is_named(run, bad):
    (run / "items.jsonl").write_text(f'{{"id": {bad}}}\n')
    with pytest.raises(StoreError, match=r"items.jsonl: cannot be read \(.*\); restore it"):
        RunStore.read(run).read_jsonl("items.jsonl")


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_a_damaged_harden_record_is_named(tmp_path, bad):
    (tmp_path / "harden.json").write_text(f'{{"format": {bad}}}')
    with pytest.raises(StoreError, match=r"harden.json: cannot be read \(.*\); restore it"):
        Record.load(tmp_path)


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_a_damaged_suite_file_is_named(tmp_path, bad):
    from mmmu_eval.suite.execute import read_summary

    (tmp_path / "suite.json").write_text(json.dumps({"schema_version": 1})[:-1] + f', "x": {bad}}}')
    with pytest.raises(StoreError, match="suite.json"):
        read_summary(tmp_path)


@pytest.mark.parametrize("bad", [DEEP, LONG], ids=["deep", "long-int"])
def test_another_harness_file_with_a_damaged_line_is_a_problem_not_a_traceback(tmp_path, bad, capsys):
    """rescore's readers: the line is reported and skipped like any line that is not JSON."""
    file = tmp_path / "answers.jsonl"
    file.write_text(json.dumps({"id": "validation_Art_1", "response": "A"}) + "\n"
                    + f'{{"id": "validation_Art_2", "response": {bad}}}\n')
    code = main(["rescore", str(file), "--format", "jsonl", "--data", "sample", "--partial",
                 "--benchmark", "mmmu", "--split", "validation"])
    err = capsys.readouterr()
    assert "Traceback" not in err.err
    assert code in (0, 1) and "answers.jsonl:2: not a JSON line" in err.out + err.err
