"""``mmmu-eval audit --help``'s examples run as printed, on the folders they name: run directories
as ``mmmu-eval run`` writes them, a suite's folder, and the official paper-era outputs with their build
data ``mix_data.jsonl`` beside them (which once failed the whole audit)."""

from __future__ import annotations

import glob
import os
import shlex

import pytest

from auditing.conftest import PRO_2024
from fakes import required
from mmmu_eval import evaluate
from mmmu_eval.cli.audit import EPILOG
from mmmu_eval.cli.main import main
from mmmu_eval.run.progress import NullDisplay

EXAMPLES = [line.split("#", 1)[0].strip() for line in EPILOG.splitlines() if line.strip().startswith("mmmu-eval audit")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The folders the examples name, made as a user makes them."""
    root = tmp_path_factory.mktemp("examples")
    for name, model, setting in (("runs/gpt4o-pro10", "random", "standard-10"), ("runs/qwen-pro10", "frequent", "standard-10"),
                                 ("runs/qwen-vision", "random", "vision"), ("suites/pro-2026/random-standard-10", "random",
                                                                            "standard-10"),
                                 ("suites/pro-2026/frequent-standard-4", "frequent", "standard-4")):
        evaluate(model=model, benchmark="mmmu-pro", setting=setting, data="sample", out=str(root / name),
                 display=NullDisplay(), html=False, seed=1)
    return root


def _argv(example: str) -> list[str]:
    words = shlex.split(example)[1:]  # the shell expands the globs: so does the test, in the example's folder
    return [match for word in words for match in (sorted(glob.glob(word)) if "*" in word else [word])]


@pytest.mark.parametrize("example", [e for e in EXAMPLES if "mmmu-pro-2024" not in e])
def test_the_example_runs_on_runs_and_suites(example, folder, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    assert main(_argv(example)) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "Runs read" in out
    for written in ("audit.json", "audit.html"):
        if written in example:
            assert (folder / written).stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.parametrize("example", [e for e in EXAMPLES if "mmmu-pro-2024" in e])
def test_the_example_runs_on_the_official_outputs_and_their_build_data(example, tmp_path, monkeypatch, capsys):
    source = required.path(PRO_2024, "the example reads the paper-era outputs in ../shared/fidelity")
    os.symlink(source, tmp_path / "mmmu-pro-2024")
    monkeypatch.chdir(tmp_path)
    argv = _argv(example)
    assert any(a.endswith("mix_data.jsonl") for a in argv)  # the glob picks the build data up, as a shell would
    assert main(argv) == 0, capsys.readouterr().err
    out = " ".join(capsys.readouterr().out.split())
    assert "Runs read (27)" in out and "Augmentation suspects" in out


def test_every_example_is_tested():
    assert len(EXAMPLES) == 3
