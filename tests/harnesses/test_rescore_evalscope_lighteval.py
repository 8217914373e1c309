"""rescore on what EvalScope 1.14.1 and lighteval 0.13.0 wrote (tests/fixtures/real_tools, made by
scripts/make_real_tool_fixtures.py, offline against the fake server on the bundled sample).

The harness figures asserted are the tools' own: each row's verdict as its file records it, and
the accuracy of its report. Ours were checked by hand on the rows that differ:

- EvalScope, MMMU (40 items): official 7/40, EvalScope 6/40 (its report: 0.15). Three differ, each a
  random letter on the official side: validation_Computer_Science_4 ``\\boxed{A}`` (EvalScope takes
  the last capital, A, right; the official parser finds no letter and draws C), Economics_3
  ``\\boxed{D}`` (EvalScope D, wrong; official draws B, right), Math_3 ``The answer is (D).`` with
  three options (EvalScope: D is no option, nothing, wrong; official draws A, right).
- lighteval, standard-4 (24): official 10/24, lighteval 5/24 (its results: 0.2083).
  validation_Accounting_29 ``\\boxed{C}``: lighteval takes the lone C, official B (right).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.harnesses.read import rescore
from mmmu_eval.harnesses.readers import detect

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_tools"
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "mmmu_eval" / "sample_data"


def _run(name: str) -> Path:
    (run,) = (REAL / name).iterdir()  # EvalScope's <timestamp> folder
    return run


def _evalscope_verdicts(name: str) -> dict[str, bool]:
    out = {}
    for file in (_run(name) / "reviews" / "fake-model").glob("*.jsonl"):
        for line in file.read_text().splitlines():
            score = json.loads(line)["sample_score"]
            out[score["sample_metadata"]["id"]] = score["score"]["value"]["accuracy"] == 1.0
    return out


# -- EvalScope ------------------------------------------------------------------------------------

def test_an_evalscope_mmmu_run_rescores_with_its_own_verdicts_beside():
    result = rescore(REAL / "evalscope_mmmu", data="sample")
    assert result.format == "evalscope" and "EvalScope reviews" in result.detected
    assert result.dataset.benchmark == "mmmu" and result.dataset.split == "validation"
    assert len(result.items) == 40 and not result.missing and not result.unjoined and not result.problems
    assert {k: v.correct for k, v in result.harness.items()} == _evalscope_verdicts("evalscope_mmmu")
    report = json.loads((_run("evalscope_mmmu") / "reports" / "fake-model" / "mmmu.json").read_text())
    explanation = result.explanation
    assert explanation.harness_correct / explanation.graded == pytest.approx(report["metrics"][0]["score"]) == 0.15
    assert result.source.recorded.accuracy == pytest.approx(0.15) and result.source.recorded.n == 40
    assert result.scoring.aggregates["official"].overall.correct == 7
    assert {(d.id, d.cause, d.harness_pred, d.official_pred) for d in explanation.differences} == {
        ("validation_Computer_Science_4", "fallback", "A", "C"),
        ("validation_Economics_3", "fallback", "D", "B"),
        ("validation_Math_3", "fallback", None, "A"),
    }
    assert any("options come from the data" in n for n in result.notes)


@pytest.mark.parametrize("where", [".", "reviews/fake-model", "reviews/fake-model/mmmu_Art.jsonl"])
def test_an_evalscope_run_reads_from_any_of_its_folders_or_one_file(where):
    result = rescore(_run("evalscope_mmmu") / where, data="sample")
    if where.endswith(".jsonl"):
        assert [it.id for it in result.items] == [f"validation_Art_{n}" for n in (1, 2, 3, 4)]
        assert not result.missing  # one subject's file covers that subject
    else:
        assert len(result.items) == 40


@pytest.mark.parametrize("name,setting,how", [
    ("evalscope_mmmu_pro_standard4", "standard-4", "its dataset_format"),  # the default, recorded resolved
    ("evalscope_mmmu_pro_standard10", "standard-10", "its dataset_format"),
    ("evalscope_mmmu_pro_vision", "vision", "its dataset_format"),
])
def test_the_mmmu_pro_setting_comes_from_evalscope_s_task_config(name, setting, how):
    result = rescore(REAL / name, data="sample")
    assert result.dataset.benchmark == "mmmu-pro" and result.dataset.setting == setting
    assert any(f"MMMU-Pro {setting}, as task_config.yaml says ({how}" in n for n in result.notes)
    assert {k: v.correct for k, v in result.harness.items()} == _evalscope_verdicts(name)
    recorded = json.loads((_run(name) / "reports" / "fake-model" / "mmmu_pro.json").read_text())["metrics"][0]["score"]
    assert result.explanation.harness_correct / result.explanation.graded == pytest.approx(recorded, abs=1e-4)


@pytest.mark.parametrize("name,setting,evidence", [
    ("evalscope_mmmu_pro_vision", "vision", "every prompt is EvalScope's vision prompt"),
    ("evalscope_mmmu_pro_standard10", "standard-10", "offer ten options"),
    ("evalscope_mmmu_pro_standard4", "standard-4", "offers nine or more options"),
])
def test_without_its_task_config_the_setting_comes_from_the_prompts(tmp_path, name, setting, evidence):
    shutil.copytree(_run(name) / "reviews", tmp_path / "run" / "reviews")
    result = rescore(tmp_path / "run", data="sample")
    assert result.dataset.setting == setting
    assert any(evidence in n for n in result.notes)


def test_too_few_standard_rows_without_a_task_config_are_refused_with_the_evidence(tmp_path):
    (tmp_path / "reviews" / "m").mkdir(parents=True)
    shutil.copy(_run("evalscope_mmmu_pro_standard4") / "reviews" / "fake-model" / "mmmu_pro_Accounting.jsonl",
                tmp_path / "reviews" / "m")
    with pytest.raises(ConfigError, match=r"does not say which MMMU-Pro setting .*no configs/task_config.yaml.*"
                                          r"offer .*option\(s\).*pass setting='standard-10'"):
        rescore(tmp_path, data="sample")
    assert rescore(tmp_path, data="sample", setting="standard-4").dataset.setting == "standard-4"


def test_evalscope_reviews_of_another_benchmark_are_refused_naming_it(tmp_path):
    (tmp_path / "reviews" / "m").mkdir(parents=True)
    shutil.copy(_run("evalscope_mmmu") / "reviews" / "fake-model" / "mmmu_Art.jsonl",
                tmp_path / "reviews" / "m" / "gsm8k_main.jsonl")
    with pytest.raises(ConfigError, match=r"these name the benchmark 'gsm8k_main', which is not MMMU or MMMU-Pro"):
        rescore(tmp_path, data="sample", benchmark="mmmu")


def test_detect_names_an_evalscope_review_file():
    file = _run("evalscope_mmmu") / "reviews" / "fake-model" / "mmmu_Art.jsonl"
    assert detect(file)[0] == "evalscope"


# -- lighteval ------------------------------------------------------------------------------------

def _details(setting: str) -> Path:
    (file,) = (REAL / f"lighteval_{setting}").rglob("details_*.parquet")
    return file


def _lighteval_rows(setting: str) -> list[dict]:
    return pq.read_table(_details(setting), columns=["doc.id", "doc.specific", "metric"]).to_pylist()


@pytest.mark.parametrize("setting,expected", [("standard4", "standard-4"), ("standard10", "standard-10"), ("vision", "vision")])
def test_a_lighteval_details_file_rescores_with_its_own_verdicts(setting, expected):
    result = rescore(REAL / f"lighteval_{setting}", data="sample")
    assert result.format == "lighteval" and result.dataset.setting == expected
    rows = _lighteval_rows(setting)
    assert len(result.items) == len(rows) and not result.unjoined
    own = sorted(r["metric"]["extractive_match"] == 1.0 for r in rows)
    assert sorted(v.correct for v in result.harness.values()) == own
    recorded = json.loads(next((REAL / f"lighteval_{setting}").rglob("results_*.json")).read_text())
    accuracy = next(iter(recorded["results"].values()))["extractive_match"]
    assert result.source.recorded.accuracy == pytest.approx(accuracy)
    assert result.explanation.harness_correct / result.explanation.graded == pytest.approx(accuracy)


def test_lighteval_standard4_figures_and_the_letter_difference():
    result = rescore(_details("standard4"), data="sample")
    assert result.scoring.aggregates["official"].overall.correct == 10 and result.explanation.harness_correct == 5
    by_id = {d.id: d for d in result.explanation.differences}
    assert (by_id["validation_Accounting_29"].cause, by_id["validation_Accounting_29"].harness_pred) == ("letter", "C")


def test_the_standard10_run_lacks_the_row_lighteval_crashes_on():
    """lighteval 0.13.0 crashes on validation_Accounting_29 (nested options); the fixture was made
    without it, and rescore says that item has no row."""
    assert rescore(REAL / "lighteval_standard10", data="sample").missing == ("validation_Accounting_29",)


def test_a_renamed_lighteval_file_still_says_its_setting_in_its_rows(tmp_path):
    for setting, expected in (("standard4", "standard-4"), ("standard10", "standard-10")):
        shutil.copy(_details(setting), tmp_path / f"{setting}.parquet")
        result = rescore(tmp_path / f"{setting}.parquet", data="sample")
        assert result.format == "lighteval" and result.dataset.setting == expected


def test_lighteval_vision_rows_are_read_by_position_only_after_checking_their_options():
    result = rescore(REAL / "lighteval_vision", data="sample")
    assert all(isinstance(r.key, int) for r in result.source.rows)  # no ids in the file
    assert any("checked against the data" in n for n in result.notes)
    positions = {int(r["id"]): r for r in _lighteval_rows("vision")}
    vision = pq.read_table(SAMPLE / "MMMU_Pro" / "vision" / "test-00000-of-00001.parquet", columns=["id"]).to_pylist()
    assert {it.id for it in result.items} == {vision[p]["id"] for p in positions}


def test_lighteval_vision_rows_against_other_data_are_refused(tmp_path):
    """Data of another order (another revision): the positions point at other items, whose options
    differ, so the file is refused rather than scored against the wrong items."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    vision = data / "MMMU_Pro" / "vision" / "test-00000-of-00001.parquet"
    table = pq.read_table(vision)
    pq.write_table(table.take(list(reversed(range(table.num_rows)))), vision)
    with pytest.raises(DataError, match=r"name no item, only a position.*no position can be trusted; nothing scored"):
        rescore(REAL / "lighteval_vision", data=data)


