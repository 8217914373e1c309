"""The top-level package exposes exactly its documented surface, sorted, small, and stays light;
every type its entry points reach is documented where it lives; the names it held before warn."""

import ast
import dataclasses
import importlib
import inspect
import json
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval.run.resolve import Unpack


def test_all_is_sorted_and_names_exactly_the_lazy_table():
    """``__all__`` and ``_HOME`` (what ``__getattr__`` can load) name the same things: a name
    added to one and not the other fails here."""
    assert mmmu_eval.__all__ == sorted(set(mmmu_eval.__all__))
    assert set(mmmu_eval.__all__) == set(mmmu_eval._HOME) | {"__version__"}


def test_the_type_checking_imports_are_the_lazy_table():
    """What a type checker sees (the ``TYPE_CHECKING`` imports) is what ``__getattr__`` loads,
    name by name and module by module, read from the source."""
    tree = ast.parse(Path(mmmu_eval.__file__).read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    seen = {alias.asname or alias.name: node.module for node in guarded.body if isinstance(node, ast.ImportFrom)
            for alias in node.names}
    assert seen == mmmu_eval._HOME


def test_every_public_name_the_package_holds_is_exported():
    """In a fresh interpreter, before and after every name is loaded: each public attribute of
    the package (modules aside) is in ``__all__``, and ``dir`` shows exactly ``__all__``."""
    code = (
        "import json, types, mmmu_eval\n"
        "def public():\n"
        "    return sorted(n for n, v in vars(mmmu_eval).items()\n"
        "                  if not n.startswith('_') and not isinstance(v, types.ModuleType))\n"
        "before = public()\n"
        "for name in mmmu_eval.__all__: getattr(mmmu_eval, name)\n"
        "shown = [n for n in dir(mmmu_eval) if not n.startswith('_')\n"
        "         and not isinstance(getattr(mmmu_eval, n), types.ModuleType)]\n"
        "print(json.dumps([before, public(), shown]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, shown = json.loads(out.stdout)
    exported = set(mmmu_eval.__all__) - {"__version__"}
    assert set(before) <= exported, set(before) - exported
    assert set(after) == exported, set(after) ^ exported
    assert set(shown) == exported, set(shown) ^ exported


def test_every_exported_name_resolves_from_its_home():
    for name in mmmu_eval.__all__:
        value = getattr(mmmu_eval, name)
        assert value is not None, name
        if name != "__version__":
            assert getattr(importlib.import_module(mmmu_eval._HOME[name]), name) is value, name


#: The reference page: every public name, and where each type the root's entry points take or
#: return lives (``::: module.Name``, which mkdocstrings renders).
API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "api.md"


def documented() -> dict[int, str]:
    """``id(object) -> "module.Name"`` for every ``::: module.Name`` on the reference page."""
    found: dict[int, str] = {}
    for line in API_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("::: "):
            dotted = line[4:].strip()
            module, _, name = dotted.rpartition(".")
            found[id(getattr(importlib.import_module(module), name))] = dotted
    return found


def test_the_root_holds_at_most_thirty_names():
    """Issue 39: 82 names, result fields beside entry points; now the entry points, the records a
    user builds or catches, the errors and the version."""
    assert len(mmmu_eval.__all__) <= 30, len(mmmu_eval.__all__)


def test_every_type_in_a_public_signature_is_documented_where_it_lives():
    """Each of our classes that a root function or a root class's method takes or returns, a
    dataclass field of one of those holds (to any depth), or a keyword of an ``Unpack``-ed
    TypedDict names, is importable from the module the reference page names for it (the root, or
    its own module: ``mmmu_eval.auditing.suspects.Vote``); and every annotation resolves."""
    missing = public_types_not_in(documented(), [getattr(mmmu_eval, n) for n in mmmu_eval.__all__])
    assert not missing, "\n".join(f"{t} (from {where}) is not on docs/reference/api.md" for t, where in sorted(missing.items()))


def test_every_type_in_the_harden_api_is_exported():
    """The harden steps live in ``mmmu_eval.harden`` (their settings objects beside them): each
    of our classes their signatures reach is exported there or documented on the reference page."""
    import mmmu_eval.harden as harden

    exported = {id(getattr(harden, n)): f"mmmu_eval.harden.{n}" for n in harden.__all__}
    missing = public_types_not_in({**documented(), **exported}, [getattr(harden, n) for n in harden.__all__])
    assert not missing, "\n".join(f"{t} (from {where}) is not exported" for t, where in sorted(missing.items()))


def public_types_not_in(known: dict[int, str], public: list[object]) -> dict[str, str]:
    """Our classes reached from ``public``'s signatures that ``known`` (``id -> where``) lacks:
    ``{"module.Class": where it was met}``."""
    missing: dict[str, str] = {}
    for hint, where in reached_types(public).items():
        if id(hint) not in known:
            missing.setdefault(f"{hint.__module__}.{hint.__qualname__}", where)
    return missing


def reached_types(public: list[object]) -> dict[type, str]:
    """Every class of ours ``public``'s signatures reach, and where it was first met."""
    reached: dict[type, str] = {}

    def walk(hint: object, where: str) -> None:
        if typing.get_origin(hint) is not None:
            for arg in typing.get_args(hint):
                walk(arg, where)
            return
        if isinstance(hint, list):  # Callable[[...], ...]
            for arg in hint:
                walk(arg, where)
            return
        if not isinstance(hint, type) or not hint.__module__.startswith("mmmu_eval") or hint in reached:
            return
        reached[hint] = where
        if dataclasses.is_dataclass(hint):
            for field, field_hint in typing.get_type_hints(hint).items():
                walk(field_hint, f"{hint.__name__}.{field}")

    for function, where in public_callables(public):
        for name, hint in typing.get_type_hints(function).items():
            if typing.get_origin(hint) is Unpack:
                (keywords,) = typing.get_args(hint)
                walk(keywords, where)
                for key, key_hint in typing.get_type_hints(keywords).items():
                    walk(key_hint, f"{where}({key}=)")
            else:
                walk(hint, f"{where}({name})")
    for value in public:
        if isinstance(value, type):
            walk(value, value.__name__)
    return reached


def public_callables(public: list[object]) -> list[tuple[object, str]]:
    """The functions of ``public`` and the public methods (and ``__init__``) of its classes."""
    out: list[tuple[object, str]] = []
    for value in public:
        if inspect.isfunction(value):
            out.append((value, value.__name__))
        elif isinstance(value, type):
            for name, member in vars(value).items():
                if name.startswith("_") and name != "__init__":
                    continue
                function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(function):
                    out.append((function, f"{value.__name__}.{name}"))
    return out


#: The one parameter named just ``seed`` that stays: where it is the name the outside world gives it.
BARE_SEEDS = {
    "GenerationSettings": "the request's own seed field (OpenAI's `seed`, vLLM's and transformers'), "
                          "RunConfig.generation_seed sent as it is named on the wire",
}


def test_no_parameter_is_named_just_seed():
    """Issue 39: ``seed`` meant the fallback letter in ``score_run``, the bootstrap in ``compare``
    and generation in ``RunConfig``, with different defaults. Every seed of the public surface
    (the root's functions and classes, every type they reach, the harden and RL packages) is now
    named for what it seeds; a bare ``seed`` is allowed only where ``BARE_SEEDS`` says why."""
    import mmmu_eval.environments as environments
    import mmmu_eval.harden as harden

    public = [getattr(m, n) for m in (mmmu_eval, harden, environments) for n in m.__all__]
    public += list(reached_types(public))
    bare = []
    for function, where in public_callables(public):
        if "seed" in inspect.signature(function).parameters and where.partition(".")[0] not in BARE_SEEDS:
            bare.append(where)
    assert not bare, bare


#: Every name the root held before issue 39 and no longer exports, and the object it stands for
#: now: each still resolves, for one release, with a DeprecationWarning saying what to write.
OLD_NAMES = {
    "score_run": "mmmu_eval.commands.score.score", "report_run": "mmmu_eval.commands.report.report",
    "rescore_outputs": "mmmu_eval.commands.rescore.rescore", "load_run": "mmmu_eval.results.finished_run.read_run",
    "LoadedRun": "mmmu_eval.results.finished_run.FinishedRun", "load_dataset": "mmmu_eval.dataset.load.load_benchmark",
    "Dataset": "mmmu_eval.dataset.load.Benchmark",
    "AddedOption": "mmmu_eval.auditing.added.AddedOption", "Aggregate": "mmmu_eval.scoring.aggregate.Aggregate",
    "Agreement": "mmmu_eval.auditing.suspects.Agreement", "Answer": "mmmu_eval.auditing.sources.Answer",
    "Audit": "mmmu_eval.auditing.Audit", "Backend": "mmmu_eval.backends.base.Backend",
    "Cause": "mmmu_eval.doctor.causes.Cause", "ChatFunction": "mmmu_eval.backends.custom.ChatFunction",
    "Comparison": "mmmu_eval.results.comparison.Comparison", "Diagnosis": "mmmu_eval.doctor.diagnosis.Diagnosis",
    "Difference": "mmmu_eval.scoring.explain.Difference", "DisciplineDiff": "mmmu_eval.results.comparison.DisciplineDiff",
    "Display": "mmmu_eval.run.progress.Display", "Effect": "mmmu_eval.doctor.effects.Effect",
    "EvalProtocol": "mmmu_eval.prompt.protocol.EvalProtocol", "Explanation": "mmmu_eval.scoring.explain.Explanation",
    "Flip": "mmmu_eval.results.comparison.Flip", "ForeignFile": "mmmu_eval.harnesses.readers.foreign.ForeignFile",
    "ForeignRow": "mmmu_eval.harnesses.readers.foreign.ForeignRow", "Generates": "mmmu_eval.backends.custom.Generates",
    "GenerationSettings": "mmmu_eval.core.records.GenerationSettings",
    "HarnessVerdict": "mmmu_eval.scoring.harness_verdicts.HarnessVerdict",
    "ImagePart": "mmmu_eval.core.records.ImagePart", "ImageRef": "mmmu_eval.core.records.ImageRef",
    "Item": "mmmu_eval.core.records.Item", "ItemStats": "mmmu_eval.auditing.item_stats.ItemStats",
    "Manifest": "mmmu_eval.core.manifest.Manifest", "MergedRun": "mmmu_eval.commands.merge.MergedRun",
    "Problem": "mmmu_eval.auditing.structural.Problem", "RecordedScore": "mmmu_eval.scoring.harness_verdicts.RecordedScore",
    "Request": "mmmu_eval.core.records.Request", "Rescore": "mmmu_eval.harnesses.read.Rescore",
    "Rescored": "mmmu_eval.commands.rescore.Rescored", "RescoredRun": "mmmu_eval.harnesses.write.RescoredRun",
    "Response": "mmmu_eval.core.records.Response", "Results": "mmmu_eval.results.results_schema.Results",
    "RunAnswers": "mmmu_eval.auditing.sources.RunAnswers", "RunConfigArgs": "mmmu_eval.run.resolve.RunConfigArgs",
    "RunPlan": "mmmu_eval.run.pipeline.RunPlan", "RunReport": "mmmu_eval.commands.report.RunReport",
    "RunScore": "mmmu_eval.commands.score.RunScore", "SavedScoring": "mmmu_eval.run.outputs.SavedScoring",
    "Scoring": "mmmu_eval.scoring.scorer.Scoring", "ScoringSpec": "mmmu_eval.scoring.spec.ScoringSpec",
    "SuiteConfig": "mmmu_eval.suite.suite_config.SuiteConfig",
    "SuiteConfigArgs": "mmmu_eval.suite.suite_config.SuiteConfigArgs",
    "SuiteDiagnosis": "mmmu_eval.doctor.diagnosis.SuiteDiagnosis",
    "SuiteDisplay": "mmmu_eval.suite.suite_progress.SuiteDisplay", "SuiteRun": "mmmu_eval.suite.suite_config.SuiteRun",
    "Suspect": "mmmu_eval.auditing.suspects.Suspect", "Tally": "mmmu_eval.scoring.aggregate.Tally",
    "TextPart": "mmmu_eval.core.records.TextPart", "Verdict": "mmmu_eval.core.records.Verdict",
    "Vote": "mmmu_eval.auditing.suspects.Vote", "build_request": "mmmu_eval.prompt.protocol.build_request",
    "prompt_text": "mmmu_eval.prompt.protocol.prompt_text", "score_responses": "mmmu_eval.scoring.scorer.score_responses",
}


@pytest.mark.parametrize("old", sorted(OLD_NAMES))
def test_every_old_root_name_warns_and_resolves_to_its_object(old):
    module, _, name = OLD_NAMES[old].rpartition(".")
    with pytest.warns(DeprecationWarning, match=f"mmmu_eval.{old} is deprecated .* use "):
        value = getattr(mmmu_eval, old)
    assert value is getattr(importlib.import_module(module), name)
    assert old not in mmmu_eval.__all__ and old not in dir(mmmu_eval)


def test_the_old_names_are_every_name_the_root_dropped():
    assert set(OLD_NAMES) == set(mmmu_eval._MOVED)
    assert not set(OLD_NAMES) & set(mmmu_eval.__all__)


def test_the_old_keywords_of_the_entry_points_warn_and_still_work(tmp_path):
    """``seed=`` of ``score_run`` / ``rescore_outputs`` (the fallback) and ``compare`` /
    ``report_run`` / ``load_run`` (the bootstrap) keep working for one release, said."""
    run = mmmu_eval.evaluate(model="random", benchmark="mmmu", split="dev", data="sample", out=tmp_path / "run")
    with pytest.warns(DeprecationWarning, match=r"score\(seed=\) is deprecated .* pass fallback_seed="):
        assert mmmu_eval.score(run.run_dir, seed=7).spec.fallback_seed == 7
    with pytest.warns(DeprecationWarning, match=r"read_run\(seed=\) is deprecated .* pass bootstrap_seed="):
        mmmu_eval.read_run(run.run_dir, seed=1)
    with pytest.raises(TypeError, match="pass fallback_seed= only"):
        mmmu_eval.score(run.run_dir, seed=7, fallback_seed=8)


def test_nothing_at_the_root_shadows_hugging_face_datasets():
    """A TRL script imports both; ``from mmmu_eval import *`` must not replace ``load_dataset``."""
    datasets = pytest.importorskip("datasets")
    shadowed = {n for n in mmmu_eval.__all__ if not n.startswith("_") and hasattr(datasets, n)}
    assert not shadowed, shadowed
    assert {"load_dataset", "Dataset"} <= set(dir(datasets))


def test_run_interrupted_is_exported_where_evaluate_documents_it():
    from mmmu_eval.run.pipeline import RunInterrupted

    assert mmmu_eval.RunInterrupted is RunInterrupted and "RunInterrupted" in (mmmu_eval.evaluate.__doc__ or "")


def test_importing_the_package_loads_no_heavy_engine():
    """A notebook import must not pay for torch, transformers or vllm."""
    code = (
        "import sys, mmmu_eval; "
        "print(','.join(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_matches_the_distribution():
    from importlib.metadata import version

    assert mmmu_eval.__version__ == version("mmmu-eval")


def test_the_run_command_loads_only_what_comes_before_its_first_request():
    """Start-up of `mmmu-eval run --model openai:...`: the CLI, the run path and the API backend,
    but no model engine, no SDK, and none of the report stages (they come after the last answer).
    Nor pyarrow: the first request (the model listing) leaves before the data is read."""
    code = (
        "import sys\n"
        "from mmmu_eval.cli.main import build_parser\n"
        "args = build_parser(['run', '--model', 'openai:m']).parse_args(['run', '--model', 'openai:m'])\n"
        "import mmmu_eval.run.pipeline\n"
        "from mmmu_eval.backends.registry import make_backend\n"
        "from mmmu_eval.core.config import RunConfig\n"
        "from mmmu_eval.run.backend_settings import backend_settings\n"
        "make_backend('openai:m', backend_settings(RunConfig(model='openai:m', base_urls=('http://127.0.0.1:9/v1',))))\n"
        "heavy = ('torch', 'transformers', 'vllm', 'openai', 'httpx', 'pydantic', 'rich.progress', 'rich.table',\n"
        "         'pyarrow', 'numpy', 'mmmu_eval.dataset.load',\n"
        "         'mmmu_eval.rendering.run_page', 'mmmu_eval.results.results_json',\n"
        "         'mmmu_eval.cli.report', 'mmmu_eval.cli.data')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_cli_registers_only_the_subcommand_it_runs():
    from mmmu_eval.cli.main import COMMANDS, build_parser

    def commands(parser):
        return sorted(next(a for a in parser._actions if a.dest == "command").choices)

    assert commands(build_parser(["-v", "run", "--model", "random"])) == ["run"]
    assert commands(build_parser(["--help"])) == sorted(COMMANDS)


def test_diagnose_is_the_doctor_command_s_function():
    from mmmu_eval.cli.main import COMMANDS
    from mmmu_eval.commands.diagnose import diagnose

    assert mmmu_eval.diagnose is diagnose and "diagnose" in mmmu_eval.__all__
    assert "doctor" in COMMANDS
