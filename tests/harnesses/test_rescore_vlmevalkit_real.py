"""rescore on what VLMEvalKit (ms-vlmeval 0.0.20, its PyPI packaging) wrote for MMMU_DEV_VAL on the
bundled sample (tests/fixtures/real_tools, made by scripts/make_real_tool_fixtures.py):

- ``vlmevalkit_xlsx``: the default run, exact matching: predictions, ``_exact_matching_result.xlsx``
  (``hit``, ``log``) and ``_acc.csv``;
- ``vlmevalkit_json``: ``PRED_FORMAT=json``: the predictions as a JSON list (empty cells ``NaN``);
  VLMEvalKit's own evaluation of it fails (EVALUATION.txt), so no verdicts;
- ``vlmevalkit_verifier``: ``--use-verifier``: ``_detailed_results.xlsx`` (``verifier_score``) and the
  verifier's ``_acc.csv`` (percent), with a stand-in verifier model (noise verdicts, real format);
- ``vlmevalkit_detailed_json``: those detailed results as PRED_FORMAT=json names them, written by
  VLMEvalKit's own ``dump`` (its json run crashes before writing them).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import DataError
from mmmu_eval.harnesses.read import rescore
from mmmu_eval.harnesses.readers import detect
from mmmu_eval.harnesses.readers.vlmevalkit import read_table

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_tools"
STEM = "fake-model_MMMU_DEV_VAL"


def _file(run: str, suffix: str) -> Path:
    return REAL / run / "fake-model" / f"{STEM}{suffix}"


def test_the_real_xlsx_run_gives_vlmevalkit_s_own_hits_and_accuracy():
    result = rescore(_file("vlmevalkit_xlsx", ".xlsx"), data="sample")
    _, table = read_table(_file("vlmevalkit_xlsx", "_exact_matching_result.xlsx"))
    hits = {cells["id"]: cells["hit"] == "1" for _, cells in table if cells["split"] == "validation"}
    assert {k: v.correct for k, v in result.harness.items()} == hits and len(hits) == 40
    with _file("vlmevalkit_xlsx", "_acc.csv").open() as fh:
        overall = next(float(r["Overall"]) for r in csv.DictReader(fh) if r["split"] == "validation")
    assert result.source.recorded.accuracy == pytest.approx(overall) == pytest.approx(9 / 40)
    assert result.explanation.harness_correct == 9 and result.scoring.aggregates["official"].overall.correct == 7


def test_a_json_prediction_file_is_recognised_and_read():
    path = _file("vlmevalkit_json", ".json")
    assert detect(path) == ("vlmevalkit", "a table with index and prediction columns")
    result = rescore(path, data="sample")
    assert len(result.items) == 40 and not result.unjoined and not result.problems
    raw = {row["id"]: row["prediction"] for row in json.loads(path.read_text()) if row["split"] == "validation"}
    assert {k: r.text for k, r in result.responses.items()} == raw
    assert result.harness == {} and result.explanation.graded == 0
    # Its empty option cells are JSON NaN: an open question's row has no options, only its question.
    (open_row,) = [r for r in result.source.rows if r.key == "validation_Accounting_1"]
    assert open_row.content == ("<image 1> What is the total of the Amount column in the table?",)
    assert any("PRED_FORMAT=json predictions fails" in n for n in result.notes)
    # The same responses as the xlsx run of the same server: the same official verdicts.
    xlsx = rescore(_file("vlmevalkit_xlsx", ".xlsx"), data="sample")
    assert result.to_json()["items"] == xlsx.to_json()["items"]


def test_format_vlmevalkit_on_a_json_file_that_is_not_its_rows_says_what_it_is(capsys):
    log = REAL / "inspect_mmmu_multiple_choice.json"
    with pytest.raises(DataError, match=r"a JSON dict with keys version, status, .*not a list of rows; expected "
                                        r"VLMEvalKit's JSON rows"):
        rescore(log, format="vlmevalkit", data="sample")
    assert main(["rescore", str(log), "--format", "vlmevalkit", "--data", "sample"]) == 1
    assert "its columns are [" not in capsys.readouterr().err


@pytest.mark.parametrize("run,suffix", [("vlmevalkit_verifier", ".xlsx"), ("vlmevalkit_verifier", "_detailed_results.xlsx"),
                                        ("vlmevalkit_detailed_json", "_detailed_results.json")])
def test_detailed_results_give_the_verifier_s_verdicts(run, suffix):
    path = _file(run, suffix)
    result = rescore(path, data="sample")
    _, table = read_table(_file(run if "json" in run else "vlmevalkit_verifier", "_detailed_results." + suffix.rsplit(".", 1)[1]))
    own = {cells["id"]: cells["verifier_score"] == "True" for _, cells in table if cells["split"] == "validation"}
    assert {k: v.correct for k, v in result.harness.items()} == own and len(own) == 40
    assert all(v.judge for v in result.harness.values())
    assert {d.cause for d in result.explanation.differences} <= {"judge"}
    assert any("verifier model" in n for n in result.notes)
    if run == "vlmevalkit_verifier":
        with _file(run, "_acc.csv").open() as fh:
            row = next(r for r in csv.DictReader(fh) if r["Category"] == "validation")
        assert result.source.recorded.accuracy == pytest.approx(float(row["Accuracy"]) / 100)
        assert result.source.recorded.n == int(row["Total"]) == 40


def test_the_verifier_s_accuracy_file_is_in_percent(tmp_path):
    """Its verifier scored every row wrong (0.0 either way), so the percent is checked on a copy
    whose validation Accuracy is set to 25.0."""
    import shutil

    for file in _file("vlmevalkit_verifier", ".xlsx").parent.glob(f"{STEM}*"):
        shutil.copy(file, tmp_path / file.name)
    acc = tmp_path / f"{STEM}_acc.csv"
    lines = acc.read_text().splitlines()
    acc.write_text("\n".join(line.replace('"0.0"', '"25.0"') if line.startswith('"validation"') else line
                             for line in lines) + "\n")
    assert rescore(tmp_path / f"{STEM}.xlsx", data="sample").source.recorded.accuracy == pytest.approx(0.25)
