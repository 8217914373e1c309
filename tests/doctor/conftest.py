"""Runs made to have each cause ``doctor`` names, through the real runner with a scripted backend."""

from pathlib import Path

import pytest

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.core.errors import BackendError
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.core.records import Response

from fakes.scripted_backend import ScriptedBackend

#: The bundled real model outputs, where the score tests find them.
FIDELITY = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity"

DEV = {"benchmark": "mmmu", "split": "dev", "data": "sample", "display": NullDisplay(), "html": False}

#: The sample dev split's multiple-choice items (gold answer, options), in dataset order.
MC = {
    "dev_Accounting_2": ("B", 4), "dev_Art_2": ("B", 4), "dev_Computer_Science_1": ("C", 3),
    "dev_Design_1": ("A", 2), "dev_Economics_1": ("A", 4), "dev_Energy_and_Power_2": ("C", 3),
    "dev_History_1": ("A", 4), "dev_History_2": ("B", 3), "dev_Math_2": ("B", 4), "dev_Psychology_1": ("B", 5),
}

SCALED = "down-scaled 1600x1200 to 400x300 (--max-image-pixels 120000)"

#: One answer per MC item, in order: what each does to the figure.
FAULTS = [
    Response("", "truncated", text="(A) looks likely, but checking", finish_reason="length", completion_tokens=64),  # cut, all used, wrong
    Response("", "truncated", text="(C) first, then", finish_reason="length", completion_tokens=50),  # cut, wrong
    Response("", "ok", text="<think>maybe (A) since", finish_reason="stop", completion_tokens=30),  # think never closed, wrong
    "I cannot tell from the picture.",  # no letter: fallback among 2
    "No idea, sorry.",  # no letter: fallback among 4
    "\\boxed{C}",  # boxed, right
    Response("", "ok", text="Answer: A", finish_reason="stop", notes=(SCALED,)),  # Answer: line, right, image scaled
    "Answer: B",  # right
    BackendError("HTTP 500"),  # failed
    "\\boxed{B}",  # boxed, right
]


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("doctor") / "faults"
    evaluate(model=ScriptedBackend(FAULTS), ids=list(MC), out=out, temperature=0.7, max_tokens=64,
             unreferenced_images="append", **DEV)
    return out


@pytest.fixture(scope="module")
def lmms_run(tmp_path_factory):
    """An lmms-eval log rescored here: one item where its parser took another letter than the official one."""
    from fakes.harness_outputs import write_jsonl

    from mmmu_eval.cli.main import main

    base = tmp_path_factory.mktemp("lmms")

    def sample(doc_id, item_id, response, answer, parsed):
        acc = {"id": item_id, "subdomain": "Accounting", "question_type": "multiple-choice", "answer": answer,
               "parsed_pred": [parsed]}
        return {"doc_id": doc_id, "filtered_resps": response, "input": f"prompt of {item_id}", "mmmu_acc": acc,
                "mmmu_acc_pass_at_k": acc}

    log = write_jsonl(base / "logs" / "20250101_samples_mmmu_val.jsonl", [
        sample(1, "validation_Accounting_2", "The answer is B.", "B", "B"),
        sample(2, "validation_Accounting_3", "A", "A", "A"),
        sample(36, "validation_Public_Health_1", "The picture shows a juniper tree on a hill (see note E.)", "B", "E"),
    ])
    assert main(["rescore", str(log), "--data", "sample", "--out", str(base / "run"), "--no-html", "--partial"]) == 0
    return base / "run"


@pytest.fixture(scope="module")
def fidelity_runs(tmp_path_factory):
    """The bundled real outputs rescored here: Qwen-VL-7B-Chat on MMMU validation, GPT-4o on MMMU-Pro."""
    from fakes import required

    from mmmu_eval.cli.main import main

    folder = required.path(FIDELITY, "the doctor's real-output tests need ../shared/fidelity")
    base = tmp_path_factory.mktemp("fidelity")
    runs = {"qwen": (folder / "mmmu" / "qwen_vl"),
            "gpt4o-std10-cot": folder / "mmmu-pro" / "gpt-4o_standard(10 options)_cot.jsonl"}
    for name, source in runs.items():
        assert main(["rescore", str(source), "--out", str(base / name), "--no-html"]) == 0
    return {name: base / name for name in runs}



@pytest.fixture(scope="module")
def vlmevalkit_run(tmp_path_factory):
    """VLMEvalKit predictions with its judge's verdicts, rescored here: one judged item, one other letter."""
    from fakes.harness_outputs import write_xlsx

    from mmmu_eval.cli.main import main

    header = ["index", "question", "A", "B", "C", "D", "E", "answer", "category", "l2-category", "split", "id",
              "prediction"]

    def row(index, item_id, prediction, answer, options=()):
        cells = list(options) + [None] * (5 - len(options))
        return [index, f"question {index}", *cells, answer, item_id.split("_", 1)[1].rsplit("_", 1)[0], "x",
                "validation", item_id, prediction]

    rows = [
        row(0, "validation_Art_3", "a square", "triangle"),  # open: its judge answered A (right), official wrong
        row(1, "validation_Computer_Science_3", "I think it's (B), no wait, it's 4", "C", ("2", "3", "4", "5")),
        row(2, "validation_Design_2", "B", "B", ("3", "4", "5", "6", "7")),
    ]
    verdicts = {0: (1, "Match Log: A. "), 1: (1, "Match Log: I think it's (B), no wait, it's 4. "), 2: (1, "Match Log: B. ")}
    base = tmp_path_factory.mktemp("vlmevalkit")
    folder = base / "outputs" / "GPT4o" / "T20250101_Gabc"
    path = write_xlsx(folder / "GPT4o_MMMU_DEV_VAL.xlsx", header, rows)
    write_xlsx(folder / "GPT4o_MMMU_DEV_VAL_openai_result.xlsx", header + ["hit", "log"],
               [r + list(verdicts[r[0]]) for r in rows])
    # a few items of the split: --partial, or rescore refuses a file that leaves items out
    assert main(["rescore", str(path), "--data", "sample", "--out", str(base / "run"), "--no-html", "--partial"]) == 0
    return base / "run"


@pytest.fixture
def mc_ids():
    """The sample dev split's multiple-choice item ids, in dataset order."""
    return list(MC)
