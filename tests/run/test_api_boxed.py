"""evaluate(prompt="boxed"): the boxed protocol end to end, from the prompt to results.json.

A scripted model answers ``\\boxed{B}`` to everything. The boxed parser, the headline of a boxed
run, reads B and credits exactly the items whose gold answer is B; the official parser, reported
beside it, finds no letter in ``\\boxed{B}`` and falls back to its seeded random pick, so the two
disagree on items and the disagreements are in the results.
"""

import io
import json

import pytest
from rich.console import Console

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.rendering.run_terminal import print_results

from fakes.scripted_backend import ScriptedBackend

ANSWER = "Let me think. \\boxed{B}"

RUNS = [
    pytest.param({"benchmark": "mmmu-pro", "setting": "standard-10"}, id="pro-standard-10"),
    pytest.param({"benchmark": "mmmu-pro", "setting": "vision"}, id="pro-vision"),
    pytest.param({"benchmark": "mmmu", "split": "dev"}, id="mmmu-dev"),
]


def sample_items(run):
    where = {"setting": run["setting"]} if "setting" in run else {"split": run["split"]}
    return load_benchmark(run["benchmark"], data="sample", **where).items


@pytest.mark.parametrize("run", RUNS)
def test_a_boxed_run_scores_with_the_boxed_parser_first_and_official_beside_it(tmp_path, run):
    items = sample_items(run)
    backend = ScriptedBackend([ANSWER] * len(items))
    result = evaluate(model=backend, prompt="boxed", data="sample", out=tmp_path / "run",
                      display=NullDisplay(), html=False, **run)

    # Every request carried the boxed instruction.
    assert len(backend.asked) == len(items)
    assert all("\\boxed{" in request.text for request in backend.asked)

    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["config"]["prompt"] == "boxed"
    assert manifest["protocol"]["mode"] == "boxed" and manifest["protocol"]["official"] is False

    results = json.loads((result.run_dir / "results.json").read_text())
    assert list(results["parsers"]) == ["boxed", "official"]
    gold_b = sum(1 for it in items if it.answer == "B")
    assert results["overall"]["correct"] == gold_b
    assert results["parsers"]["boxed"] == {
        "n": len(items), "correct": gold_b, "accuracy": gold_b / len(items), "fallbacks": 0,
        "deterministic_correct": gold_b,
    }
    assert result.accuracy == gold_b / len(items)

    # The official parser finds no letter in "\boxed{B}": every multiple-choice answer is a fallback.
    multiple_choice = sum(1 for it in items if it.question_type == "multiple-choice")
    assert results["parsers"]["official"]["fallbacks"] == multiple_choice
    # Counted wrong instead, those fallbacks leave the official parser nothing (no open gold is "B").
    assert results["parsers"]["official"]["deterministic_correct"] == 0
    lucky = results["parsers"]["official"]["correct"]

    # The terminal shows that deterministic figure beside the boxed headline (verifiers' two means).
    console = Console(file=io.StringIO(), width=200)
    print_results(results, console)
    shown = console.file.getvalue()
    n = len(items)
    assert (f"boxed {100 * gold_b / n:.1f}% ({gold_b}/{n}) · official, fallbacks wrong 0.0% (0/{n})") in shown
    assert f"with the seeded random fallback official is {100 * lucky / n:.1f}%" in shown
    assert results["disagreements"] > 0  # with seed 42 the random picks do not match the boxed verdicts item for item

    predictions = [json.loads(line) for line in (result.run_dir / "predictions.jsonl").read_text().splitlines()]
    assert {row["pred"] for row in predictions} == {"B"}  # the headline parser's reading, open items too
