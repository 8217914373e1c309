"""`mmmu-eval rescore` keeps the README's promises on real official files, unconverted or damaged.

- a row whose response is not text is a ``harness_error`` with the harness's message; an empty
  response is ``empty``: counted in the terminal, the --json document and results.json;
- a file without a column its format needs is one error naming it, whatever --format;
- a file of fewer rows than its setting has, or cut short, says PARTIAL and exits 1 unless --partial;
- a binary or non-UTF-8 file is one line naming the problem, never a traceback.
"""

from __future__ import annotations

import json

import pytest

from mmmu_eval.cli.main import main

GEMINI_VISION = "gemini-1.5-pro-exp-0801_direct_Vision.jsonl"  # 8 rows hold the API's error object
INTERNVL_10 = "InternVL2-40B_direct_Standard(10opts).jsonl"  # 101 empty responses
TODAY = "gpt-4o_vision_cot.jsonl"


def test_harness_errors_are_named_with_their_message_and_counted_everywhere(fidelity, tmp_path, capsys):
    source = fidelity / "mmmu-pro-2024" / GEMINI_VISION
    out, doc = tmp_path / "run", tmp_path / "scores.json"
    assert main(["rescore", str(source), "--out", str(out), "--no-html", "--json", str(doc)]) == 0
    printed = capsys.readouterr().out
    assert "harness_error: 8 row(s) where the harness recorded a failure" in printed
    assert "Invalid operation: The `response.text` quick accessor" in printed
    failures = json.loads(doc.read_text())["failures"]
    assert failures["harness_error"]["count"] == 8 and failures["empty"]["count"] == 0
    assert all("response" in message for message in failures["harness_error"]["items"].values())
    results = json.loads((out / "results.json").read_text())
    assert results["harness"]["failures"]["harness_error"]["count"] == 8
    # Scored as the official evaluate.py scored them: the official figure is unchanged.
    assert (results["overall"]["n"], results["overall"]["correct"], results["setting"]) == (1730, 702, "vision")
    assert main(["report", str(out)]) == 0
    assert "harness_error: 8 row(s)" in capsys.readouterr().out


def test_empty_responses_are_named(fidelity, tmp_path, capsys):
    doc = tmp_path / "scores.json"
    assert main(["rescore", str(fidelity / "mmmu-pro-2024" / INTERNVL_10), "--json", str(doc)]) == 0
    assert "empty: 101 row(s) where the response is empty" in capsys.readouterr().out
    failures = json.loads(doc.read_text())["failures"]
    assert (failures["empty"]["count"], failures["harness_error"]["count"]) == (101, 0)


@pytest.mark.parametrize("column", ["options", "response", "answer"])
@pytest.mark.parametrize("format", ["auto", "official-mmmu-pro"])
def test_a_missing_column_is_one_error_naming_it(fidelity, tmp_path, capsys, column, format):
    rows = [json.loads(line) for line in (fidelity / "mmmu-pro" / TODAY).read_text().splitlines()]
    path = tmp_path / "gpt-4o_vision_cot.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != column}) + "\n" for r in rows))
    assert main(["rescore", str(path), "--format", format]) == 1
    captured = capsys.readouterr()
    assert f"an official-mmmu-pro file without its {column!r} column" in captured.err
    assert "Accuracy" not in captured.out and len(captured.err.strip().splitlines()) == 1


def test_a_file_of_ten_rows_is_partial(fidelity, tmp_path, capsys):
    lines = (fidelity / "mmmu-pro" / TODAY).read_text().splitlines(keepends=True)
    path = tmp_path / "gpt-4o_vision_cot.jsonl"
    path.write_text("".join(lines[:10]))
    assert main(["rescore", str(path)]) == 1
    captured = capsys.readouterr()
    assert "PARTIAL: 1720 of the 1730 item(s) have no row" in captured.out
    assert "pass --partial" in captured.err
    assert main(["rescore", str(path), "--partial"]) == 0


def test_a_file_cut_in_the_middle_of_a_row_is_partial(fidelity, tmp_path, capsys):
    data = (fidelity / "mmmu-pro-2024" / GEMINI_VISION).read_bytes()
    path = tmp_path / GEMINI_VISION
    path.write_bytes(data[: len(data) // 2])
    assert main(["rescore", str(path), "--out", str(tmp_path / "run"), "--no-html"]) == 1
    captured = capsys.readouterr()
    assert "PARTIAL:" in captured.out and "the last line is cut short" in captured.out
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "incomplete"


@pytest.mark.parametrize("content", [bytes(range(256)) * 40, '{"id": "test_Art_1", "response": "café"}\n'.encode("latin-1")],
                         ids=["binary", "latin-1"])
@pytest.mark.parametrize("format", ["auto", "official-mmmu-pro", "jsonl", "lmms-eval", "verifiers", "inspect", "vlmevalkit"])
def test_an_unreadable_file_is_one_line_never_a_traceback(tmp_path, capsys, content, format):
    path = tmp_path / "outputs.jsonl"
    path.write_bytes(content)
    assert main(["rescore", str(path), "--format", format, "--data", "sample"]) in (1, 2)
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("error: ") and str(path) in err
    assert "utf-8" in err.lower()  # it names the problem: the file is not UTF-8 text
