"""`report` and `compare` arguments that printed half a result or nonsense (second-wave QA)."""

import pytest

from mmmu_eval.cli.main import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    made = {}
    for name, flags in {"a": ["--model", "random"], "b": ["--model", "frequent"],
                        "pro": ["--benchmark", "mmmu-pro", "--model", "random"]}.items():
        out = base / name
        argv = ["run", "--data", "sample", "--out", str(out), "--no-html", *flags]
        if name != "pro":
            argv += ["--split", "dev"]
        assert main(argv) == 0
        made[name] = str(out)
    return made


def test_report_checks_every_directory_before_printing_any(runs, tmp_path, capsys):
    """`report RUN_OK /nonexistent` printed RUN_OK's whole report, then the error, then exit 1."""
    capsys.readouterr()
    assert main(["report", runs["a"], str(tmp_path / "nope")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "is not a run directory (no manifest.json)" in captured.err


def test_no_submission_file_for_mmmu_pro(runs, capsys):
    """MMMU-Pro's split is called test, so `--submission` wrote an EvalAI file for it."""
    assert main(["report", runs["pro"], "--submission"]) == 0
    assert "not an MMMU test-split run; no submission.json written" in capsys.readouterr().err
    assert not (__import__("pathlib").Path(runs["pro"]) / "submission.json").exists()


def test_compare_refuses_a_negative_flip_count(runs, capsys):
    """`--flips -3` listed a slice of the flips and then "... and 15 more" of 12."""
    assert main(["compare", runs["a"], runs["b"], "--flips", "-3"]) == 2
    assert "--flips and --bootstrap must be 0 or more" in capsys.readouterr().err