def test_a_lighteval_file_of_another_task_is_refused_naming_it(tmp_path):
    table = pq.read_table(_details("standard4"))
    rows = table.to_pylist()
    for row in rows:
        row["doc"]["task_name"] = "gpqa:diamond|0"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), tmp_path / "details_gpqa:diamond|0_x.parquet")
    with pytest.raises(ConfigError, match=r"'gpqa:diamond', which is not MMMU or MMMU-Pro"):
        rescore(tmp_path / "details_gpqa:diamond|0_x.parquet", data="sample")


# -- binary files under the wrong reader (issue 42) -----------------------------------------------

def test_a_parquet_under_another_format_names_its_type_and_the_right_format():
    with pytest.raises(DataError, match=r"an Apache Parquet file with columns doc, .*which format='jsonl' does not "
                                        r"read; it looks like format='lighteval'"):
        rescore(_details("vision"), format="jsonl", data="sample")


def test_a_parquet_no_reader_knows_is_named_not_called_non_text():
    with pytest.raises(DataError, match=r"an Apache Parquet file with columns id, image, options.*format='auto' recognises no"):
        rescore(SAMPLE / "MMMU_Pro" / "vision" / "test-00000-of-00001.parquet", data="sample")


def test_an_xlsx_no_reader_knows_is_named_an_excel_workbook(tmp_path):
    from fakes.harness_outputs import write_xlsx

    path = write_xlsx(tmp_path / "notes.xlsx", ["name", "score"], [["a", 1]])
    with pytest.raises(DataError, match=r"an Excel workbook \(.xlsx\) whose first sheet has columns name, score"):
        rescore(path, data="sample")
    with pytest.raises(DataError, match=r"an Excel workbook .*which format='lmms-eval' does not read"):
        rescore(path, format="lmms-eval", data="sample")
