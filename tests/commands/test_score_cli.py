"""The ``score`` and ``rescore`` commands, end to end through ``mmmu-eval``'s main()."""

from __future__ import annotations

import json
import re

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.records import Response
from mmmu_eval.core.numbers import pct


@pytest.fixture
def sample_run(tmp_path):
    """A run directory on the bundled MMMU sample: odd items answer (A), even ones ramble, one failed."""
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.store.rundir import RunStore

    items = load_benchmark("mmmu", split="validation", data="sample").items
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
    assert main(["score", str(run_dir), "--parser", "official", "--parser", "strict", "--bootstrap", "0", "--save"]) == 0
    out = capsys.readouterr().out
    # Both texts give the official parser the letter A; strict reads only "Answer: A" (even items).
    # No open answer of the sample is "a", so only multiple-choice items with gold A are right.
    mc_a = [i for i, it in enumerate(items) if i != 3 and it.question_type == "multiple-choice" and it.answer == "A"]
    official, strict = len(mc_a), sum(1 for i in mc_a if i % 2 == 0)
    assert 0 < strict < official
    assert re.search(rf"^official +{official} +39 +{pct(official / 39, 2)}% ", out, re.M), out
    assert re.search(rf"^strict +{strict} +39 +{pct(strict / 39, 2)}% ", out, re.M), out
    assert "items 40: scored 39, errors 1, missing 0" in out
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == len(items)  # 39 scored + 1 failed
    assert all(set(r) == {"id", "response", "pred"} for r in rows)
    results = json.loads((run_dir / "results.json").read_text())
    assert results["coverage"]["errors"] == 1
    assert set(results["parsers"]) == {"official", "strict"}


