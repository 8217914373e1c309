"""``rescore --out`` ends as ``run`` ends (run/outputs.py): scored once, the same files, the same rules."""

from __future__ import annotations

import json

from fakes.harness_outputs import write_jsonl

from mmmu_eval.cli.main import main
from mmmu_eval.harnesses.read import rescore
from mmmu_eval.harnesses.write import write_rescored_run
from mmmu_eval.scoring import scorer


def _lmms_log(tmp_path):
    def sample(doc_id, item_id, response, answer):
        acc = {"id": item_id, "subdomain": "Accounting", "question_type": "multiple-choice", "answer": answer,
               "parsed_pred": [answer]}
        return {"doc_id": doc_id, "filtered_resps": response, "input": f"prompt of {item_id}", "mmmu_acc": acc,
                "mmmu_acc_pass_at_k": acc}

    return write_jsonl(tmp_path / "logs" / "20250101_samples_mmmu_val.jsonl", [
        sample(1, "validation_Accounting_2", "The answer is B.", "B"),
        sample(2, "validation_Accounting_3", "I cannot tell", "A"),  # no letter: the official fallback draws
        sample(36, "validation_Public_Health_1", "The picture shows a juniper tree on a hill (see note E.)", "B"),
    ])


def _count_scorings(monkeypatch) -> list[int]:
    """Every Scoring built (one per scoring of a set of responses, whichever name called it)."""
    calls: list[int] = []
    init = scorer.Scoring.__init__

    def counted(self, *args, **kwargs):
        calls.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(scorer.Scoring, "__init__", counted)
    return calls


def test_a_rescore_written_as_a_run_is_scored_once(tmp_path, monkeypatch):
    """write_rescored_run scored the stored responses again, after rescore had scored the same ones."""
    calls = _count_scorings(monkeypatch)
    result = rescore(_lmms_log(tmp_path), data="sample")
    assert len(calls) == 1
    written = write_rescored_run(result, tmp_path / "run", html=False)
    assert len(calls) == 1
    assert written.scoring is result.scoring
    # The scoring handed on is the stored responses' own: `score` of the directory agrees with it.
    stored = json.loads((tmp_path / "run" / "results.json").read_text())
    predictions = (tmp_path / "run" / "predictions.jsonl").read_text()
    assert main(["score", str(tmp_path / "run"), "--save"]) == 0
    again = json.loads((tmp_path / "run" / "results.json").read_text())
    assert stored["overall"] == again["overall"] and stored["overall"]["n"] == 3
    assert predictions == (tmp_path / "run" / "predictions.jsonl").read_text()


def test_stored_responses_that_differ_from_the_rescore_are_scored_as_stored(tmp_path, monkeypatch):
    """A response that is not text is stored as an error: the stored responses are scored, not the rows."""
    path = write_jsonl(tmp_path / "m_vision_direct.jsonl", [
        {"id": "test_Art_1", "options": "['x', 'y']", "answer": "A", "response": "Answer: A", "subject": "Art"},
        {"id": "test_Art_2", "options": "['x', 'y']", "answer": "A", "response": None, "subject": "Art"},
    ])
    result = rescore(path)
    calls = _count_scorings(monkeypatch)
    written = write_rescored_run(result, tmp_path / "run", html=False)
    assert len(calls) == 1 and written.stored_as_errors == ("test_Art_2",)
    assert written.scoring.errors == ("test_Art_2",) and written.results["overall"]["n"] == 1


def _official_mmmu(tmp_path, split):
    folder = tmp_path / split
    (folder / "Art").mkdir(parents=True)
    (folder / "Art" / "output.json").write_text(json.dumps([
        {"id": f"{split}_Art_1", "question_type": "multiple-choice", "answer": "A", "all_choices": ["A", "B"],
         "index2ans": {"A": "x", "B": "y"}, "response": "(A)"},
    ]))
    return folder


def test_only_an_mmmu_test_rescore_writes_a_submission(tmp_path):
    """The MMMU-test rule is decided once (results.submission.is_submitted) for run, rescore and report."""
    test_run = write_rescored_run(rescore(_official_mmmu(tmp_path, "test"), format="official-mmmu"), tmp_path / "t", html=False)
    assert json.loads((test_run.run_dir / "submission.json").read_text()) == {"test_Art_1": "A"}
    val_run = write_rescored_run(rescore(_official_mmmu(tmp_path, "validation"), format="official-mmmu"), tmp_path / "v",
                                 html=False)
    assert not (val_run.run_dir / "submission.json").exists()
    for run in (test_run, val_run):
        names = sorted(p.name for p in run.run_dir.iterdir())
        assert {"manifest.json", "responses.jsonl", "results.json", "predictions.jsonl"} <= set(names)
