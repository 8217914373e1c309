"""`mmmu-eval rescore` on a file with nothing it can score must fail, not report 0/0."""

from mmmu_eval.cli.main import main


def test_rescore_of_a_file_of_the_wrong_kind_exits_1(tmp_path, capsys):
    """An HTML file given as official-mmmu-pro printed "Accuracy: 0.00% (0/0)" and every line as a
    skipped problem, then exited 0, as if the model had scored zero."""
    page = tmp_path / "report.html"
    page.write_text("<!doctype html>\n<html><body>not JSONL</body></html>\n")
    rc = main(["rescore", str(page), "--format", "official-mmmu-pro"])
    captured = capsys.readouterr()
    assert rc == 1
    # 3 problems: the two lines that are not JSON, and "0 rows, not 1730".
    assert f"error: {page}: no row could be scored (3 problem(s))" in " ".join(captured.err.split())
    assert "Traceback" not in captured.err


def test_rescore_of_an_empty_file_exits_1(tmp_path, capsys):
    """An empty JSONL file once "scored" 0/0 with exit status 0; now it is refused as empty."""
    empty = tmp_path / "out.jsonl"
    empty.write_text("")
    assert main(["rescore", str(empty), "--format", "official-mmmu-pro"]) == 1
    assert "the file is empty (0 bytes)" in capsys.readouterr().err