def test_score_is_a_view_that_writes_nothing_without_save(sample_run, capsys):
    """What broke: ``score --parser strict`` re-recorded the run's scoring, so ``report`` then printed
    the strict figure for a run whose official figure was another, and nothing said so."""
    run_dir, _ = sample_run
    assert main(["score", str(run_dir), "--parser", "official", "--bootstrap", "0", "--save"]) == 0
    capsys.readouterr()
    files = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    assert main(["score", str(run_dir), "--parser", "strict", "--fallback", "none", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^strict +\d+ +39 ", out, re.M), out
    assert "a view: nothing written" in out
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == files  # manifest, results, predictions untouched

    before = json.loads((run_dir / "results.json").read_text())["overall"]["accuracy"]
    assert main(["score", str(run_dir), "--parser", "strict", "--bootstrap", "0", "--save"]) == 0
    out = capsys.readouterr().out
    assert f"replacing results.json: it said {pct(before)}% (parser official, fallback official)" in out
    assert "the run's scoring is now: parsers strict; fallback official (seed 42) (was: parsers official" in out
    assert json.loads((run_dir / "manifest.json").read_text())["scoring"]["parsers"] == ["strict"]


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
    assert main(["rescore", str(src), "--format", "official-mmmu-pro", "--partial", "--json", str(out)]) == 0
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
    from mmmu_eval.scoring.scorer import score_responses

    items = [make_item("test_Art_1", None), make_item("test_Art_2", None)]
    responses = {"test_Art_1": response("test_Art_1", "(A)"), "test_Art_2": response("test_Art_2", "no idea, sorry")}
    lines = summary_lines(score_responses(items, responses), len(items), 5)
    assert any("no gold answers for 2 predictions (1 of them unparsed): no accuracy" in line for line in lines)
    assert any("answer_dict_test.json" in line and "EvalAI" in line for line in lines)
    assert not any(line.startswith("parser ") for line in lines)


@pytest.mark.parametrize(
    "manifest_extra",
    [{"protocol": {"mode": "boxed"}}, {}],
    ids=["protocol-mode", "config-prompt-only"],
)
def test_score_of_a_boxed_run_defaults_to_boxed_then_official(tmp_path, capsys, manifest_extra):
    """A run asked with --prompt boxed is scored the way it asked, the official parser beside it."""
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.store.rundir import RunStore

    items = load_benchmark("mmmu", split="validation", data="sample").items
    config = {"model": "scripted", "benchmark": "mmmu", "split": "validation", "data": "sample", "prompt": "boxed"}
    store = RunStore.open(tmp_path / "run", {"config": config, **manifest_extra}, resume=False)
    for item in items:
        store.append(Response(item.id, "ok", "Reasoning... \\boxed{B}"))
    store.close()
    assert main(["score", str(tmp_path / "run"), "--bootstrap", "0", "--save"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert list(results["parsers"]) == ["boxed", "official"]
    predictions = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    mc = {it.id for it in items if it.question_type == "multiple-choice"}
    assert {p["pred"] for p in predictions if p["id"] in mc} == {"B"}
    assert main(["score", str(tmp_path / "run"), "--parser", "strict", "--bootstrap", "0", "--save"]) == 0
    assert list(json.loads((tmp_path / "run" / "results.json").read_text())["parsers"]) == ["strict"]


@pytest.mark.parametrize(
    ("mode", "parsers"),
    [("boxed", ("boxed", "official")), ("direct", ("official",)), ("cot", ("official",)), ("ocr", ("official",)), (None, ("official",))],
)
def test_default_parsers_follow_the_prompt_mode(mode, parsers):
    from mmmu_eval.scoring.judge import default_parsers

    assert default_parsers(mode) == parsers


# -- score's flags ------------------------------------------------------------------------------

def _run_answering(tmp_path, text_of, *, split="validation", data="sample", name="run"):
    """A run directory on ``data`` whose response to each item is ``text_of(index, item)``."""
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.store.rundir import RunStore

    items = load_benchmark("mmmu", split=split, data=data).items
    manifest = {"config": {"model": "scripted", "benchmark": "mmmu", "split": split, "data": data}}
    with RunStore.open(tmp_path / name, manifest, resume=False) as store:
        for i, item in enumerate(items):
            store.append(Response(item.id, "ok", text_of(i, item)))
    return tmp_path / name, items


def _predictions(run_dir) -> dict:
    return {row["id"]: row["pred"] for row in map(json.loads, (run_dir / "predictions.jsonl").read_text().splitlines())}


def test_score_seed_draws_the_fallback_letters_from_that_seed(tmp_path, capsys):
    """Unparseable answers get letters drawn from random.Random(seed), alphabetical subject then id number."""
    import random

    run_dir, items = _run_answering(tmp_path, lambda i, it: "hmm, no idea")
    assert main(["score", str(run_dir), "--fallback-seed", "7", "--bootstrap", "0", "--save"]) == 0
    assert "with fallback official (seed 7)" in capsys.readouterr().out
    mc = [it for it in items if it.question_type == "multiple-choice"]
    rng = random.Random(7)
    expected = {it.id: rng.choice(list(it.choices))
                for it in sorted(mc, key=lambda it: (it.subject, int(it.id.rsplit("_", 1)[1])))}
    assert {i: p for i, p in _predictions(run_dir).items() if i in expected} == expected
    results = json.loads((run_dir / "results.json").read_text())
    assert (results["parse"]["fallback_seed"], results["parse"]["fallbacks"]) == (7, len(mc))
    assert results["overall"]["correct"] == sum(expected[it.id] == it.answer for it in mc)
    assert json.loads((run_dir / "manifest.json").read_text())["scoring"]["fallback_seed"] == 7


def test_score_fallback_none_counts_unparseable_answers_wrong(tmp_path, capsys):
    run_dir, items = _run_answering(tmp_path, lambda i, it: f"({it.answer})" if i < 10 else "hmm, no idea")
    assert main(["score", str(run_dir), "--fallback", "none", "--bootstrap", "0", "--save"]) == 0
    capsys.readouterr()
    results = json.loads((run_dir / "results.json").read_text())
    right = 10  # the first ten items answered with their gold letter, or their gold open answer in brackets
    guessed = sum(1 for it in items[10:] if it.question_type == "multiple-choice")
    assert (results["parse"]["fallback_policy"], results["parse"]["fallbacks"]) == ("none", guessed)
    assert results["overall"]["correct"] == right
    predictions = _predictions(run_dir)
    assert all(predictions[it.id] is None for it in items[10:] if it.question_type == "multiple-choice")


def test_score_show_disagreements_lists_at_most_n(sample_run, capsys):
    run_dir, items = sample_run
    argv = ["score", str(run_dir), "--parser", "official", "--parser", "strict", "--bootstrap", "0"]
    assert main([*argv, "--show-disagreements", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # "The answer is (A)" (odd items) is A to the official parser and nothing to strict: they
    # disagree on those whose gold answer is A (right against wrong).
    disagreeing = [it.id for i, it in enumerate(items)
                   if i % 2 and i != 3 and it.question_type == "multiple-choice" and it.answer == "A"]
    assert len(disagreeing) > 2 and f"{len(disagreeing)} item(s) where the parsers disagree" in lines
    listed = [line for line in lines if line.startswith("  validation_")]
    assert listed == [f"  {item_id}: official='A'+, strict=None-" for item_id in disagreeing[:2]]
    assert f"  ... {len(disagreeing) - 2} more" in lines
    assert main([*argv, "--show-disagreements", "0"]) == 0
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("  validation_")]
    assert main([*argv, "--show-disagreements", "-1"]) == 2
    assert "--show-disagreements must be 0 or more" in capsys.readouterr().err


def test_score_answers_scores_a_test_split_run_and_becomes_its_scoring(tmp_path, capsys):
    from fakes.parquet_rows import mmmu_row, write_mmmu

    snap = tmp_path / "snap"
    write_mmmu(snap, "Art", "test", [mmmu_row("test_Art_1", answer="?"), mmmu_row("test_Art_2", answer="?")])
    run_dir, _ = _run_answering(tmp_path, lambda i, it: "(B)", split="test", data=str(snap))
    (run_dir / "results.json").unlink(missing_ok=True)
    assert main(["score", str(run_dir), "--bootstrap", "0"]) == 0
    assert "no gold answers for 2 predictions" in capsys.readouterr().out
    assert not (run_dir / "results.json").exists()

    answers = tmp_path / "answer_dict_test.json"
    answers.write_text(json.dumps({"test_Art_1": {"question_type": "multiple-choice", "ground_truth": "B"},
                                   "test_Art_2": {"question_type": "multiple-choice", "ground_truth": "C"}}))
    assert main(["score", str(run_dir), "--answers", str(answers), "--bootstrap", "0", "--save"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^official +1 +2 +50\.00% ", out, re.M), out
    results = json.loads((run_dir / "results.json").read_text())
    assert (results["gold_available"], results["overall"]["correct"], results["overall"]["n"]) == (True, 1, 2)
    assert json.loads((run_dir / "manifest.json").read_text())["scoring"]["answers"] == str(answers.resolve())
    (run_dir / "results.json").unlink()
    assert main(["report", str(run_dir), "--json"]) == 0  # report follows the recorded answers
    assert json.loads(capsys.readouterr().out)["overall"]["correct"] == 1


# -- rescore's flags ----------------------------------------------------------------------------

def _pro_file(tmp_path, rows):
    path = tmp_path / "m_standard_direct.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _pro(item_id, response, answer="A"):
    return {"id": item_id, "options": "['w', 'x', 'y', 'z']", "answer": answer, "response": response, "subject": "Art"}


def test_rescore_parsers_fallback_and_seed(tmp_path, capsys):
    import random

    rows = [_pro("test_Art_1", "Answer: A"), _pro("test_Art_2", "The answer is B", answer="B"),
            _pro("test_Art_3", "hmm", answer="C")]
    path, out = _pro_file(tmp_path, rows), tmp_path / "doc.json"
    assert main(["rescore", str(path), "--format", "official-mmmu-pro", "--partial", "--parser", "official", "--parser", "strict",
                 "--fallback-seed", "7", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    drawn = random.Random(7).choice("ABCD")
    assert f"parser official, fallback official (seed 7): {2 + (drawn == 'C')}/3 correct" in printed
    assert "parser strict: 1/3 correct" in printed  # only "Answer: A" is explicit
    doc = json.loads(out.read_text())
    assert {row["id"]: row["pred"] for row in doc["items"]} == {"test_Art_1": "A", "test_Art_2": "B", "test_Art_3": drawn}
    assert list(doc["parsers"]) == ["official", "strict"]

    assert main(["rescore", str(path), "--format", "official-mmmu-pro", "--partial", "--fallback", "none"]) == 0
    assert "parser official, fallback none (seed 42): 2/3 correct" in capsys.readouterr().out


def test_rescore_show_problems_lists_at_most_n(tmp_path, capsys):
    rows = [_pro("test_Art_1", "Answer: A"), *(_pro(f"test_Art_{n}", None) for n in range(2, 6))]
    path, doc = _pro_file(tmp_path, rows), tmp_path / "doc.json"
    assert main(["rescore", str(path), "--format", "official-mmmu-pro", "--partial", "--show-problems", "1", "--json", str(doc)]) == 0
    lines = capsys.readouterr().out.splitlines()
    problems = json.loads(doc.read_text())["problems"]  # the None responses, and "5 rows, not 1730"
    assert len(problems) > 2 and f"{len(problems)} problem(s):" in lines
    start = lines.index(f"{len(problems)} problem(s):") + 1
    assert lines[start:start + 2] == [f"  {problems[0]}", f"  ... {len(problems) - 1} more (see --json)"]
    assert main(["rescore", str(path), "--format", "official-mmmu-pro", "--show-problems", "-1"]) == 2


def test_rescore_json_that_cannot_be_written_is_one_error_line(tmp_path, capsys):
    path = _pro_file(tmp_path, [_pro("test_Art_1", "Answer: A")])
    target = tmp_path / "no-such-folder" / "doc.json"
    assert main(["rescore", str(path), "--format", "official-mmmu-pro", "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"error: --json {target}: cannot write (" in " ".join(err.split()) and "Traceback" not in err
    assert not target.exists()
