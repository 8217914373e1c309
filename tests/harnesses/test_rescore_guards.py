"""Plausibility guards: a misread file gets a warning naming the cause, a file read right gets none."""

from __future__ import annotations

import json
from pathlib import Path

from mmmu_eval.cli.main import main
from mmmu_eval.harnesses.guards import answer_shape
from mmmu_eval.harnesses.read import rescore

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_tools"


def test_answer_shapes():
    assert answer_shape("so the answer is \\boxed{C}") == "\\boxed{X}"
    assert answer_shape(" (B) ") == "a lone letter"
    assert answer_shape("Reasoning...\nAnswer: D") == "an 'Answer: X' line"
    assert answer_shape("I cannot tell from the image.") is None
    assert answer_shape("") is None and answer_shape(None) is None


def test_boxed_answers_under_the_official_parser_are_called_a_misread(capsys):
    folder = REAL / "vf04_mmmu_pro_vision"
    (warning,) = rescore(folder, data="sample", parsers=("official",)).warnings
    assert warning.startswith("9 of the 9 random fallbacks of the official parser (38% of the answers)")
    assert "9 with \\boxed{X}" in warning and "rescore with --parser boxed" in warning
    assert rescore(folder, data="sample").warnings == ()  # its own prompt's parser heads: read right
    assert main(["rescore", str(folder), "--data", "sample", "--parser", "official"]) == 0
    assert "WARNING: 9 of the 9 random fallbacks" in capsys.readouterr().out


def test_golds_outside_the_options_are_called_a_misread(fidelity, tmp_path):
    """A 2024 ten-option file with its type column gone and the ten-option gold put in ``answer``:
    the options left are the original 2 to 9, and many golds lie beyond them."""
    rows = [json.loads(line) for line in
            (fidelity / "mmmu-pro-2024" / "gpt-4o-2024-08-06_direct_Standard(10opts).jsonl").read_text().splitlines()]
    for row in rows:
        row["answer"] = row.pop("shuffled_options_answer")
        del row["type"], row["shuffled_options"]
    path = tmp_path / "outputs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    warnings = rescore(path).warnings
    assert any("have a gold letter that is not among their options" in w for w in warnings)
    doc = tmp_path / "doc.json"
    assert main(["rescore", str(path), "--json", str(doc)]) == 0
    assert json.loads(doc.read_text())["warnings"] == list(warnings)


def test_one_malformed_row_is_a_problem_not_a_misread_file(fidelity):
    result = rescore(fidelity / "mmmu-pro" / "gpt-4o_vision_cot.jsonl")
    assert result.warnings == () and any("validation_Accounting_29" in p for p in result.problems)


def test_warnings_failures_and_the_parser_reach_results_json_and_the_page(tmp_path, capsys):
    folder = REAL / "vf04_mmmu_pro_vision"
    run = tmp_path / "run"
    assert main(["rescore", str(folder), "--data", "sample", "--parser", "official", "--out", str(run),
                 "--no-images"]) == 0
    section = json.loads((run / "results.json").read_text())["harness"]
    assert section["parser"] == "official" and len(section["warnings"]) == 1
    page = (run / "report.html").read_text()
    assert "Warning: 9 of the 9 random fallbacks" in page and "the official parser on the same items" in page
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    assert "WARNING: 9 of the 9 random fallbacks" in capsys.readouterr().out
    boxed = tmp_path / "boxed"
    assert main(["rescore", str(folder), "--data", "sample", "--out", str(boxed), "--no-images"]) == 0
    assert "the boxed parser on the same items" in (boxed / "report.html").read_text()
    assert json.loads((boxed / "results.json").read_text())["harness"]["warnings"] == []


def test_the_page_counts_named_failures():
    from mmmu_eval.rendering.html_harness import harness_html

    section = {"name": "official-mmmu-pro", "n": 0, "parser": "official",
               "failures": {"harness_error": {"count": 8, "items": {"test_History_134": "Invalid operation"}},
                            "empty": {"count": 0, "items": {}}}}
    page = harness_html(section)
    assert "harness_error: 8 row(s) where the harness recorded a failure" in page
    assert "test_History_134: Invalid operation" in page and "empty:" not in page
