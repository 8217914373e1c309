"""rescore on files the real tools wrote (tests/fixtures/real_tools, made by scripts/make_real_tool_fixtures.py).

- ``inspect_mmmu_multiple_choice.eval``: inspect_ai 0.3.285 running inspect_evals 0.26.0's own
  ``mmmu_multiple_choice`` on the sample's Accounting, Art and Math validation items; every
  member of the archive is Zstandard-compressed (zip method 93), as current inspect_ai writes.
  ``.json`` is the same log written by Inspect in its other format.
- ``inspect_arithmetic.eval``: a real log of another task, which must be refused.
- ``vf03_mmmu_pro_vision/``: ``vf-eval mmmu-pro -a '{"mode": "vision", "data": "sample"}'`` of
  verifiers 0.3.1 with ``-s`` (``results.jsonl`` + ``metadata.json``; images cut out).
- ``vf04_mmmu_pro_vision/``: ``vf-eval mmmu-pro --env.taskset.mode vision`` of verifiers 0.4.0.

The figures asserted here are the tools' own (their logs' scores and means), not ours.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harnesses.readers import detect
from mmmu_eval.harnesses.read import rescore

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_tools"
EVAL = REAL / "inspect_mmmu_multiple_choice.eval"
#: What inspect_evals' choice scorer recorded in that log (value C or I), read off the log by hand.
INSPECT_VALUES = {
    "validation_Accounting_2": "I", "validation_Accounting_3": "C", "validation_Art_1": "C",
    "validation_Art_2": "I", "validation_Art_4": "I", "validation_Math_2": "I", "validation_Math_3": "I",
}


def test_the_inspect_fixture_is_zstandard_inside():
    """Pins that the fixture is what current inspect_ai writes (the issue: zipfile cannot read it)."""
    with zipfile.ZipFile(EVAL) as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}


@pytest.mark.parametrize("log", [EVAL, REAL / "inspect_mmmu_multiple_choice.json"], ids=["eval-zstd", "json"])
def test_a_real_inspect_log_of_inspect_evals_mmmu_rescores(log):
    result = rescore(log, data="sample")
    assert result.format == "inspect"
    assert [it.id for it in result.items] == list(INSPECT_VALUES)
    assert not result.unjoined and not result.problems and not result.missing  # its sample_ids, all there
    assert {k: v.correct for k, v in result.harness.items()} == {k: v == "C" for k, v in INSPECT_VALUES.items()}
    assert result.source.recorded.accuracy == pytest.approx(2 / 7)  # its results.scores[choice] accuracy
    assert result.source.task == "inspect_evals/mmmu_multiple_choice"
    assert result.responses["validation_Accounting_3"].text == "Let me look at the figure.\nANSWER: A"
    assert result.explanation.harness_correct == 2


def test_the_eval_and_json_logs_give_the_same_verdicts():
    a, b = rescore(EVAL, data="sample").to_json(), rescore(REAL / "inspect_mmmu_multiple_choice.json", data="sample").to_json()
    assert a["items"] == b["items"] and a["overall"] == b["overall"]


@pytest.mark.parametrize("benchmark", [None, "mmmu", "mmmu-pro"])
def test_a_real_inspect_log_of_another_task_is_refused_naming_it(benchmark):
    with pytest.raises(ConfigError, match=r"names the task 'arithmetic.*not MMMU or MMMU-Pro.*whatever --benchmark"):
        rescore(REAL / "inspect_arithmetic.eval", data="sample", benchmark=benchmark, setting="vision")


# -- verifiers ----------------------------------------------------------------------------------

def _means(run: Path) -> dict[str, float]:
    if (run / "metadata.json").is_file():
        return json.loads((run / "metadata.json").read_text())["avg_metrics"]
    episodes = [json.loads(line) for line in (run / "traces.jsonl").read_text().splitlines()]
    traces = [e["traces"][0] for e in episodes]
    return {
        "boxed_correct": sum(t["rewards"]["boxed_correct"]["score"] for t in traces) / len(traces),
        "official_correct": sum(t["metrics"]["official_correct"] for t in traces) / len(traces),
    }


@pytest.mark.parametrize("run", ["vf03_mmmu_pro_vision", "vf04_mmmu_pro_vision"])
def test_a_real_vf_eval_run_rescores_to_its_own_means(run):
    """The boxed accuracy is the run's mean reward and the deterministic official accuracy its
    mean official_correct, on the same 24 responses, under either verifiers release."""
    folder = REAL / run
    means = _means(folder)
    result = rescore(folder, data="sample", parsers=("boxed", "official"), fallback="none")
    assert result.format == "verifiers" and len(result.items) == 24 and not result.missing
    doc = result.to_json()
    assert doc["parsers"]["boxed"]["accuracy"] == pytest.approx(means["boxed_correct"])
    assert doc["parsers"]["official"]["accuracy"] == pytest.approx(means["official_correct"])
    assert {k: v.correct for k, v in result.harness.items()} == {
        k: v.correct for k, v in result.scoring.verdicts["boxed"].items()}


def test_a_vf_eval_run_cut_short_is_partial_and_exits_1_unless_partial(tmp_path, capsys):
    run = tmp_path / "cut"
    run.mkdir()
    lines = (REAL / "vf03_mmmu_pro_vision" / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text("".join(lines[:10]))
    assert main(["rescore", str(run), "--data", "sample"]) == 1
    captured = capsys.readouterr()
    assert "joined 10 row(s)" in captured.out and "14 of its 24 item(s) have no row" in captured.out
    assert "Accuracy:" in captured.out and "PARTIAL: 14 of the 24 item(s) have no row" in captured.out
    assert "pass --partial" in captured.err
    assert main(["rescore", str(run), "--data", "sample", "--partial"]) == 0
    kept = {json.loads(line)["info"]["id"] for line in lines[:10]}
    everything = {it.id for it in rescore(REAL / "vf03_mmmu_pro_vision", data="sample").items}
    assert set(rescore(run, data="sample").missing) == everything - kept and len(everything - kept) == 14


def test_detect_names_the_real_files():
    assert detect(EVAL) == ("inspect", "a .eval zip archive")
    assert detect(REAL / "vf03_mmmu_pro_vision")[0] == "verifiers"


# -- what is not an MMMU file, or is no file at all -------------------------------------------------
# Hand-made: the real tools of those benchmarks need their datasets from the hub.

@pytest.mark.parametrize("name,suffix", [
    ("out.jsonl", b""), ("log.eval", b""), ("GPT4o_MMMU_DEV_VAL.xlsx", b"  \n"), ("log.json", b"\n"),
    ("20250101_samples_mmmu_val.jsonl", b"\n\n"), ("GPT4o_MMMU_DEV_VAL.tsv", b""),
])
@pytest.mark.parametrize("fmt", ["auto", "named"])
def test_an_empty_file_says_it_is_empty_under_any_format(tmp_path, name, suffix, fmt):
    path = tmp_path / name
    path.write_bytes(suffix)
    named = {".jsonl": "jsonl", ".eval": "inspect", ".xlsx": "vlmevalkit", ".json": "inspect", ".tsv": "vlmevalkit"}
    with pytest.raises(Exception, match=r"the file is empty \((0 bytes|\d+ bytes of whitespace)\)"):
        rescore(path, data="sample", format="auto" if fmt == "auto" else named[path.suffix])


def test_an_empty_file_exits_1_with_that_message(tmp_path, capsys):
    path = tmp_path / "20250101_samples_mmmu_val.jsonl"
    path.write_text("")
    assert main(["rescore", str(path), "--data", "sample"]) == 1
    assert "the file is empty (0 bytes)" in capsys.readouterr().err


def test_a_vlmevalkit_file_without_its_prediction_column_names_the_column(tmp_path):
    from fakes.harness_outputs import write_tsv

    path = write_tsv(tmp_path / "GPT4o_MMMU_DEV_VAL.tsv", ["index", "question", "A", "B", "answer", "id", "split"],
                     [[0, "q", "x", "y", "A", "validation_Art_1", "validation"]])
    assert detect(path)[0] == "vlmevalkit"
    with pytest.raises(Exception, match=r"without its 'prediction' column \(its columns are index, question, A, B"):
        rescore(path, data="sample")


def test_a_jsonl_file_without_a_response_column_names_the_column(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"id": "validation_Art_1", "answer_text": "B"}) + "\n")
    with pytest.raises(Exception, match=r"without its 'response' column"):
        rescore(path, data="sample")


def test_an_lmms_eval_log_without_filtered_resps_names_the_column(tmp_path):
    path = tmp_path / "20250101_samples_mmmu_val.jsonl"
    path.write_text(json.dumps({"doc_id": 0, "target": "B", "mmmu_acc": {"id": "validation_Accounting_1"}}) + "\n")
    with pytest.raises(Exception, match=r"without its 'filtered_resps' column"):
        rescore(path, data="sample")


@pytest.mark.parametrize("benchmark", [None, "mmmu"])
def test_an_lmms_eval_log_of_mathvista_is_refused_naming_its_task(tmp_path, benchmark):
    """The file lmms-eval writes for ``--tasks mathvista_testmini``: its rows have doc_id and filtered_resps."""
    path = tmp_path / "20250101_120000_samples_mathvista_testmini.jsonl"
    rows = [{"doc_id": n, "target": "A", "filtered_resps": ["A"], "gpt_eval_score": {"true_false": True}} for n in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"task 'mathvista_testmini', which is not MMMU or MMMU-Pro"):
        rescore(path, data="sample", benchmark=benchmark)


@pytest.mark.parametrize("benchmark", [None, "mmmu"])
def test_a_vlmevalkit_file_of_another_dataset_is_refused_naming_it(tmp_path, benchmark):
    from fakes.harness_outputs import write_tsv

    path = write_tsv(tmp_path / "GPT4o_MathVista_MINI.tsv", ["index", "question", "answer", "prediction"],
                     [[0, "q", "2", "2"], [1, "r", "3", "4"]])
    with pytest.raises(ConfigError, match=r"'GPT4o_MathVista_MINI', which is not MMMU or MMMU-Pro"):
        rescore(path, data="sample", benchmark=benchmark)


def test_a_renamed_vlmevalkit_mmmu_file_is_still_read_by_its_ids(tmp_path):
    from fakes.harness_outputs import write_tsv

    path = write_tsv(tmp_path / "predictions.tsv", ["index", "question", "A", "B", "answer", "id", "prediction"],
                     [[0, "q", "x", "y", "A", "validation_Accounting_1", "A"]])
    assert rescore(path, data="sample", format="vlmevalkit", benchmark="mmmu").items[0].id == "validation_Accounting_1"


def test_a_verifiers_run_of_another_environment_is_refused_naming_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text(json.dumps({"example_id": 0, "completion": [{"role": "assistant", "content": "4"}],
                                                   "reward": 1.0, "info": {}}) + "\n")
    (run / "metadata.json").write_text(json.dumps({"env_id": "gsm8k", "model": "m", "avg_reward": 1.0}))
    with pytest.raises(ConfigError, match=r"names the environment 'gsm8k', which is not MMMU"):
        rescore(run, data="sample", benchmark="mmmu")


def test_a_verifiers_04_run_of_another_environment_is_refused_naming_it(tmp_path):
    """The real 0.4 episode with its env id changed to another environment's and its info emptied."""
    episode = json.loads((REAL / "vf04_mmmu_pro_vision" / "traces.jsonl").read_text().splitlines()[0])
    episode["env"] = {"id": "gsm8k"}
    episode["task"]["data"]["info"] = {}
    (tmp_path / "traces.jsonl").write_text(json.dumps(episode) + "\n")
    with pytest.raises(ConfigError, match=r"name the environment 'gsm8k', which is not MMMU"):
        rescore(tmp_path, data="sample", benchmark="mmmu-pro", setting="vision")


