"""Nothing outside the run is touched (issue 40): a run's files are never read or written through
a link. Each case the issue reproduced on main: a linked responses.jsonl lost the outside file's
last line as a "torn tail" and was appended to; a linked lock file had its target overwritten.
Every refusal names the file; the outside file keeps every byte, and the link stays a link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmmu_eval import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore
from mmmu_eval.core.writer_lock import LOCK_FILE, hold_directory

IMPORTANT = "# a user's shell file\nexport IMPORTANT=1"  # no newline at the end: a "torn tail"


def manifest() -> dict:
    return {"config": {"model": "random", "benchmark": "mmmu", "split": "dev", "setting": None},
            "protocol": {"fingerprint": "f" * 64, "mode": "direct", "generation": {}},
            "started_at": "2026-01-01T00:00:00+00:00"}


@pytest.fixture
def run(tmp_path: Path) -> Path:
    store = RunStore.open(tmp_path / "run", manifest(), resume=False)
    store.append(Response("dev_Art_1", "ok", text="A"))
    store.close()
    return tmp_path / "run"


def outside(tmp_path: Path, text: str = IMPORTANT) -> Path:
    file = tmp_path / "elsewhere" / "important.sh"
    file.parent.mkdir(exist_ok=True)
    file.write_text(text)
    return file


def link(name: Path, target: Path) -> None:
    name.unlink(missing_ok=True)
    name.symlink_to(target)


@pytest.mark.parametrize("text", [IMPORTANT, "export IMPORTANT=1", ""])
def test_a_linked_responses_file_is_refused_on_resume_and_keeps_every_byte(run, tmp_path, text):
    """On main the one-line file lost its only line (cut as a torn tail), then got records appended."""
    target = outside(tmp_path, text)
    link(run / "responses.jsonl", target)
    with pytest.raises(StoreError, match=r"responses.jsonl: is a symbolic link \(to .*important.sh\), not a file"):
        RunStore.open(run, manifest(), resume=True)
    assert target.read_text() == text
    assert (run / "responses.jsonl").is_symlink()


def test_a_linked_responses_file_is_refused_when_read(run, tmp_path):
    link(run / "responses.jsonl", outside(tmp_path))
    with pytest.raises(StoreError, match="responses.jsonl: is a symbolic link"):
        RunStore.read(run).responses()


def test_a_dangling_link_is_never_made_into_its_target(run, tmp_path):
    """``Path.touch`` through a dangling link would have created the file it points to."""
    missing = tmp_path / "elsewhere-new" / "made.txt"
    missing.parent.mkdir()
    link(run / "responses.jsonl", missing)
    with pytest.raises(StoreError, match="responses.jsonl: is a symbolic link"):
        RunStore.open(run, manifest(), resume=True)
    assert not missing.exists()


def test_a_responses_file_with_a_second_name_is_not_written_in_place(run, tmp_path):
    """A hard link: appending or cutting would change the other name's file too."""
    other = tmp_path / "other-name.jsonl"
    os.link(run / "responses.jsonl", other)
    before = other.read_bytes()
    with pytest.raises(StoreError, match="responses.jsonl: has 2 names"):
        RunStore.open(run, manifest(), resume=True)
    assert other.read_bytes() == before


def test_a_linked_lock_file_is_refused_and_its_target_kept(run, tmp_path):
    """On main the lock record overwrote the target (and the link was then removed)."""
    target = outside(tmp_path)
    link(run / LOCK_FILE, target)
    with pytest.raises(StoreError, match=r"\.mmmu-eval\.lock: is a symbolic link"):
        with hold_directory(run, "run"):
            pass
    assert target.read_text() == IMPORTANT
    assert (run / LOCK_FILE).is_symlink()


def test_a_lock_file_with_a_second_name_is_refused(run, tmp_path):
    target = outside(tmp_path)
    os.link(target, run / LOCK_FILE)
    with pytest.raises(StoreError, match=r"\.mmmu-eval\.lock: has 2 names"):
        with hold_directory(run, "run"):
            pass
    assert target.read_text() == IMPORTANT


@pytest.mark.parametrize("name", ["results.json", "report.html", "predictions.jsonl", "manifest.json"])
def test_a_file_written_whole_never_replaces_a_link(run, tmp_path, name):
    """The rename would replace only the link, but a link is refused wherever we write."""
    target = outside(tmp_path)
    link(run / name, target)
    store = RunStore(run, writable=True)
    with pytest.raises(StoreError, match=rf"{name}: is a symbolic link"):
        if name == "manifest.json":
            store._write_manifest(manifest())
        elif name.endswith(".jsonl"):
            store.write_jsonl(name, [{"id": "x"}])
        else:
            store.write_text(name, "new")
    assert target.read_text() == IMPORTANT and (run / name).is_symlink()
    assert sorted(p.name for p in run.iterdir() if p.name.endswith(".tmp")) == []


def test_a_linked_manifest_is_refused_when_read(run, tmp_path):
    target = outside(tmp_path, (run / "manifest.json").read_text())
    link(run / "manifest.json", target)
    with pytest.raises(StoreError, match="manifest.json: is a symbolic link"):
        RunStore.read(run).manifest()


def test_a_run_held_inside_a_held_directory_is_not_reached_through_a_linked_folder(tmp_path):
    """A suite's run or harden's runs: the folder between the held directory and the run."""
    suite, away = tmp_path / "suite", tmp_path / "away"
    suite.mkdir()
    away.mkdir()
    (suite / "vision-direct").symlink_to(away, target_is_directory=True)
    with hold_directory(suite, "suite"):
        with pytest.raises(StoreError, match=r"vision-direct: is a symbolic link \(to .*away\), not a folder"):
            with hold_directory(suite / "vision-direct", "run"):
                pass
    assert list(away.iterdir()) == []


def test_the_directory_the_user_names_may_be_a_link(tmp_path):
    """``--out runs/latest`` pointing at the real folder is the user's own choice."""
    real = tmp_path / "real"
    evaluate(model="random", benchmark="mmmu", split="dev", data="sample", out=real, subjects=["Art"])
    latest = tmp_path / "latest"
    latest.symlink_to(real, target_is_directory=True)
    result = evaluate(model="random", benchmark="mmmu", split="dev", data="sample", out=latest, subjects=["Art"],
                      resume=True)
    assert result.unfinished == 0 and (real / "report.html").is_file()


def test_the_cli_refuses_a_linked_run_file_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["run", "--model", "random", "--benchmark", "mmmu", "--split", "dev", "--data", "sample",
            "--subjects", "Art", "--out", str(out)]
    assert main(args) == 0
    target = outside(tmp_path)
    link(out / "responses.jsonl", target)
    capsys.readouterr()
    assert main([*args, "--resume"]) == 1
    err = capsys.readouterr().err
    assert "error:" in err and "responses.jsonl: is a symbolic link" in err and "Traceback" not in err
    assert target.read_text() == IMPORTANT
    assert main(["report", str(out)]) == 1
    assert "responses.jsonl: is a symbolic link" in capsys.readouterr().err
