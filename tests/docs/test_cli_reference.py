"""docs/reference/cli.md is the argument parser, printed: it is current, and it names every flag."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("cli_reference", module)
    spec.loader.exec_module(module)
    return module


def test_the_committed_cli_reference_is_current():
    page = (ROOT / "docs" / "reference" / "cli.md").read_text()
    assert page == _generator().render(), "docs/reference/cli.md is out of date: run python scripts/cli_reference.py"


def test_every_command_and_flag_of_the_parser_is_on_the_page():
    """Walks the parser independently of the page's layout: each command has its section and
    each option string appears in it, so a renderer that dropped a group or a subcommand fails."""
    import argparse

    from mmmu_eval.cli.main import build_parser

    page = _generator().render()
    seen = 0

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        nonlocal seen
        heading = f"`{' '.join(path)}`"
        assert f"# {heading}\n" in page, f"no section for {heading}"
        section = page.split(f"# {heading}\n", 1)[1]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, [*path, name])
            elif action.help != argparse.SUPPRESS:
                for flag in action.option_strings:
                    assert f"`{flag}`" in section, f"{flag} of {heading} is missing"
                    seen += 1

    walk(build_parser(None), ["mmmu-eval"])
    assert seen > 100


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch, capsys):
    generator = _generator()
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n")
    monkeypatch.setattr(generator, "PAGE", stale)
    assert generator.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert generator.main([]) == 0 and generator.main(["--check"]) == 0


# -- what the page shows: placeholders as text, every flag's default ------------------------------

def _prose(page: str) -> str:
    """The page without code blocks and code spans: the text Markdown reads as inline HTML."""
    import re

    page = re.sub(r"```.*?```", "", page, flags=re.S)
    page = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", page)


def test_no_placeholder_on_the_page_is_left_for_markdown_to_read_as_a_tag():
    """``<image N>``, ``runs/<benchmark>-...`` and ``suites/<model>[-<data>]`` were taken as HTML
    tags by MkDocs and dropped from the page; outside code, no ``<`` may stand unescaped."""
    import re

    page = _generator().render()
    assert not re.findall(r"<[^\s=]", _prose(page))
    for shown in ("&lt;image N&gt;", "runs/&lt;benchmark&gt;-", "suites/&lt;model&gt;[-&lt;data&gt;]"):
        assert shown in page


def test_the_escaping_reads_a_placeholder_as_text():
    generator = _generator()
    assert generator._cell("refers to <image 3> | a & b *x*") == "refers to &lt;image 3&gt; \\| a &amp; b \\*x\\*"


def _actions():
    """Every (command, action) of the parser that takes a value and shows in help."""
    import argparse

    from mmmu_eval.cli.main import build_parser

    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, [*path, name])
            elif action.help != argparse.SUPPRESS and action.nargs != 0:
                found.append((" ".join(path), action))

    walk(build_parser(None), ["mmmu-eval"])
    return found


def _row(page: str, command: str, action) -> list[str]:
    """The cells of ``action``'s row in ``command``'s section."""
    section = page.split(f"# `{command}`\n", 1)[1].split("\n#", 1)[0]
    flag = f"`{action.option_strings[-1]}`" if action.option_strings else f"`{action.metavar or action.dest}`"
    row = next(line for line in section.splitlines() if line.startswith("| ") and flag in line.split(" | ")[0])
    return [cell.strip() for cell in row.strip("|").split(" | ")]


def test_every_value_flag_shows_its_default_and_argparse_s_own_where_it_has_one():
    """190 of 238 value flags had an empty default column: the default stood only in the help
    sentence. Now each shows one (argparse's, the declared one, or 'required'), and where argparse
    holds a value that is not overridden by a declared one, that value."""
    from mmmu_eval.cli.flag_defaults import default_of, default_text

    page = _generator().render()
    actions = _actions()
    assert len(actions) > 200
    for command, action in actions:
        _, default, _ = _row(page, command, action)
        name = action.option_strings or action.dest
        assert default, f"{command} {name}: no default on the page"
        declared = getattr(action, "declared_default", None)
        if declared is None and action.default not in (None, "", []) and not action.required:
            assert default == f"`{default_text(action)}`", (command, name, default)
        assert default_of(action) is not None


def test_no_help_sentence_is_the_only_place_a_default_lives():
    """The default is declared on the flag (argparse's or ``flag_defaults.declare``), and ``--help``
    prints it from there; a help text that says it too would be the prose copy that drifts."""
    import re

    for command, action in _actions():
        assert not re.search(r"\bdefault\b", action.help or ""), f"{command} {action.option_strings}: {action.help}"


def test_help_prints_each_default_the_page_shows(capsys):
    """``mmmu-eval COMMAND --help`` ends each flag's help with the default the page's column has."""
    import argparse

    from mmmu_eval.cli.flag_defaults import default_text
    from mmmu_eval.cli.main import build_parser

    parser = build_parser(None)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flat = "".join(sub.choices["run"].format_help().split())  # argparse folds lines, "mmmu-" at an end
    for action in sub.choices["run"]._actions:
        shown = default_text(action)
        if shown is not None:
            assert f"(default:{''.join(shown.split())})" in flat, action.option_strings
    assert "(default:64)" in flat and "(default:validation)" in flat


def test_each_run_field_s_text_says_the_default_its_flag_shows():
    """RunConfig's field docstrings (the API reference) and the flags' declared defaults (the CLI
    reference) say one thing: each default's value, or each number in its phrase, is in the text."""
    import re
    from dataclasses import fields

    from mmmu_eval.cli.flag_defaults import Phrase, run_default
    from mmmu_eval.core.config import RunConfig, field_docs

    docs = field_docs()
    for f in fields(RunConfig):
        declared = run_default(f.name)
        value = declared() if callable(declared) else declared
        if value is None:
            continue
        text = " ".join(docs[f.name].split())
        wanted = re.findall(r"\d+", value) if isinstance(value, Phrase) else [f"{value:g}" if isinstance(value, float) else str(value)]
        for piece in wanted:
            assert piece in text, f"RunConfig.{f.name}: its docstring does not say {piece!r} ({value!r})"


def test_each_run_field_s_text_names_its_flag():
    import argparse

    from mmmu_eval.cli.main import build_parser
    from mmmu_eval.core.config import field_docs

    sub = next(a for a in build_parser(["run"])._actions if isinstance(a, argparse._SubParsersAction))
    flags = {a.dest: a.option_strings for a in sub.choices["run"]._actions}
    for name, text in field_docs().items():
        assert any(f"``{flag}" in text for flag in flags[name]), f"RunConfig.{name}: its docstring names no flag of {flags[name]}"
