"""`mmmu-eval run` on a snapshot with unreadable rows: they must not vanish from the run silently."""

import json

from fakes.parquet_rows import mmmu_row, write_mmmu
from mmmu_eval.cli.main import main


def _snapshot(tmp_path):
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "dev", [
        mmmu_row("dev_Art_1"),
        mmmu_row("dev_Art_2", options="A) red, B) blue"),  # not a Python list
        mmmu_row("dev_Art_3"),
    ])
    return root


def test_an_unreadable_row_makes_the_run_exit_1_and_names_the_item(tmp_path, capsys):
    """A row whose options did not parse was dropped with only a log line: the run exited 0, its
    counts and accuracy left the item out, and nothing told the user to fix the data."""
    out = tmp_path / "run"
    rc = main(["run", "--split", "dev", "--data", str(_snapshot(tmp_path)), "--model", "random", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 1
    assert "1 dataset row(s) could not be read" in err
    assert "dev_Art_2: options 'A) red, B) blue' do not parse as a list" in err
    assert "Fix the data, then run the same command again" in err
    assert "Traceback" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dataset"]["problems"][0].startswith("dev_Art_2: options")
    assert manifest["counts"]["items"] == 2  # the two readable items were asked and stored


def test_after_the_data_is_fixed_the_same_command_asks_the_row_and_exits_0(tmp_path, capsys):
    """Fixing the row and rerunning must continue the run (nothing lost) and ask only that item."""
    root = _snapshot(tmp_path)
    out = tmp_path / "run"
    argv = ["run", "--split", "dev", "--data", str(root), "--model", "random", "--out", str(out), "--no-html"]
    assert main(argv) == 1
    before = (out / "responses.jsonl").read_text().splitlines()
    write_mmmu(root, "Art", "dev", [mmmu_row("dev_Art_1"), mmmu_row("dev_Art_2"), mmmu_row("dev_Art_3")])
    assert main(argv) == 0
    after = (out / "responses.jsonl").read_text().splitlines()
    assert after[: len(before)] == before
    assert [json.loads(line)["item_id"] for line in after[len(before):]] == ["dev_Art_2"]
    # the fix changed the files' digest: continued (the run asked for it), and recorded
    assert [c["what"] for c in json.loads((out / "manifest.json").read_text())["data_changes"]] == ["data"]


def test_ids_that_skip_the_bad_row_exit_0(tmp_path, capsys):
    """With --ids the user chose the items; a bad row elsewhere is not part of the run."""
    argv = ["run", "--split", "dev", "--data", str(_snapshot(tmp_path)), "--model", "random",
            "--ids", "dev_Art_1", "--out", str(tmp_path / "run")]
    assert main(argv) == 0


def test_a_limit_that_stops_before_the_bad_row_exits_0(tmp_path, capsys):
    """`--limit 1` asked only dev_Art_1 and finished it, but exited 1 for a bad row it never
    reached (found by trying --limit on a corrupted snapshot)."""
    argv = ["run", "--split", "dev", "--data", str(_snapshot(tmp_path)), "--model", "random",
            "--limit", "1", "--out", str(tmp_path / "run")]
    assert main(argv) == 0
