"""mmmu-eval: evaluate vision-language models on MMMU and MMMU-Pro, the official way.

The notebook surface, in pipeline order::

    import mmmu_eval
    result = mmmu_eval.evaluate(benchmark="mmmu", split="validation", data="sample", model="random")
    print(result.accuracy, result.run_dir)
    print("\n".join(mmmu_eval.plan_run(mmmu_eval.RunConfig(model="openai:gpt-4o")).lines()))  # what it would send

    suite = mmmu_eval.evaluate_suite(model="frequent", data="sample", out="suites/frequent-sample")
    print(suite.table1["overall"]["percent"], suite.suite_dir)   # the MMMU-Pro paper's Table 1 row
    print("\n".join(mmmu_eval.diagnose(result.run_dir, published=58.6).lines()))   # why it may differ
    found = mmmu_eval.audit(["runs/a", "runs/b", "lmms_eval_samples.jsonl"])   # the benchmark's own errors

After a run, one call per command (``mmmu_eval.commands``), each returning a frozen record::

    view = mmmu_eval.score_run(result.run_dir, parsers=["official", "strict"])   # a view; save=True keeps it
    page = mmmu_eval.report_run(result.run_dir, html=True)            # report.html (submission=True: EvalAI)
    c = mmmu_eval.compare("runs/a", "runs/b")                         # paired difference, interval, McNemar
    merged = mmmu_eval.merge(["runs/m-1", "runs/m-2"], "runs/m")      # --shard K/N runs joined, then scored
    found = mmmu_eval.rescore_outputs("samples_mmmu_val.jsonl", out="runs/lmms")   # another harness's file

    ds = mmmu_eval.load_dataset("mmmu-pro", setting="standard-10", data="sample")
    protocol = mmmu_eval.EvalProtocol.from_config(mmmu_eval.RunConfig(model="random", benchmark="mmmu-pro"))
    request = mmmu_eval.build_request(ds.items[0], protocol)

The synchronous calls work in Jupyter too: inside a running event loop they run in a worker thread
with a loop of their own (``aio.run_coroutine``), and interrupting the kernel stops the work and
keeps what it stored; ``await evaluate_async(...)`` is the same run. ``examples/notebook.ipynb``
is executed in a real kernel by the tests.

Everything else lives in its own package (docs/design.md draws the house).
"""

import importlib as _importlib
import typing as _typing

from mmmu_eval.core.version import __version__

