"""mmmu-eval: evaluate vision-language models on MMMU and MMMU-Pro, the official way.

The root holds the entry points, one per command (``mmmu-eval run`` is ``evaluate``, ``suite``
is ``evaluate_suite``, ``doctor`` is ``diagnose``, every other command its own name), the records
a user builds or catches, and nothing else; every other type lives in its package
(docs/reference/api.md lists where). In pipeline order::

    import mmmu_eval
    result = mmmu_eval.evaluate(benchmark="mmmu", split="validation", data="sample", model="random")
    print(result.accuracy, result.run_dir)      # the same call again continues (or answers from) that run
    print("\n".join(mmmu_eval.plan_run(mmmu_eval.RunConfig(model="openai:gpt-4o")).lines()))  # what it would send

    suite = mmmu_eval.evaluate_suite(model="frequent", data="sample", out="suites/frequent-sample")
    print(suite.table1["overall"]["percent"], suite.suite_dir)   # the MMMU-Pro paper's Table 1 row
    print("\n".join(mmmu_eval.diagnose(result.run_dir, published=0.586).lines()))   # why it may differ
    found = mmmu_eval.audit(["runs/a", "runs/b", "lmms_eval_samples.jsonl"])   # the benchmark's own errors

After a run, one call per command, each returning a frozen record::

    view = mmmu_eval.score(result.run_dir, parsers=["official", "strict"])   # a view; save=True keeps it
    page = mmmu_eval.report(result.run_dir, html=True)               # report.html (submission=True: EvalAI)
    c = mmmu_eval.compare("runs/a", "runs/b")                         # paired difference, interval, McNemar
    merged = mmmu_eval.merge(["runs/m-1", "runs/m-2"], "runs/m")      # --shard K/N runs joined, then scored
    found = mmmu_eval.rescore("samples_mmmu_val.jsonl", out="runs/lmms")   # another harness's file
    run = mmmu_eval.read_run(result.run_dir)                          # a finished run read back

    items = mmmu_eval.load_benchmark("mmmu-pro", setting="standard-10", data="sample").items
    batch = list(mmmu_eval.examples("mmmu-pro", data="sample", limit=4))   # RL examples and their gold

One vocabulary: accuracies are fractions (``published=0.586``); each seed is named for what it
seeds (``generation_seed``, ``fallback_seed``, ``bootstrap_seed``, ``sample_seed``,
``shuffle_seed``); errors name the keyword a Python caller passed (``split='devv'``).

The synchronous calls work in Jupyter too: inside a running event loop they run in a worker thread
with a loop of their own (``aio.run_coroutine``), and interrupting the kernel stops the work and
keeps what it stored (``RunInterrupted``); ``await evaluate_async(...)`` is the same run.
``examples/notebook.ipynb`` is executed in a real kernel by the tests.

The names this root held before (``score_run``, ``load_dataset``, ``Vote`` ...) still resolve for
one release, with a DeprecationWarning naming what to write instead (``_MOVED``).
"""

import importlib as _importlib
import typing as _typing

from mmmu_eval.core.version import __version__

if _typing.TYPE_CHECKING:
    from mmmu_eval.auditing import audit
    from mmmu_eval.commands.compare import compare
    from mmmu_eval.commands.diagnose import diagnose
    from mmmu_eval.commands.merge import merge
    from mmmu_eval.commands.report import report
    from mmmu_eval.commands.rescore import rescore
    from mmmu_eval.commands.score import score
    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.core.errors import BackendError, ConfigError, DataError, MmmuEvalError, StoreError
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.environments.examples import examples
    from mmmu_eval.results.finished_run import FinishedRun, read_run
    from mmmu_eval.run.pipeline import RunInterrupted, RunResult, evaluate, evaluate_async, plan_run
    from mmmu_eval.suite.execute import SuiteResult, evaluate_suite, evaluate_suite_async
    from mmmu_eval.tracking.log_to import LogTo

# Each public name, and the module that holds it. They are imported on first use (PEP 562), so
# ``mmmu-eval run`` loads what a run needs when it needs it, not the report and scoring code (and
# their imports) before the first request.
_HOME = {
    **dict.fromkeys(("RunInterrupted", "RunResult", "evaluate", "evaluate_async", "plan_run"), "mmmu_eval.run.pipeline"),
    **dict.fromkeys(("SuiteResult", "evaluate_suite", "evaluate_suite_async"), "mmmu_eval.suite.execute"),
    "score": "mmmu_eval.commands.score",
    "report": "mmmu_eval.commands.report",
    "compare": "mmmu_eval.commands.compare",
    "merge": "mmmu_eval.commands.merge",
    "rescore": "mmmu_eval.commands.rescore",
    "diagnose": "mmmu_eval.commands.diagnose",
    "audit": "mmmu_eval.auditing",
    "examples": "mmmu_eval.environments.examples",
    **dict.fromkeys(("FinishedRun", "read_run"), "mmmu_eval.results.finished_run"),
    "load_benchmark": "mmmu_eval.dataset.load",
    "RunConfig": "mmmu_eval.core.config",
    "LogTo": "mmmu_eval.tracking.log_to",
    **dict.fromkeys(("BackendError", "ConfigError", "DataError", "MmmuEvalError", "StoreError"), "mmmu_eval.core.errors"),
}

