"""``report --exclude-suspects``: the audited figure beside the official one, never instead of it."""

from __future__ import annotations

import json

import pytest

from auditing.conftest import response_files
from mmmu_eval.cli.main import main
from mmmu_eval.core.numbers import pct

GPT4O_10 = "gpt-4o-2024-08-06_direct_Standard(10opts).jsonl"


@pytest.fixture(scope="module")
def rescored_and_audit(pro_2024, tmp_path_factory):
    root = tmp_path_factory.mktemp("exclude")
    assert main(["rescore", str(pro_2024 / GPT4O_10), "--out", str(root / "gpt4o"), "--no-html"]) == 0
    files = [str(p) for p in response_files(pro_2024) if "Standard(4opts)" not in p.name]
    assert main(["audit", *files, "--json", str(root / "audit.json"), "--top", "0"]) == 0
    return root / "gpt4o", root / "audit.json"


def test_the_audited_figure_is_printed_beside_the_official_one(rescored_and_audit, capsys):
    run, audit_json = rescored_and_audit
    before = (run / "results.json").read_bytes()
    capsys.readouterr()
    assert main(["report", str(run), "--exclude-suspects", str(audit_json)]) == 0
    out = capsys.readouterr().out
    results = json.loads(before)
    flagged = {s["id"] for s in json.loads(audit_json.read_text())["suspects"] if s["flagged"]}
    kept = {k: v for k, v in results["verdicts"].items() if k not in flagged}
    right = sum(v["correct"] for v in kept.values())
    official = results["overall"]
    line = next(line for line in out.splitlines() if "set aside" in line)
    assert line.startswith(f"official {pct(official['accuracy'])}% ({official['correct']}/{official['n']})")
    assert f"with {len(results['verdicts']) - len(kept)} flagged suspects set aside" in line
    assert f"({right}/{len(kept)})" in line and str(audit_json) in line
    assert right / len(kept) > official["accuracy"]  # the flagged items are ones the runs "got wrong"
    assert (run / "results.json").read_bytes() == before  # the official figure is never replaced


def test_json_keeps_the_official_results_whole(rescored_and_audit, capsys, tmp_path):
    run, _ = rescored_and_audit
    ids = tmp_path / "ids.txt"
    ids.write_text("validation_Design_15  # corrected in 2026-07\nnot_an_item_1\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(run), "--exclude-suspects", str(ids), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    results = json.loads((run / "results.json").read_text())
    assert doc["runs"][str(run)] == results
    figure = doc["excluding_suspects"][str(run)]
    assert (figure["set_aside"], figure["listed"]) == (1, 2)
    assert figure["excluding_suspects"]["n"] == results["overall"]["n"] - 1


def test_a_file_that_is_no_audit_is_one_clear_error(rescored_and_audit, tmp_path, capsys):
    run, _ = rescored_and_audit
    bad = tmp_path / "bad.json"
    bad.write_text('{"runs": []}', encoding="utf-8")
    assert main(["report", str(run), "--exclude-suspects", str(bad)]) == 2
    assert "without an audit's 'suspects' list" in capsys.readouterr().err
