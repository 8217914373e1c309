"""A damaged middle line of responses.jsonl: the error names the line and says what to do."""

import json

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import StoreError
from mmmu_eval.store.rundir import RunStore

GOOD = '{"item_id": "dev_Art_1", "status": "ok", "text": "A"}\n'


@pytest.mark.parametrize("bad, what", [
    ('{"item_id": "dev_Art_2", garbage\n', "not valid JSON"),
    ('{"item_id": "dev_Art_2", "status": "weird"}\n', "status must be one of"),
    ("[1, 2]\n", "expected a JSON object"),
])
def test_a_damaged_line_is_named_with_the_fix(tmp_path, bad, what):
    """The error named the line but stopped at "the file is damaged" (or at the field), leaving
    the user to guess whether deleting the line loses anything."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"status": "complete"}))
    (run / "responses.jsonl").write_text(GOOD + bad + GOOD)
    with pytest.raises(StoreError) as caught:
        RunStore.read(run).responses()
    message = str(caught.value)
    assert message.startswith(f"{run / 'responses.jsonl'} line 2: ")
    assert what in message
    assert message.endswith("fix or delete that line, then run the same command again (an item whose line is gone is asked again)")


def test_run_on_a_damaged_run_prints_one_line_and_exits_1(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(out), "--no-html"]
    assert main(argv) == 0
    lines = (out / "responses.jsonl").read_text().splitlines(True)
    lines[3] = '{"item_id": oops\n'
    (out / "responses.jsonl").write_text("".join(lines))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "responses.jsonl line 4: not valid JSON" in err and "fix or delete that line" in err
    assert "Traceback" not in err
