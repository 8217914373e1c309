"""The examples on the README and the documentation pages work as printed.

- Every ```` ```python ```` block runs, each in a fresh namespace and a temporary directory (so
  the runs it writes land there), on the bundled sample. A block that cannot run here (it needs
  a server, a GPU or a downloaded model) is preceded by ``<!-- not run: WHY -->``, and says so.
- Every ``mmmu-eval`` command in a ```` ```bash ```` or ```` ```text ```` block is parsed by the
  real argument parser, so a renamed or removed flag, a wrong choice or a missing argument fails
  here rather than on a reader's machine. Parsing runs nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = {ROOT / "docs" / "reference" / "cli.md"}
PAGES = sorted({ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")} - GENERATED)
#: Blocks on pages this project's other work owns, which cannot run here, with why (the pages
#: this suite owns say so in the page instead, with ``<!-- not run: WHY -->``). Keyed by the page
#: and the block's first words, so a moved block keeps its reason and a new one is run.
NOT_RUN = {
    ("docs/doctor.md", "import mmmu_eval\nd = mmmu_eval.diagnose(\"runs/qwen-val\""):
        "diagnoses a run directory of a real model that the reader made before",
}
FENCE = re.compile(r"^(?:<!-- not run: (?P<skip>[^>]+?) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.M | re.S)


def _blocks(lang: set[str]) -> list[tuple[str, int, str, str | None]]:
    """(page, line, body, why it is not run or None) of each fenced block in one of ``lang``."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            if m.group("lang") in lang:
                line = text.count("\n", 0, m.start("body")) + 1
                found.append((str(page.relative_to(ROOT)), line, m.group("body"), m.group("skip")))
    return found


PYTHON = _blocks({"python"})


@pytest.mark.parametrize("page, line, body, skipped", PYTHON, ids=[f"{p}:{n}" for p, n, _, _ in PYTHON])
def test_python_examples_run(page, line, body, skipped, tmp_path, monkeypatch):
    reason = skipped or next((why for (where, start), why in NOT_RUN.items() if where == page and body.startswith(start)), None)
    if reason:
        pytest.skip(f"{page}:{line} is not run here: {reason}")
    monkeypatch.chdir(tmp_path)
    code = compile(body, f"{page}:{line}", "exec")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(code, {"__name__": "__doc_example__"})


def _commands(body: str) -> list[str]:
    """The ``mmmu-eval`` command lines of a shell block: continuations joined, comments cut,
    shell loops and substitutions (``$((i+1))``, ``$i``) given a sample value."""
    joined = re.sub(r"\\\n\s*", " ", body)
    commands = []
    for raw in joined.splitlines():
        line = raw.strip()
        line = re.sub(r"^\$ ", "", line)                       # a prompt in a transcript
        line = re.sub(r"^(\w+=\S+\s+)+", "", line)             # CUDA_VISIBLE_DEVICES=$i ...
        if not line.startswith("mmmu-eval "):
            continue
        line = line.split(" &")[0].rstrip(" &")
        line = line.replace("$((i+1))", "1").replace("$i", "0")
        words = _without_optional_groups(shlex.split(line, comments=True))
        commands.append(words[1:])
    return commands


def _without_optional_groups(words: list[str]) -> list[str]:
    """A synopsis line (``--out DIR [--trials 10]``) without its bracketed optional parts."""
    kept, depth = [], 0
    for word in words:
        if word.startswith("[") and not word.startswith("[]"):
            depth += word.count("[")
        if depth == 0:
            kept.append(word)
        depth -= word.count("]") if depth else 0
    return kept


SHELL = [(page, line, words) for page, line, body, _ in _blocks({"bash", "sh", "console", "text", ""})
         for words in _commands(body)]


def test_the_pages_show_many_commands():
    assert len(SHELL) > 60 and len(PYTHON) >= 8


@pytest.mark.parametrize("page, line, words", SHELL, ids=[f"{p}:{n}:{' '.join(w[:2])}" for p, n, w in SHELL])
def test_shell_commands_parse(page, line, words, monkeypatch):
    from mmmu_eval.cli.main import build_parser

    monkeypatch.setenv("COLUMNS", "200")
    parser = build_parser(words)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args(words)
    except SystemExit as exc:
        if exc.code == 0 and {"--version", "-V", "--help", "-h"} & set(words):
            return
        pytest.fail(f"{page} (block at line {line}): `mmmu-eval {' '.join(words)}` does not parse "
                    f"(exit {exc.code}): {err.getvalue().strip()}", pytrace=False)
    assert isinstance(args, argparse.Namespace)
    assert getattr(args, "func", None) is not None or words[-1] in ("-h", "--help"), \
        f"{page}:{line}: `mmmu-eval {' '.join(words)}` names no command"
