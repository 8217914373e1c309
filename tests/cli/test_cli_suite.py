"""`mmmu-eval suite` end to end on the bundled sample, offline; `report` of a suite directory."""

from __future__ import annotations

import json

from mmmu_eval.cli.main import build_parser, main


def test_suite_frequent_on_the_sample_prints_table1_among_the_papers_rows(tmp_path, capsys):
    out = tmp_path / "suite"
    assert main(["suite", "--model", "frequent", "--data", "sample", "--out", str(out), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "Table 1" in printed and "Frequent Choice" in printed and "Random Choice" in printed
    assert "▶ frequent" in printed and f"suite directory: {out}" in printed
    summary = json.loads((out / "suite.json").read_text())
    assert summary["status"] == "complete" and len(summary["runs"]) == 7
    assert (out / "report.html").is_file() and (out / "vision-cot" / "report.html").is_file()

    # A run of the suite is an ordinary run directory; `report SUITE_DIR` rebuilds the suite's summary.
    assert main(["report", str(out / "standard-10-direct")]) == 0
    (out / "report.html").unlink()
    assert main(["report", str(out), "--bootstrap", "50"]) == 0
    assert (out / "report.html").is_file()
    assert json.loads((out / "suite.json").read_text())["table1"]["overall"] == summary["table1"]["overall"]


def test_suite_takes_every_run_flag_but_the_ones_it_decides_per_run():
    parser = build_parser()
    suite = next(a for a in parser._subparsers._actions if a.dest == "command").choices["suite"]
    flags = {opt for action in suite._actions for opt in action.option_strings}
    for name in ("max_tokens", "temperature", "concurrency", "limit", "subjects", "shard", "max_attempts",
                 "request_timeout", "system_prompt", "seed", "fallback", "image_layout", "unreferenced_images",
                 "price_input", "price_output", "dry_run"):
        assert "--" + name.replace("_", "-") in flags, name
    assert "--base-url" in flags and "--parser" in flags and "--ids" in flags
    for own in ("--settings", "--prompts", "--ocr", "--no-mmmu", "--data", "--mmmu-data", "--out"):
        assert own in flags
    for per_run in ("--benchmark", "--split", "--setting", "--prompt", "--resume", "--answers"):
        assert per_run not in flags
    # Every RunConfig field is a flag of `run`; `suite` leaves out exactly the per-run ones.
    run = next(a for a in parser._subparsers._actions if a.dest == "command").choices["run"]
    run_flags = {opt for action in run._actions for opt in action.option_strings}
    assert run_flags - flags == {"--benchmark", "--split", "--setting", "--prompt", "--resume", "--no-resume", "--answers"}


def test_a_bad_suite_flag_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["suite", "--model", "random", "--data", "sample", "--settings", "vison", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "--settings 'vison' is not one of" in err and "did you mean vision?" in err
