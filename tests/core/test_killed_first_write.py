"""A command killed while it writes the first file of its output folder (a run's manifest.json, a
suite's suite.json, harden's harden.json) runs again with the same command line.

The kill is real: the command runs in a process whose ``os.replace`` SIGKILLs the process at the
rename of that file, so what is left is what a crash at that instant leaves, the folder with only
the writer's temporary file in it. Before the fix every later attempt refused that folder as "a
non-empty directory without a manifest.json" (seen once in CI as a suite that never finished).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.mc_set import write_mmmu_set
from fakes.processes import offline_environment
from mmmu_eval.core.atomic import LOCK_FILE, holds_anything, is_leftover, remove_leftovers, temporary_beside, write_atomically

# Runs the CLI with os.replace SIGKILLing the process at the first rename onto a file whose name
# matches the pattern argv[1].
KILLED_AT_RENAME = """
import fnmatch, os, signal, sys
from pathlib import Path
rename = os.replace
def replace(source, target, *args, **kwargs):
    if fnmatch.fnmatch(Path(target).name, sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)
    return rename(source, target, *args, **kwargs)
os.replace = replace
from mmmu_eval.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def killed_at_rename(pattern: str, args: list[str], out: Path) -> list[str]:
    """Run the command until it renames a file matching ``pattern`` into place, killed there;
    the names it left in ``out``."""
    done = subprocess.run([sys.executable, "-c", KILLED_AT_RENAME, pattern, *args], env=offline_environment(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]
    # The one-writer lock file may stay too: unlocked by the kernel at the kill, it is no content.
    return sorted(p.name for p in out.iterdir() if p.name != LOCK_FILE)


def killed_at_first_write(name: str, args: list[str], out: Path) -> None:
    """Run the command until it renames ``name``, its first file, into place, killed there: the
    folder holds the temporary file and nothing else."""
    left = killed_at_rename(name, args, out)
    assert len(left) == 1 and left[0].startswith(f".{name}.") and left[0].endswith(".tmp"), left


def run_again(args: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "mmmu_eval", *args], env=offline_environment(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def no_leftovers(folder: Path) -> None:
    assert not [p for p in folder.rglob(".*.tmp")], "the killed write's temporary file is cleared"


def test_a_run_killed_writing_its_first_manifest_runs_again(tmp_path):
    out = tmp_path / "run"
    args = ["run", "--benchmark", "mmmu", "--split", "validation", "--data", "sample", "--model", "random", "--out", str(out)]
    killed_at_first_write("manifest.json", args, out)
    run_again(args)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["sessions"] == 1
    assert (out / "results.json").is_file()
    no_leftovers(out)


@pytest.mark.slow
def test_a_suite_killed_writing_its_first_summary_runs_again(tmp_path):
    out = tmp_path / "suite"
    args = ["suite", "--model", "frequent", "--data", "sample", "--limit", "2", "--bootstrap", "50", "--out", str(out)]
    killed_at_first_write("suite.json", args, out)
    run_again(args)
    assert json.loads((out / "suite.json").read_text())["status"] == "complete"
    no_leftovers(out)


@pytest.mark.parametrize("killed_at", ["harden.json", "*.parquet"])
def test_a_harden_step_killed_before_it_records_itself_runs_again(tmp_path, killed_at):
    """Killed writing harden.json, or after it, writing its first dataset file (the staged input
    of the trials) before the step's section is recorded: the same command resumes it."""
    data, out = write_mmmu_set(tmp_path / "mmmu"), tmp_path / "hard"
    args = ["harden", "filter", "--data", str(data), "--out", str(out), "--models", "frequent", "--trials", "1",
            "--per-subject", "0"]
    if killed_at == "harden.json":
        killed_at_first_write("harden.json", args, out)
    else:
        assert killed_at_rename(killed_at, args, out) == ["harden.json", "work"]
        assert "filter" not in json.loads((out / "harden.json").read_text())["steps"]
    run_again(args)
    assert json.loads((out / "harden.json").read_text())["steps"]["filter"]["status"] == "complete"
    no_leftovers(out)


def test_only_the_writers_own_temporary_files_are_not_content(tmp_path):
    target = tmp_path / "manifest.json"
    fd, leftover = temporary_beside(target)
    os.close(fd)
    assert is_leftover(Path(leftover)) and not holds_anything(tmp_path)
    # A folder of that name, or another hidden file, is somebody's content.
    for other in (".manifest.json.tmp", ".notes", ".manifest.json.0123456789ab.tmp.bak", "manifest.json.0123456789ab.tmp"):
        (tmp_path / other).write_text("x")
        assert holds_anything(tmp_path), other
        (tmp_path / other).unlink()
    (tmp_path / ".manifest.json.0123456789ab.tmp").mkdir()
    assert holds_anything(tmp_path)
    (tmp_path / ".manifest.json.0123456789ab.tmp").rmdir()
    remove_leftovers(tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert not holds_anything(tmp_path / "missing") and holds_anything(write_atomically(target, "{}"))
