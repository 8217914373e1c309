"""`mmmu-eval suite` end to end on the bundled sample, offline; `report` of a suite directory."""

from __future__ import annotations

import json

from mmmu_eval.cli.main import build_parser, main


def test_suite_frequent_on_the_sample_prints_table1_without_the_papers_rows(tmp_path, capsys):
    """The sample is synthetic: its row is never set among published models (issue 28)."""
    out = tmp_path / "suite"
    assert main(["suite", "--model", "frequent", "--data", "sample", "--out", str(out), "--bootstrap", "50"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Table 1" in printed and "published rows left out: the sample is not the benchmark" in printed
    assert "Frequent Choice" not in printed and "Random Choice" not in printed
    assert "· bundled sample: 24-40 synthetic items per run, not the benchmark" in printed
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


def test_report_of_a_suite_takes_a_rescored_run_into_table1(tmp_path, capsys):
    """What `report SUITE_DIR` is for: after `score` re-scores a run, Table 1 follows it. Frequent
    answers a bare letter, so the boxed parser scores standard-10-direct 0; the cell then takes
    CoT (a tie went to direct before), and overall and both deltas move with it."""
    out = tmp_path / "suite"
    assert main(["suite", "--model", "frequent", "--data", "sample", "--out", str(out), "--bootstrap", "50",
                 "--no-mmmu", "--settings", "standard-4,standard-10,vision"]) == 0
    before = json.loads((out / "suite.json").read_text())["table1"]
    assert before["standard_10"]["mode"] == "direct" and before["standard_10"]["value"] > 0
    assert main(["score", str(out / "standard-10-direct"), "--parser", "boxed", "--fallback", "none", "--save"]) == 0
    assert json.loads((out / "standard-10-direct" / "results.json").read_text())["overall"]["accuracy"] == 0.0
    cot = json.loads((out / "standard-10-cot" / "results.json").read_text())["overall"]["accuracy"]
    capsys.readouterr()

    assert main(["report", str(out), "--bootstrap", "50"]) == 0
    after = json.loads((out / "suite.json").read_text())["table1"]
    assert after["standard_10"]["by_mode"]["direct"]["value"] == 0.0, "the re-scored results.json, not the old suite.json"
    assert after["standard_10"]["mode"] == "cot" and after["standard_10"]["value"] == cot
    assert after["overall"]["value"] == (cot + after["vision"]["value"]) / 2
    assert after["delta_1"]["value"] == cot - after["standard_4"]["value"]
    assert after["delta_2"]["value"] == after["vision"]["value"] - cot
    assert after["vision"] == before["vision"] and after["standard_4"] == before["standard_4"], "the other runs are as they were"


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
