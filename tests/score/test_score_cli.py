"""The ``score`` and ``rescore`` commands, end to end through ``mmmu-eval``'s main()."""

from __future__ import annotations

import json
import re

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.records import Response


@pytest.fixture
def sample_run(tmp_path):
    """A run directory on the bundled MMMU sample: odd items answer (A), even ones ramble, one failed."""
    from mmmu_eval.dataset.load import load_dataset
    from mmmu_eval.store.rundir import RunStore

    items = load_dataset("mmmu", split="validation", data="sample").items
    manifest = {"config": {"model": "scripted", "benchmark": "mmmu", "split": "validation", "data": "sample"}}
    store = RunStore.open(tmp_path / "run", manifest, resume=False)
    for i, item in enumerate(items):
        if i == 3:
            store.append(Response(item.id, "error", "", error="server gave up"))
        else:
            store.append(Response(item.id, "ok", "The answer is (A)" if i % 2 else "Answer: A"))
    store.close()
    return tmp_path / "run", items


def test_score_writes_predictions_and_results_and_prints_each_parser(sample_run, capsys):
    run_dir, items = sample_run
    assert main(["score", str(run_dir), "--parser", "official", "--parser", "strict", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    # Both texts give the official parser the letter A; strict reads only "Answer: A" (even items).
    # No open answer of the sample is "a", so only multiple-choice items with gold A are right.
    mc_a = [i for i, it in enumerate(items) if i != 3 and it.question_type == "multiple-choice" and it.answer == "A"]
    official, strict = len(mc_a), sum(1 for i in mc_a if i % 2 == 0)
    assert 0 < strict < official
    assert re.search(rf"^official +{official} +39 +{official / 39:.4f} ", out, re.M), out
    assert re.search(rf"^strict +{strict} +39 +{strict / 39:.4f} ", out, re.M), out
    assert "items 40: scored 39, errors 1, missing 0" in out
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == len(items)  # 39 scored + 1 failed
    assert all(set(r) == {"id", "response", "pred"} for r in rows)
    results = json.loads((run_dir / "results.json").read_text())
    assert results["coverage"]["errors"] == 1
    assert set(results["parsers"]) == {"official", "strict"}


def test_score_refuses_an_unknown_parser(sample_run, capsys):
    run_dir, _ = sample_run
    with pytest.raises(SystemExit):
        main(["score", str(run_dir), "--parser", "lenient"])


def test_rescore_writes_the_json_document(tmp_path, capsys):
    rows = [{"id": "test_Art_1", "options": "['x', 'y']", "answer": "A", "response": "Answer: A"},
            {"id": "test_Art_2", "options": "['x', 'y']", "answer": "B", "response": {"error": "x"}}]
    src = tmp_path / "m_vision_direct.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.json"
    assert main(["rescore", str(src), "--format", "official-mmmu-pro", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["overall"]["total"] == 2 and doc["fallbacks"] == 1
    assert "Accuracy:" in capsys.readouterr().out


def test_rescore_a_missing_folder_is_one_error_line(tmp_path, capsys):
    assert main(["rescore", str(tmp_path / "nope"), "--format", "official-mmmu"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_rescore_reproduces_the_official_qwen_vl_number_from_the_command_line(fidelity, tmp_path, capsys):
    out = tmp_path / "qwen.json"
    assert main(["rescore", str(fidelity / "mmmu" / "qwen_vl"), "--format", "official-mmmu", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["overall"]["correct"], doc["overall"]["total"], doc["fallbacks"]) == (325, 900, 48)
    assert "Overall                                       900  0.361" in capsys.readouterr().out



def test_score_on_a_run_without_responses_lists_every_item_as_missing(tmp_path, capsys):
    from mmmu_eval.store.rundir import RunStore

    manifest = {"config": {"model": "scripted", "benchmark": "mmmu", "split": "validation", "data": "sample"}}
    RunStore.open(tmp_path / "run", manifest, resume=False).close()
    assert main(["score", str(tmp_path / "run"), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "scored 0" in out and "missing 40" in out


def test_score_summary_for_test_split_predictions(make_item, response):
    """Test-split items have no gold: the summary counts predictions and fallbacks, not accuracy."""
    from mmmu_eval.cli.score import summary_lines
    from mmmu_eval.score.scorer import score_responses

    items = [make_item("test_Art_1", None), make_item("test_Art_2", None)]
    responses = {"test_Art_1": response("test_Art_1", "(A)"), "test_Art_2": response("test_Art_2", "no idea, sorry")}
    lines = summary_lines(score_responses(items, responses), len(items), 5)
    assert any("2 predictions without a gold answer (test split; 1 of them fallbacks)" in line for line in lines)
    assert not any(line.startswith("parser ") for line in lines)


@pytest.mark.parametrize(
    "manifest_extra",
    [{"protocol": {"mode": "boxed"}}, {}],
    ids=["protocol-mode", "config-prompt-only"],
)
def test_score_of_a_boxed_run_defaults_to_boxed_then_official(tmp_path, capsys, manifest_extra):
    """A run asked with --prompt boxed is scored the way it asked, the official parser beside it."""
    from mmmu_eval.dataset.load import load_dataset
    from mmmu_eval.store.rundir import RunStore

    items = load_dataset("mmmu", split="validation", data="sample").items
    config = {"model": "scripted", "benchmark": "mmmu", "split": "validation", "data": "sample", "prompt": "boxed"}
    store = RunStore.open(tmp_path / "run", {"config": config, **manifest_extra}, resume=False)
    for item in items:
        store.append(Response(item.id, "ok", "Reasoning... \\boxed{B}"))
    store.close()
    assert main(["score", str(tmp_path / "run"), "--bootstrap", "0"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert list(results["parsers"]) == ["boxed", "official"]
    predictions = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    mc = {it.id for it in items if it.question_type == "multiple-choice"}
    assert {p["pred"] for p in predictions if p["id"] in mc} == {"B"}
    assert main(["score", str(tmp_path / "run"), "--parser", "strict", "--bootstrap", "0"]) == 0
    assert list(json.loads((tmp_path / "run" / "results.json").read_text())["parsers"]) == ["strict"]


@pytest.mark.parametrize(
    ("mode", "parsers"),
    [("boxed", ("boxed", "official")), ("direct", ("official",)), ("cot", ("official",)), ("ocr", ("official",)), (None, ("official",))],
)
def test_default_parsers_follow_the_prompt_mode(mode, parsers):
    from mmmu_eval.score.judge import default_parsers

    assert default_parsers(mode) == parsers
