"""The top-level package exposes exactly its documented surface, sorted, and stays light."""

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


def test_every_type_in_a_public_signature_is_exported():
    """Each of our classes that a public function or method takes or returns, a dataclass
    field of one of those holds (to any depth), or a keyword of an ``Unpack``-ed TypedDict
    names, is exported; and every annotation resolves (``typing.get_type_hints``)."""
    missing = public_types_not_exported(mmmu_eval, [getattr(mmmu_eval, n) for n in mmmu_eval.__all__])
    assert not missing, "\n".join(f"{t} (from {where}) is not exported" for t, where in sorted(missing.items()))


def test_every_type_in_the_harden_api_is_exported():
    """The harden steps live in ``mmmu_eval.harden`` (their settings objects beside them): each
    of our classes their signatures reach is exported there or at the top."""
    import mmmu_eval.harden as harden

    missing = public_types_not_exported(harden, [getattr(harden, n) for n in harden.__all__], also=(mmmu_eval,))
    assert not missing, "\n".join(f"{t} (from {where}) is not exported" for t, where in sorted(missing.items()))


def public_types_not_exported(namespace: types.ModuleType, public: list[object], *,
                              also: tuple[types.ModuleType, ...] = ()) -> dict[str, str]:
    """Our classes reached from ``public``'s signatures that neither ``namespace`` nor ``also``
    exports: ``{"module.Class": where it was met}``."""
    exported = {id(getattr(m, n)) for m in (namespace, *also) for n in m.__all__}
    missing: dict[str, str] = {}
    seen: set[type] = set()

    def walk(hint: object, where: str) -> None:
        if typing.get_origin(hint) is not None:
            for arg in typing.get_args(hint):
                walk(arg, where)
            return
        if isinstance(hint, list):  # Callable[[...], ...]
            for arg in hint:
                walk(arg, where)
            return
        if not isinstance(hint, type) or not hint.__module__.startswith("mmmu_eval"):
            return
        if id(hint) not in exported:
            missing.setdefault(f"{hint.__module__}.{hint.__qualname__}", where)
        if hint in seen:
            return
        seen.add(hint)
        if dataclasses.is_dataclass(hint):
            for field, field_hint in typing.get_type_hints(hint).items():
                walk(field_hint, f"{hint.__name__}.{field}")

    def signature(function: object, where: str) -> None:
        for name, hint in typing.get_type_hints(function).items():
            if typing.get_origin(hint) is Unpack:
                (keywords,) = typing.get_args(hint)
                walk(keywords, where)
                for key, key_hint in typing.get_type_hints(keywords).items():
                    walk(key_hint, f"{where}({key}=)")
            else:
                walk(hint, f"{where}({name})")

    for value in public:
        if inspect.isfunction(value):
            signature(value, value.__name__)
        elif isinstance(value, type):
            walk(value, value.__name__)
            for name, member in vars(value).items():
                if name.startswith("_") and name != "__init__":
                    continue
                function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(function):
                    signature(function, f"{value.__name__}.{name}")
    return missing


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
