"""Every copy of a huge answer is capped where it is stored or shown (issue 40); the whole answer is
stored once, in responses.jsonl, and scored whole.

On main a 200 MB answer to an open question became 1 GB on disk: ``pred`` (the answer's whole
lowercased text) went uncut into predictions.jsonl (419 MB), results.json's verdicts and
report.html. Two answers of 2 MB prove the cap (anything past ``SHOWN_CHARACTERS`` does); the
memory of a 200 MB one is measured by ``benchmarks/huge_answer.py``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from mmmu_eval import evaluate, report_run, score_run
from mmmu_eval.core.untrusted import SHOWN_CHARACTERS

THINKING = "Let me look at the shape once more. " * 55_000  # 1.98 MB
#: Correct only for a reader of its last words, far past the cap.
RIGHT_AT_THE_END = THINKING + "So the answer is triangle."
#: No answer phrase: the official open parser's prediction is the whole lowercased text.
NO_ANSWER = THINKING + "I cannot tell."


def two_huge_answers(out: Path) -> Path:
    """dev_Art_1 and dev_Design_2 (both open, gold ``triangle``), one answer each, in either order."""
    answers = [RIGHT_AT_THE_END, NO_ANSWER]
    lock = threading.Lock()

    def model(messages: list[dict]) -> str:
        with lock:
            return answers.pop() if answers else "A"

    evaluate(model=model, benchmark="mmmu", split="dev", data="sample", ids=["dev_Art_1", "dev_Design_2"], out=out,
             html=True)
    return out


def rows(file: Path) -> list[dict]:
    return [json.loads(line) for line in file.read_text().splitlines()]


def test_copies_are_capped_and_the_whole_answer_is_stored_once_and_scored_whole(tmp_path):
    out = two_huge_answers(tmp_path / "run")
    stored = {r["item_id"]: r["text"] for r in rows(out / "responses.jsonl")}
    assert sorted(stored.values()) == sorted([RIGHT_AT_THE_END, NO_ANSWER])  # whole, once
    right = next(i for i, text in stored.items() if text == RIGHT_AT_THE_END)
    wrong = next(i for i, text in stored.items() if text == NO_ANSWER)

    results = json.loads((out / "results.json").read_text())
    verdicts = results["verdicts"]
    assert verdicts[right]["correct"] and verdicts[right]["pred"] == "triangle"  # scored whole: the end was read
    assert not verdicts[wrong]["correct"]
    cut = f"cut at {SHOWN_CHARACTERS:,} of 1,980,0"  # the prediction is the text less its last period
    assert verdicts[wrong]["pred"].startswith("let me look") and cut in verdicts[wrong]["pred"]

    predictions = {r["id"]: r for r in rows(out / "predictions.jsonl")}
    assert all(f"cut at {SHOWN_CHARACTERS:,} of {len(stored[i]):,} characters" in predictions[i]["response"] for i in stored)
    assert cut in predictions[wrong]["pred"]
    for name, most in (("predictions.jsonl", 5 * SHOWN_CHARACTERS), ("results.json", 2 * SHOWN_CHARACTERS),
                       ("report.html", 8 * SHOWN_CHARACTERS)):
        size = (out / name).stat().st_size
        assert size < most, f"{name}: {size:,} bytes for answers of {len(NO_ANSWER):,} characters"
    assert (out / "responses.jsonl").stat().st_size > 2 * len(NO_ANSWER)


def test_the_commands_that_write_them_again_cap_them_too(tmp_path):
    """``score --save`` and ``report --html`` rewrite the copies through the same owners."""
    out = two_huge_answers(tmp_path / "run")
    for name in ("predictions.jsonl", "results.json", "report.html"):
        (out / name).unlink()
    score_run(out, save=True)
    report_run(out, html=True)
    for name, most in (("predictions.jsonl", 5 * SHOWN_CHARACTERS), ("results.json", 2 * SHOWN_CHARACTERS),
                       ("report.html", 8 * SHOWN_CHARACTERS)):
        assert (out / name).stat().st_size < most, name