if _typing.TYPE_CHECKING:
    from mmmu_eval.run.pipeline import RunPlan, RunResult, evaluate, evaluate_async, plan_run
    from mmmu_eval.backends.base import Backend
    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.dataset.load import Dataset, load_dataset
    from mmmu_eval.core.errors import BackendError, ConfigError, DataError, MmmuEvalError, StoreError
    from mmmu_eval.prompt.protocol import EvalProtocol, build_request, prompt_text
    from mmmu_eval.commands.diagnose import diagnose
    from mmmu_eval.commands.compare import compare
    from mmmu_eval.results.comparison import Comparison, DisciplineDiff, Flip
    from mmmu_eval.results.finished_run import LoadedRun, load_run
    from mmmu_eval.commands.rescore import Rescored, rescore_outputs
    from mmmu_eval.harnesses.read import Rescore
    from mmmu_eval.harnesses.write import RescoredRun
    from mmmu_eval.commands.merge import MergedRun, merge
    from mmmu_eval.run.outputs import SavedScoring
    from mmmu_eval.commands.report import RunReport, report_run
    from mmmu_eval.commands.score import RunScore, score_run
    from mmmu_eval.scoring.spec import ScoringSpec
    from mmmu_eval.scoring.explain import Difference, Explanation
    from mmmu_eval.core.manifest import Manifest
    from mmmu_eval.harnesses.readers.foreign import ForeignFile, ForeignRow
    from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
    from mmmu_eval.auditing import Audit, audit
    from mmmu_eval.core.records import (
        GenerationSettings,
        ImagePart,
        ImageRef,
        Item,
        Request,
        Response,
        TextPart,
        Verdict,
    )
    from mmmu_eval.scoring.scorer import Scoring, score_responses
    from mmmu_eval.suite.execute import SuiteResult, evaluate_suite, evaluate_suite_async
    from mmmu_eval.backends.custom import ChatFunction, Generates
    from mmmu_eval.doctor.diagnosis import SuiteDiagnosis
    from mmmu_eval.doctor.diagnosis import Diagnosis
    from mmmu_eval.doctor.effects import Effect
    from mmmu_eval.auditing.added import AddedOption
    from mmmu_eval.auditing.forms import FourOptionVotes
    from mmmu_eval.auditing.sources import Answer, RunAnswers
    from mmmu_eval.auditing.item_stats import ItemStats
    from mmmu_eval.auditing.structural import Problem
    from mmmu_eval.auditing.suspects import Agreement, Suspect, Vote
    from mmmu_eval.doctor.causes import Cause
    from mmmu_eval.results.results_schema import Results
    from mmmu_eval.run.progress import Display
    from mmmu_eval.run.resolve import RunConfigArgs
    from mmmu_eval.scoring.aggregate import Aggregate, Tally
    from mmmu_eval.suite.suite_config import SuiteConfig, SuiteConfigArgs, SuiteRun
    from mmmu_eval.suite.suite_progress import SuiteDisplay
    from mmmu_eval.tracking.log_to import LogTo

