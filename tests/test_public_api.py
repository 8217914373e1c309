"""The top-level package exposes exactly its documented surface, sorted, and stays light."""

import subprocess
import sys
import types

import mmmu_eval


def test_all_is_sorted_and_complete():
    """Names load on first use (PEP 562), so ``dir`` is the surface, not what is loaded so far."""
    public = {
        name
        for name in dir(mmmu_eval)
        if not name.startswith("_") and not isinstance(getattr(mmmu_eval, name), types.ModuleType)
    }
    assert mmmu_eval.__all__ == sorted(set(mmmu_eval.__all__))
    assert public | {"__version__"} == set(mmmu_eval.__all__)


def test_every_exported_name_resolves():
    for name in mmmu_eval.__all__:
        assert getattr(mmmu_eval, name) is not None, name


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
        "from mmmu_eval.config import RunConfig\n"
        "from mmmu_eval.run.backend_settings import backend_settings\n"
        "make_backend('openai:m', backend_settings(RunConfig(model='openai:m', base_urls=('http://127.0.0.1:9/v1',))))\n"
        "heavy = ('torch', 'transformers', 'vllm', 'openai', 'httpx', 'pydantic', 'rich.progress', 'rich.table',\n"
        "         'pyarrow', 'numpy', 'mmmu_eval.dataset.load',\n"
        "         'mmmu_eval.report.html', 'mmmu_eval.report.results',\n"
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
    from mmmu_eval.doctor.diagnose import diagnose

    assert mmmu_eval.diagnose is diagnose and "diagnose" in mmmu_eval.__all__
    assert "doctor" in COMMANDS