#: The names the root held before it named the entry points only, for one release: old name ->
#: (the module that holds the object, its name there, what to write instead). Each resolves with
#: a DeprecationWarning; none is in ``__all__`` or ``dir()``.
_MOVED = {
    # entry points renamed for their commands
    "score_run": ("mmmu_eval.commands.score", "score", "mmmu_eval.score (fallback_seed= for seed=)"),
    "report_run": ("mmmu_eval.commands.report", "report", "mmmu_eval.report (bootstrap_seed= for seed=)"),
    "rescore_outputs": ("mmmu_eval.commands.rescore", "rescore", "mmmu_eval.rescore (fallback_seed= for seed=)"),
    "load_run": ("mmmu_eval.results.finished_run", "read_run", "mmmu_eval.read_run (bootstrap_seed= for seed=)"),
    "LoadedRun": ("mmmu_eval.results.finished_run", "FinishedRun", "mmmu_eval.FinishedRun"),
    # not shadowing Hugging Face datasets' names in a script that imports both
    "load_dataset": ("mmmu_eval.dataset.load", "load_benchmark", "mmmu_eval.load_benchmark"),
    "Dataset": ("mmmu_eval.dataset.load", "Benchmark", "from mmmu_eval.dataset import Benchmark"),
}
# every other name the root held: a type or a helper, importable from its own module (docs/reference/api.md)
for _home, _names in {
    "mmmu_eval.auditing": ("Audit",),
    "mmmu_eval.auditing.added": ("AddedOption",),
    "mmmu_eval.auditing.item_stats": ("ItemStats",),
    "mmmu_eval.auditing.sources": ("Answer", "RunAnswers"),
    "mmmu_eval.auditing.structural": ("Problem",),
    "mmmu_eval.auditing.suspects": ("Agreement", "Suspect", "Vote"),
    "mmmu_eval.backends.base": ("Backend",),
    "mmmu_eval.backends.custom": ("ChatFunction", "Generates"),
    "mmmu_eval.commands.merge": ("MergedRun",),
    "mmmu_eval.commands.report": ("RunReport",),
    "mmmu_eval.commands.rescore": ("Rescored",),
    "mmmu_eval.commands.score": ("RunScore",),
    "mmmu_eval.core.manifest": ("Manifest",),
    "mmmu_eval.core.records": ("GenerationSettings", "ImagePart", "ImageRef", "Item", "Request", "Response", "TextPart",
                               "Verdict"),
    "mmmu_eval.doctor": ("Cause", "Diagnosis", "SuiteDiagnosis"),
    "mmmu_eval.doctor.effects": ("Effect",),
    "mmmu_eval.harnesses.read": ("Rescore",),
    "mmmu_eval.harnesses.readers.foreign": ("ForeignFile", "ForeignRow"),
    "mmmu_eval.harnesses.write": ("RescoredRun",),
    "mmmu_eval.prompt": ("EvalProtocol", "build_request", "prompt_text"),
    "mmmu_eval.results.comparison": ("Comparison", "DisciplineDiff", "Flip"),
    "mmmu_eval.results.results_schema": ("Results",),
    "mmmu_eval.run.outputs": ("SavedScoring",),
    "mmmu_eval.run.pipeline": ("RunPlan",),
    "mmmu_eval.run.progress": ("Display",),
    "mmmu_eval.run.resolve": ("RunConfigArgs",),
    "mmmu_eval.scoring.aggregate": ("Aggregate", "Tally"),
    "mmmu_eval.scoring.explain": ("Difference", "Explanation"),
    "mmmu_eval.scoring.harness_verdicts": ("HarnessVerdict", "RecordedScore"),
    "mmmu_eval.scoring.scorer": ("Scoring", "score_responses"),
    "mmmu_eval.scoring.spec": ("ScoringSpec",),
    "mmmu_eval.suite.suite_config": ("SuiteConfig", "SuiteConfigArgs", "SuiteRun"),
    "mmmu_eval.suite.suite_progress": ("SuiteDisplay",),
}.items():
    _MOVED.update({_name: (_home, _name, f"from {_home} import {_name}") for _name in _names})
del _home, _names


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(home), name)
        globals()[name] = value  # once looked up, a plain attribute
        return value
    moved = _MOVED.get(name)
    if moved is None:
        raise AttributeError(f"module 'mmmu_eval' has no attribute {name!r}")
    from mmmu_eval.core.renamed import moved as warn_moved

    module, attribute, instead = moved
    # never cached: each use of an old name says so
    return warn_moved("mmmu_eval", name, instead, getattr(_importlib.import_module(module), attribute))


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "BackendError",
    "ConfigError",
    "DataError",
    "FinishedRun",
    "LogTo",
    "MmmuEvalError",
    "RunConfig",
    "RunInterrupted",
    "RunResult",
    "StoreError",
    "SuiteResult",
    "__version__",
    "audit",
    "compare",
    "diagnose",
    "evaluate",
    "evaluate_async",
    "evaluate_suite",
    "evaluate_suite_async",
    "examples",
    "load_benchmark",
    "merge",
    "plan_run",
    "read_run",
    "report",
    "rescore",
    "score",
]
