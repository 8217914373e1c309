"""`doctor`, `score` and `rescore` at 80 columns: lines fold between words, never inside one.

What broke (issue 28): their long lines reached the terminal whole, and the terminal folded them
wherever the width ran out, mid-word (``w|orth``, ``validation_A|rt_1``).
"""

from __future__ import annotations

import json

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.cli.wrap import wrap


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("wrap") / "run"
    assert main(["run", "--model", "random", "--data", "sample", "--out", str(out), "--no-html"]) == 0
    return out


def _pro_file(tmp_path):
    rows = [{"id": f"test_Art_{i}", "options": "['x', 'y', 'z']", "answer": "A",
             "response": "Answer: A" if i % 3 else "I would rather not say which one it is."} for i in range(1, 10)]
    path = tmp_path / "m_standard_direct.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _both(capsys, monkeypatch, argv) -> tuple[str, str]:
    """The command's output to a pipe (whole lines) and at COLUMNS=80."""
    monkeypatch.delenv("COLUMNS", raising=False)
    capsys.readouterr()
    main(argv)
    whole = capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "80")
    main(argv)
    return whole, capsys.readouterr().out


@pytest.mark.parametrize("command", ["doctor", "score", "rescore"])
def test_long_lines_fold_between_words_at_80_columns(command, run_dir, tmp_path, capsys, monkeypatch):
    argv = {"doctor": ["doctor", str(run_dir), "--published", "69.1"],
            "score": ["score", str(run_dir), "--parser", "official", "--parser", "strict", "--parser", "boxed"],
            "rescore": ["rescore", str(_pro_file(tmp_path)), "--format", "official-mmmu-pro"]}[command]
    whole, folded = _both(capsys, monkeypatch, argv)
    assert max(len(line) for line in whole.splitlines()) > 80, "the case needs a line longer than the terminal"
    assert folded.split() == whole.split()  # the same words in the same order: none cut in two
    assert all(len(line) <= 80 or " " not in line.strip() for line in folded.splitlines()), folded


def test_an_indented_line_keeps_its_indent_and_an_id_is_never_split():
    text = "  coverage 860 items up to +86.00 points worth 0.00 points at expected value; validation_Art_1 and more"
    lines = wrap(text, 40)
    assert all(line.startswith("  ") for line in lines) and all(len(line) <= 40 for line in lines)
    assert any("validation_Art_1" in line for line in lines)
    assert wrap(text, None) == [text]
