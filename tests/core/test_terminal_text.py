"""Text from outside never drives the terminal (issue 40): a server's error message, a model name,
an item's answer or a file name reaches the terminal with its control characters escaped, its
Rich markup printed as written and no emoji made of it. On main a server's message retitled the
window, cleared the screen and planted a hyperlink; ``--model plug:smile`` printed a smiley in the
headline ("plug:smile: 12.5% ..."), and ``[bold]`` in a name was styling.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.fault_server import TERMINAL_ESCAPES, FaultServer
from fakes.processes import offline_environment
from mmmu_eval import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.core.untrusted import for_rich, for_terminal
from mmmu_eval.run.result import NO_SCORE_STATUS as NO_SCORE  # no item scored: exit 3 (issue 42)

#: What a terminal would obey: none may reach it raw.
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\r")
HOSTILE_NAME = "plug:smile:[bold]x[/bold]\x1b]0;pwned\x07"


def assert_shown_not_obeyed(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text[-2000:])
    assert "\U0001f604" not in text, "an emoji code became an emoji"


def test_for_terminal_escapes_every_control_and_keeps_lines():
    shown = for_terminal(TERMINAL_ESCAPES + "\nnext\tline")
    assert_shown_not_obeyed(shown)
    assert "\\x1b]0;pwned\\x07" in shown and "\\u202e" in shown and "\\x9b" in shown and "\\x0d" in shown
    assert shown.endswith("\nnext\tline")
    assert for_rich("[bold]x[/bold]") == "\\[bold]x\\[/bold]"


@pytest.mark.slow
def test_a_server_error_message_is_shown_escaped_in_every_log_line(tmp_path):
    with FaultServer(fault_rate=1.0, max_faults=100, faults=("escape-error",), spare_probe=True) as server:
        done = subprocess.run(
            [sys.executable, "-m", "mmmu_eval", "-v", "run", "--model", "openai:fake-model", "--base-url", server.url,
             "--data", "sample", "--split", "dev", "--subjects", "Art", "--max-attempts", "2", "--out", str(tmp_path / "r")],
            env=offline_environment(), capture_output=True, text=True, timeout=300)
    assert done.returncode == NO_SCORE and "Traceback" not in done.stderr
    assert "overloaded \\x1b]0;pwned\\x07\\x1b[2J\\x1b]8;;http://evil.example/" in done.stderr
    assert_shown_not_obeyed(done.stderr + done.stdout)
    stored = [json.loads(line) for line in (tmp_path / "r" / "responses.jsonl").read_text().splitlines()]
    assert all("\x1b]0;pwned" in r["error"] for r in stored), "stored as received: only what is shown is escaped"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return evaluate(model="random", benchmark="mmmu", split="dev", data="sample", subjects=["Art"],
                    out=tmp_path / "run").run_dir


def test_a_model_name_in_the_headline_is_text_not_markup_nor_emoji(run, capsys):
    results = json.loads((run / "results.json").read_text())
    results["run"]["model"] = HOSTILE_NAME
    (run / "results.json").write_text(json.dumps(results))
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    assert_shown_not_obeyed(out)
    assert "plug:smile:[bold]x[/bold]\\x1b]0;pwned\\x07:" in out


def test_an_error_line_naming_outside_text_is_escaped(tmp_path, capsys):
    """The one error line (``cli/main``): a directory name from outside, as the refusal names it."""
    odd = tmp_path / "run :smile: [bold]\x1b[2J"
    odd.write_text("not a directory")
    assert main(["report", str(odd)]) == 1
    err = capsys.readouterr().err
    assert_shown_not_obeyed(err)
    assert "run :smile: [bold]\\x1b[2J" in err


def test_a_disagreement_shows_a_capped_escaped_prediction(capsys):
    """``score --parser a --parser b`` lines: an open answer's prediction is its text, so it is cut
    (``LINE_CHARACTERS``) and escaped. An ungraded item: the parsers disagree on the prediction."""
    import dataclasses

    from mmmu_eval.cli.score import summary_lines
    from mmmu_eval.cli.wrap import echo
    from mmmu_eval.dataset.load import load_benchmark
    from mmmu_eval.core.records import Response
    from mmmu_eval.scoring.scorer import score_responses

    item = next(it for it in load_benchmark("mmmu", split="dev", data="sample").items if it.id == "dev_Art_1")
    item = dataclasses.replace(item, answer=None)  # open, without gold
    text = "Final answer: \x1b]0;pwned\x07 " + "x" * 5000
    scoring = score_responses([item], {item.id: Response(item.id, "ok", text=text)}, parsers=("official", "strict"))
    assert len(scoring.verdicts["official"][item.id].pred) > 5000  # the scoring reads the whole text
    echo("\n".join(summary_lines(scoring, 1, 5)))
    out = capsys.readouterr().out
    assert_shown_not_obeyed(out)
    assert "dev_Art_1: official='answer: \\x1b]0;pwned\\x07 xxx" in out, out
    assert "cut at 200 of 5,011 characters: 4,811 more characters" in out and max(len(line) for line in out.splitlines()) < 1_000  # two predictions of 5,000