# Each public name, and the module that holds it. They are imported on first use (PEP 562), so
# ``mmmu-eval run`` loads what a run needs when it needs it, not the report and scoring code (and
# their imports) before the first request.
_HOME = {
    **dict.fromkeys(("RunPlan", "RunResult", "evaluate", "evaluate_async", "plan_run"), "mmmu_eval.run.pipeline"),
    "Backend": "mmmu_eval.backends.base",
    "RunConfig": "mmmu_eval.core.config",
    **dict.fromkeys(("Dataset", "load_dataset"), "mmmu_eval.dataset.load"),
    "diagnose": "mmmu_eval.commands.diagnose",
    # one call per command that reads or rewrites a finished run, and the records they return
    **dict.fromkeys(("Comparison", "DisciplineDiff", "Flip"), "mmmu_eval.results.comparison"),
    "compare": "mmmu_eval.commands.compare",
    **dict.fromkeys(("LoadedRun", "load_run"), "mmmu_eval.results.finished_run"),
    **dict.fromkeys(("Rescored", "rescore_outputs"), "mmmu_eval.commands.rescore"),
    "Rescore": "mmmu_eval.harnesses.read",
    "RescoredRun": "mmmu_eval.harnesses.write",
    **dict.fromkeys(("MergedRun", "merge"), "mmmu_eval.commands.merge"),
    "SavedScoring": "mmmu_eval.run.outputs",
    **dict.fromkeys(("RunReport", "report_run"), "mmmu_eval.commands.report"),
    **dict.fromkeys(("RunScore", "score_run"), "mmmu_eval.commands.score"),
    "ScoringSpec": "mmmu_eval.scoring.spec",
    **dict.fromkeys(("Difference", "Explanation"), "mmmu_eval.scoring.explain"),
    "Manifest": "mmmu_eval.core.manifest",
    **dict.fromkeys(("ForeignFile", "ForeignRow"), "mmmu_eval.harnesses.readers.foreign"),
    **dict.fromkeys(("HarnessVerdict", "RecordedScore"), "mmmu_eval.scoring.harness_verdicts"),
    **dict.fromkeys(("Audit", "audit"), "mmmu_eval.auditing"),
    **dict.fromkeys(("BackendError", "ConfigError", "DataError", "MmmuEvalError", "StoreError"), "mmmu_eval.core.errors"),
    **dict.fromkeys(("EvalProtocol", "build_request", "prompt_text"), "mmmu_eval.prompt.protocol"),
    **dict.fromkeys(("GenerationSettings", "ImagePart", "ImageRef", "Item", "Request", "Response", "TextPart",
                     "Verdict"), "mmmu_eval.core.records"),
    **dict.fromkeys(("Scoring", "score_responses"), "mmmu_eval.scoring.scorer"),
    **dict.fromkeys(("SuiteResult", "evaluate_suite", "evaluate_suite_async"), "mmmu_eval.suite.execute"),
    # the types the functions above take and return (tests/test_public_api.py finds each one)
    **dict.fromkeys(("ChatFunction", "Generates"), "mmmu_eval.backends.custom"),
    "SuiteDiagnosis": "mmmu_eval.doctor.diagnosis",
    "Diagnosis": "mmmu_eval.doctor.diagnosis",
    "Effect": "mmmu_eval.doctor.effects",
    "AddedOption": "mmmu_eval.auditing.added",
    "FourOptionVotes": "mmmu_eval.auditing.forms",
    **dict.fromkeys(("Answer", "RunAnswers"), "mmmu_eval.auditing.sources"),
    "ItemStats": "mmmu_eval.auditing.item_stats",
    "Problem": "mmmu_eval.auditing.structural",
    **dict.fromkeys(("Agreement", "Suspect", "Vote"), "mmmu_eval.auditing.suspects"),
    "Cause": "mmmu_eval.doctor.causes",
    "Results": "mmmu_eval.results.results_schema",
    "Display": "mmmu_eval.run.progress",
    "RunConfigArgs": "mmmu_eval.run.resolve",
    **dict.fromkeys(("Aggregate", "Tally"), "mmmu_eval.scoring.aggregate"),
    **dict.fromkeys(("SuiteConfig", "SuiteConfigArgs", "SuiteRun"), "mmmu_eval.suite.suite_config"),
    "SuiteDisplay": "mmmu_eval.suite.suite_progress",
    "LogTo": "mmmu_eval.tracking.log_to",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'mmmu_eval' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # once looked up, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "AddedOption",
    "Aggregate",
    "Agreement",
    "Answer",
    "Audit",
    "Backend",
    "BackendError",
    "Cause",
    "ChatFunction",
    "Comparison",
    "ConfigError",
    "DataError",
    "Dataset",
    "Diagnosis",
    "Difference",
    "DisciplineDiff",
    "Display",
    "Effect",
    "EvalProtocol",
    "Explanation",
    "Flip",
    "ForeignFile",
    "ForeignRow",
    "FourOptionVotes",
    "Generates",
    "GenerationSettings",
    "HarnessVerdict",
    "ImagePart",
    "ImageRef",
    "Item",
    "ItemStats",
    "LoadedRun",
    "LogTo",
    "Manifest",
    "MergedRun",
    "MmmuEvalError",
    "Problem",
    "RecordedScore",
    "Request",
    "Rescore",
    "Rescored",
    "RescoredRun",
    "Response",
    "Results",
    "RunAnswers",
    "RunConfig",
    "RunConfigArgs",
    "RunPlan",
    "RunReport",
    "RunResult",
    "RunScore",
    "SavedScoring",
    "Scoring",
    "ScoringSpec",
    "StoreError",
    "SuiteConfig",
    "SuiteConfigArgs",
    "SuiteDiagnosis",
    "SuiteDisplay",
    "SuiteResult",
    "SuiteRun",
    "Suspect",
    "Tally",
    "TextPart",
    "Verdict",
    "Vote",
    "__version__",
    "audit",
    "build_request",
    "compare",
    "diagnose",
    "evaluate",
    "evaluate_async",
    "evaluate_suite",
    "evaluate_suite_async",
    "load_dataset",
    "load_run",
    "merge",
    "plan_run",
    "prompt_text",
    "report_run",
    "rescore_outputs",
    "score_responses",
    "score_run",
]
