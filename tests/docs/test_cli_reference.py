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
