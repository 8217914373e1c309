"""`mmmu-eval run` end to end on the bundled sample, offline."""

import json
import random

import pytest

from mmmu_eval.cli.main import build_parser, main
from mmmu_eval.cli.run import config_overrides
from mmmu_eval.dataset.load import load_benchmark

from fakes.parquet_rows import mmmu_row, write_mmmu


@pytest.mark.parametrize(
    "flags, n",
    [
        (["--benchmark", "mmmu", "--split", "dev"], 20),
        (["--benchmark", "mmmu"], 40),  # validation by default
        (["--benchmark", "mmmu-pro", "--setting", "standard-10"], 24),
        (["--benchmark", "mmmu-pro", "--setting", "standard-4"], 24),
        (["--benchmark", "mmmu-pro", "--setting", "vision"], 24),
    ],
)
def test_run_random_on_the_sample_writes_a_run_directory(tmp_path, capsys, flags, n):
    out = tmp_path / "run"
    assert main(["run", *flags, "--data", "sample", "--model", "random", "--out", str(out)]) == 0
    for name in ("manifest.json", "responses.jsonl", "results.json", "predictions.jsonl", "report.html"):
        assert (out / name).is_file()
    results = json.loads((out / "results.json").read_text())
    # The random baseline's documented draw (seed 0): random.Random("0:<id>").choice(letters); open
    # questions get an empty answer, never right.
    benchmark = flags[1]
    where = {"setting": flags[3]} if "--setting" in flags else {"split": flags[3] if "--split" in flags else "validation"}
    items = load_benchmark(benchmark, data="sample", **where).items
    right = sum(1 for it in items if it.choices and random.Random(f"0:{it.id}").choice(it.choices) == it.answer)
    assert (results["overall"]["n"], results["overall"]["correct"]) == (n, right)
    assert f"run directory: {out}" in capsys.readouterr().out


def test_the_same_out_again_continues_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(out), "--no-html"]
    assert main(argv) == 0
    before = (out / "responses.jsonl").read_text()
    capsys.readouterr()
    assert main(argv) == 0
    assert f"{out}: finished already: nothing asked" in capsys.readouterr().out
    assert (out / "responses.jsonl").read_text() == before  # every item was ok: nothing asked again
    assert not (out / "report.html").exists()


def test_failed_items_exit_1_and_say_resume_retries_them(tmp_path, capsys):
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "dev", [mmmu_row("dev_Art_1"), mmmu_row("dev_Art_2", question="See <image 4>.")])
    rc = main(["run", "--split", "dev", "--data", str(root), "--model", "random", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc == 1 and "1 item(s) failed" in err and "--resume" in err


def test_a_changed_protocol_on_the_same_out_is_refused_with_exit_1(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", out, "--limit", "2"]) == 0
    rc = main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", out, "--limit", "2",
               "--prompt", "cot"])
    err = capsys.readouterr().err
    assert rc == 1 and "mode: 'direct' -> 'cot'" in err and "new --out" in err


def test_bad_usage_exits_2_with_one_line(capsys):
    assert main(["run", "--model", "randm", "--data", "sample"]) == 2
    assert "did you mean random?" in capsys.readouterr().err


def test_flags_map_onto_run_config_fields():
    args = build_parser().parse_args([
        "run", "--model", "openai:m", "--base-url", "http://a/v1", "--base-url", "http://b/v1",
        "--extra-body", '{"chat_template_kwargs": {"enable_thinking": false}}', "--shard", "2/4",
        "--subjects", "acc,art", "math", "--temperature", "0", "--no-html", "--max-tokens", "16"])
    assert config_overrides(args) == {
        "model": "openai:m", "base_urls": ("http://a/v1", "http://b/v1"),
        "extra_body": {"chat_template_kwargs": {"enable_thinking": False}}, "shard": (2, 4),
        "subjects": ("acc", "art", "math"), "temperature": 0.0, "html": False, "max_tokens": 16}


@pytest.mark.parametrize("flag, value", [("--extra-body", "[1]"), ("--extra-body", "{"), ("--shard", "5/4")])
def test_malformed_flag_values_are_usage_errors(flag, value):
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["run", "--model", "random", flag, value])
    assert info.value.code == 2


def test_no_resume_on_an_existing_run_is_refused_not_continued(tmp_path, capsys):
    out = str(tmp_path / "run")
    argv = ["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", out, "--limit", "1"]
    assert main(argv) == 0
    assert main([*argv, "--no-resume"]) == 1
    assert "already holds a run" in capsys.readouterr().err


def test_a_refused_resume_never_claims_to_continue(tmp_path, capsys):
    """`run` used to print 'continuing the run in X' just before refusing to resume it."""
    out = tmp_path / "run"
    base = ["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(out), "--no-html"]
    assert main(base) == 0
    capsys.readouterr()
    assert main([*base, "--prompt", "cot"]) == 1  # a StoreError: this directory holds another protocol
    captured = capsys.readouterr()
    assert "continued" not in captured.out + captured.err
    assert "cot" in captured.err


@pytest.mark.parametrize(
    "first, second, complaint",
    [
        (["--split", "dev"], ["--split", "validation"], "holds a run with split 'dev', not 'validation'"),
        (["--benchmark", "mmmu-pro", "--setting", "standard-10"], ["--benchmark", "mmmu-pro", "--setting", "vision"],
         "it differs in setting: 'standard-10' -> 'vision'"),
        (["--split", "dev"], ["--benchmark", "mmmu-pro"], "it differs in benchmark: 'mmmu' -> 'mmmu-pro'"),
    ],
    ids=["split", "setting", "benchmark"],
)
def test_continuing_a_run_on_another_split_setting_or_benchmark_is_refused(tmp_path, capsys, first, second, complaint):
    """Their items are other questions (MMMU-Pro even reuses MMMU's ids): mixing them would score nonsense."""
    out = tmp_path / "run"
    base = ["run", "--data", "sample", "--model", "random", "--out", str(out), "--no-html"]
    assert main([*base, *first]) == 0
    before = (out / "responses.jsonl").read_text()
    capsys.readouterr()
    assert main([*base, *second]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert complaint in err and "new --out" in err and "continued" not in err
    assert (out / "responses.jsonl").read_text() == before


def test_run_without_out_writes_a_dated_directory_under_runs(tmp_path, capsys, monkeypatch):
    import re

    monkeypatch.chdir(tmp_path)
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--limit", "2", "--no-html"]) == 0
    (made,) = (tmp_path / "runs").iterdir()
    assert re.fullmatch(r"mmmu-dev-random-\d{8}-\d{6}", made.name), made.name
    assert json.loads((made / "manifest.json").read_text())["counts"]["items"] == 2
    assert f"run directory: runs/{made.name}" in capsys.readouterr().out


def test_no_subcommand_prints_the_commands_and_exits_2(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: mmmu-eval")
    assert all(f"    {name} " in out for name in ("run", "score", "rescore", "report", "compare", "merge", "data"))
