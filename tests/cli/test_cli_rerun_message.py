"""What `run` says when its directory holds a run already: what it asked, never more.

What broke: a finished run run again said "continued … only failed and missing items were
asked" when nothing was asked at all.
"""

from __future__ import annotations

from mmmu_eval.cli.main import main


def test_a_finished_run_run_again_says_finished_already_nothing_asked(tmp_path, capsys):
    argv = ["run", "--model", "random", "--data", "sample", "--out", str(tmp_path / "run"), "--no-html"]
    assert main(argv) == 0
    assert "finished already" not in capsys.readouterr().out
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{tmp_path / 'run'}: finished already: nothing asked"
    assert "continued" not in out


def test_a_run_missing_answers_says_how_many_it_asked(tmp_path, capsys):
    argv = ["run", "--model", "random", "--data", "sample", "--out", str(tmp_path / "run"), "--no-html"]
    assert main(argv) == 0
    responses = tmp_path / "run" / "responses.jsonl"
    lines = responses.read_text().splitlines(keepends=True)
    responses.write_text("".join(lines[:-3]))  # three answers lost: they are missing now
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"continued the run in {tmp_path / 'run'}: 3 item(s) asked" in " ".join(out.split())
