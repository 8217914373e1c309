"""``FinishedRun`` and ``read_run``: the one record of a finished run read back, and its one reader.

Every command over finished runs reads a run through ``read_run`` (report, compare, the doctor,
the suite's study and page, the audit, a finished run run again); the store's own reader,
``RunStore.read``, is called elsewhere only by the code that runs, resumes or merges a run.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval.core.errors import StoreError
from mmmu_eval.results.finished_run import FinishedRun, read_run

SRC = Path(__file__).resolve().parents[2] / "src" / "mmmu_eval"
#: The modules that may open a run directory with ``RunStore.read``: the one reader of a finished
#: run, and the code that runs, resumes, prepares or merges one (and harden's trials, which are runs).
STORE_READERS = {
    "results/finished_run.py",
    "run/pipeline.py", "run/prepare.py", "run/resume.py", "run/merge_shards.py", "run/launcher_ranks.py",
    # a run on another rank count reads its own earlier shards (answers to reuse, shards to fold in)
    "run/rank_answers.py", "run/merge_earlier.py",
    "harden/trials.py",
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "random"
    mmmu_eval.evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=str(out))
    return out


def test_the_files_as_they_are_read_no_answer(run_dir, tmp_path):
    """``rebuild=False`` takes results.json as written and never opens responses.jsonl, so a
    damaged answers file does not stop it; the full read refuses that file, naming the line."""
    import shutil

    copy = Path(shutil.copytree(run_dir, tmp_path / "copy"))
    with open(copy / "responses.jsonl", "a", encoding="utf-8") as f:
        f.write("{not json\n" + json.dumps({"id": "x"}) + "\n")
    as_written = read_run(copy, rebuild=False)
    assert as_written.results == json.loads((run_dir / "results.json").read_text())
    assert as_written.items is None and as_written.responses is None and not as_written.rebuilt
    with pytest.raises(StoreError, match="responses.jsonl"):
        read_run(copy)


def test_the_record_says_what_the_run_measured_and_whether_its_figure_stands(run_dir):
    run = read_run(run_dir, details=True)
    assert isinstance(run, FinishedRun) and run.name == "random"
    assert (run.benchmark, run.setting, run.split, run.prompt) == ("mmmu", None, "validation", "direct")
    assert run.key == ("mmmu", "validation", "direct") and run.label == "MMMU validation (direct)"
    assert run.usable and run.lacking == 0
    assert run.read_responses() == run.responses and len(run.responses) == len(run.items) == 40


def test_a_run_lacking_items_says_how_many_and_why(run_dir, tmp_path):
    results = json.loads((run_dir / "results.json").read_text())
    results["coverage"] = {**results["coverage"], "errors": 2, "missing": 3}
    copy = tmp_path / "lacking"
    copy.mkdir()
    for name in ("manifest.json", "responses.jsonl"):
        (copy / name).write_bytes((run_dir / name).read_bytes())
    (copy / "results.json").write_text(json.dumps(results))
    run = read_run(copy, rebuild=False)
    assert run.lacking == 5 and not run.usable
    assert run.problem == f"lacks 5 of {results['coverage']['items']} items (2 failed, 3 not asked)"
    (copy / "results.json").unlink()
    run = read_run(copy, rebuild=False)
    assert run.results is None and run.problem == "has no results.json (the run did not finish)"


def test_a_planned_run_that_left_nothing_is_a_record_saying_why(tmp_path):
    run = FinishedRun.missing(tmp_path / "vision-cot", {"benchmark": "mmmu-pro", "setting": "vision", "prompt": "cot"},
                              "was not run (no run directory)")
    assert (run.name, run.key, run.label) == ("vision-cot", ("mmmu-pro", "vision", "cot"), "vision (cot)")
    assert not run.usable and run.results is None and run.read_responses() == {}


def test_the_root_names_of_the_record_and_its_reader_are_the_same_objects():
    assert mmmu_eval.LoadedRun is FinishedRun and mmmu_eval.load_run is read_run


def test_only_the_run_itself_opens_a_run_directory_with_the_store_s_reader():
    """A finished run read back goes through ``read_run``; a new ``RunStore.read(`` elsewhere is a
    second reader of finished runs (the four shapes issue 39 folded into one)."""
    callers = set()
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "read"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "RunStore"):
                callers.add(path.relative_to(SRC).as_posix())
    assert callers == STORE_READERS


def test_a_results_file_without_its_counts_is_still_read(run_dir, tmp_path):
    """report and compare read a results.json by its figures; one edited without its coverage
    counts is read, not refused with a KeyError, and says nothing about lacking items."""
    results = json.loads((run_dir / "results.json").read_text())
    del results["coverage"], results["gold_available"]
    copy = tmp_path / "edited"
    copy.mkdir()
    for name in ("manifest.json", "responses.jsonl"):
        (copy / name).write_bytes((run_dir / name).read_bytes())
    (copy / "results.json").write_text(json.dumps(results))
    run = read_run(copy)
    assert not run.rebuilt and run.results["overall"] == results["overall"] and run.usable