def test_a_partial_file_rescored_into_a_run_directory_is_incomplete_and_names_the_missing(tmp_path):
    from mmmu_eval.harnesses.write import write_rescored_run

    run = tmp_path / "cut"
    run.mkdir()
    lines = (REAL / "vf03_mmmu_pro_vision" / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text("".join(lines[:10]))
    result = rescore(run, data="sample")
    written = write_rescored_run(result, tmp_path / "out", html=False)
    manifest = json.loads((written.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "incomplete"
    assert sorted(manifest["rescored_from"]["missing"]) == sorted(result.missing) and len(result.missing) == 14


@pytest.mark.parametrize("run", ["vf03_mmmu_pro_vision", "vf04_mmmu_pro_vision"])
def test_a_vf_eval_run_is_headlined_by_the_parser_its_prompt_asks_for(run, capsys):
    """Its prompt asks for \\boxed{}: without --parser the boxed parser heads (the run's own mean
    reward), the official parser beside it, and every comparison line names the parser it used."""
    folder = REAL / run
    means = _means(folder)
    result = rescore(folder, data="sample")
    assert result.scoring.parsers == ("boxed", "official")
    assert result.scoring.aggregates["boxed"].overall.accuracy == pytest.approx(means["boxed_correct"])
    assert any("headline parser boxed" in note for note in result.notes)
    assert main(["rescore", str(folder), "--data", "sample"]) == 0
    out = capsys.readouterr().out
    assert "by the boxed parser" in out and "parser official: " in out
    assert "boxed parser on the same items" in out and "official on the same items" not in out
    # A parser named on the command line still decides.
    assert rescore(folder, data="sample", parsers=("official",)).scoring.parsers == ("official",)


@pytest.mark.parametrize("failure", [
    {"value": float("nan")},
    {"value": "I", "reason": "grader_failed"},
])
def test_an_inspect_sample_without_a_verdict_is_no_verdict_not_wrong(tmp_path, failure):
    """Inspect leaves a sample whose grader failed (NaN value, reason grader_failed) out of its
    accuracy: it is no verdict of the harness, never "the judge ruled wrong"."""
    log = json.loads((REAL / "inspect_mmmu_multiple_choice.json").read_text())
    sample = next(s for s in log["samples"] if s["id"] == "validation_Art_1")  # scored C in the real log
    sample["scores"]["choice"].update(failure)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    result = rescore(path, data="sample", parsers=("official",))
    assert result.harness["validation_Art_1"].correct is None
    assert "no verdict" in result.harness["validation_Art_1"].note
    section = result.explanation.to_json()
    assert section["without_verdict"] == 1 and section["n"] == 6
    assert "validation_Art_1" not in {d["id"] for d in section["items"]}
