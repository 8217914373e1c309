"""The CLI is thin (issue 39): each subcommand parses, calls its API function and prints; the
flags several subcommands share are declared once (``cli/shared_flags.py``); the seeds' old
``--seed`` still works for one release, said; errors name the flag the user typed."""

from __future__ import annotations

import argparse
import ast
import inspect
from pathlib import Path

import pytest

import mmmu_eval.cli as cli_package
from mmmu_eval.cli.main import build_parser, main

CLI = Path(cli_package.__file__).parent

#: The most lines a subcommand's handler may have: parse, call, print.
HANDLER_LINES = 25

#: Flags more than one subcommand takes, declared in ``cli/shared_flags.py`` only (run and suite
#: declare theirs from RunConfig's fields, ``cli.run.add_run_flags``).
SHARED = ("--json", "--data", "--revision", "--benchmark", "--split", "--setting", "--subjects", "--limit", "--ids",
          "--bootstrap", "--bootstrap-seed", "--fallback-seed", "--generation-seed", "--draw-seed", "--published",
          "--seed")


def handlers(parser: argparse.ArgumentParser, name: str = "mmmu-eval") -> list[tuple[str, object]]:
    """Every subcommand's handler (``set_defaults(func=...)``), by its command line."""
    found = []
    func = parser.get_default("func")
    if func is not None and not (inspect.isfunction(func) and func.__name__ == "<lambda>"):
        found.append((name, func))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                found += handlers(subparser, f"{name} {sub}")
    return found


def test_every_handler_parses_calls_and_prints_in_a_few_lines():
    """``cli/report.py:run`` was 72 lines of logic (suite or run, the audited figure, three JSON
    shapes); that is ``commands.report.report_dirs`` now, and no handler holds such logic."""
    found = handlers(build_parser())
    assert len(found) >= 14, [n for n, _ in found]
    long = {name: len(inspect.getsource(func).splitlines()) for name, func in found
            if len(inspect.getsource(func).splitlines()) > HANDLER_LINES}
    assert not long, long


def test_the_shared_flags_are_declared_once():
    declared: dict[str, list[str]] = {}
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in SHARED):
                declared.setdefault(node.args[0].value, []).append(path.name)
    assert {flag: files for flag, files in declared.items() if files != ["shared_flags.py"] * len(files)} == {}
    assert {flag for flag, files in declared.items()} >= {f for f in SHARED if not f.endswith("seed")}  # seeds: _seed()
    assert declared["--json"] == ["shared_flags.py", "shared_flags.py"]  # print JSON; write JSON to a file


@pytest.mark.parametrize("argv, dest, new", [
    (["compare", "a", "b", "--seed", "3"], "bootstrap_seed", "--bootstrap-seed"),
    (["report", "a", "--seed", "3"], "bootstrap_seed", "--bootstrap-seed"),
    (["score", "a", "--seed", "3"], "fallback_seed", "--fallback-seed"),
    (["rescore", "a", "--seed", "3"], "fallback_seed", "--fallback-seed"),
    (["run", "--model", "random", "--seed", "3"], "generation_seed", "--generation-seed"),
    (["suite", "--model", "random", "--seed", "3"], "generation_seed", "--generation-seed"),
    (["harden", "render", "--data", "d", "--out", "o", "--seed", "3"], "draw_seed", "--draw-seed"),
])
def test_the_old_seed_flag_sets_the_seed_it_meant_and_says_the_new_name(argv, dest, new, capsys):
    args = build_parser(argv).parse_args(argv)
    assert getattr(args, dest) == 3
    assert f"--seed is deprecated and goes in the next release: use {new}" in capsys.readouterr().err
    assert getattr(build_parser(argv).parse_args([*argv[:-2], new, "3"]), dest) == 3


def test_the_flags_help_shows_no_deprecated_alias():
    for command in ("compare", "report", "score", "rescore", "run", "suite", "harden"):
        sub = next(a for a in build_parser([command])._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[command]
        if command == "harden":
            parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["render"]
        assert "--seed " not in parser.format_help(), command


def test_a_cli_error_names_the_flag_and_the_same_python_error_the_keyword(capsys):
    """One place spells an argument (``core.errors.argument``): the CLI passes its flags."""
    assert main(["run", "--model", "random", "--data", "sample", "--split", "devv"]) == 2
    assert "error: --split 'devv' is not one of dev, validation, test" in capsys.readouterr().err
    from mmmu_eval import ConfigError, evaluate

    with pytest.raises(ConfigError, match=r"^split='devv' is not one of dev, validation, test$"):
        evaluate(model="random", data="sample", split="devv")


def test_a_published_percent_typed_on_the_command_line_is_the_api_s_percent_string():
    from mmmu_eval.cli.shared_flags import published_flag

    assert [published_flag(t) for t in ("58.6", "58.6%", " 61 ", "GPT-4o (0513)")] == \
        ["58.6%", "58.6%", "61%", "GPT-4o (0513)"]
