"""The official files of the eras the readers must read as the official code read them, or refuse as it
refused: the first era's rows keyed by ``No`` (tests/fixtures/official_mmmu/README.md), and a file of
more rows than one MMMU-Pro setting holds (two of today's official files joined)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import DataError
from mmmu_eval.harnesses.read import rescore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "official_mmmu"


def test_the_no_keyed_first_era_folder_gives_the_official_figures_row_by_row():
    result = rescore(FIXTURES / "blip2_flant5xxl")
    aggregate = result.scoring.aggregates["official"]
    assert (aggregate.overall.correct, aggregate.overall.n) == (15, 60)
    assert {s: (t.correct, t.n) for s, t in aggregate.by_subject.items()} == {"Accounting": (7, 30),
                                                                               "Electronics": (8, 30)}
    judged = json.loads((FIXTURES / "blip2_flant5xxl_judged.json").read_text(encoding="utf-8"))
    ours = {i: v.correct for i, v in result.scoring.verdicts["official"].items()}
    assert ours == {f"{s}_No_{n}": j == "Correct" for s, rows in judged.items() for n, j in rows.items()}
    assert result.problems == ()
    assert any('keyed by "No"' in note and "unrecorded" in note for note in result.notes)
    assert {it.split for it in result.items} == {"unrecorded"}


def test_a_no_keyed_run_written_out_is_never_called_a_full_split(tmp_path, capsys):
    assert main(["rescore", str(FIXTURES / "blip2_flant5xxl"), "--out", str(tmp_path / "run"), "--no-html"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["scope"]["kind"] == "subset" and "unrecorded" in results["scope"]["text"]


def test_rows_with_neither_id_nor_no_are_refused_and_listed(tmp_path, capsys):
    (tmp_path / "Art").mkdir()
    rows = [{"qid": str(n), "question_type": "multiple-choice", "answer": "A", "response": "A"} for n in range(3)]
    (tmp_path / "Art" / "output.json").write_text(json.dumps(rows), encoding="utf-8")
    assert main(["rescore", str(tmp_path), "--show-problems", "2"]) != 0
    captured = capsys.readouterr()
    assert "no row could be scored (3 problem(s))" in captured.err
    printed = captured.out
    assert "3 problem(s):" in printed
    assert printed.count("not a row with an id (nor a No; its keys: answer, qid, question_type, response)") == 2
    assert "1 more (--show-problems N)" in printed


@pytest.fixture
def joined(fidelity, tmp_path):
    """Today's official standard-10 file, then its vision file: 3,460 rows in one file."""
    path = tmp_path / "gpt-4o_joined.jsonl"
    parts = [(fidelity / "mmmu-pro" / name).read_bytes() for name in
             ("gpt-4o_standard(10 options)_direct.jsonl", "gpt-4o_vision_direct.jsonl")]
    path.write_bytes(b"".join(p if p.endswith(b"\n") else p + b"\n" for p in parts))
    return path


def test_two_official_files_joined_are_refused_naming_each_part(joined):
    with pytest.raises(DataError) as raised:
        rescore(joined)
    message = str(raised.value)
    assert "3,460 rows, not the 1,730 of one MMMU-Pro setting" in message
    assert "lines 1-1730: 1,730 rows" in message and "lines 1731-3460: 1,730 rows" in message
    assert "standard-10 or vision" in message
    assert '"has 3460 results, expected 1730"' in message


def test_the_cli_exits_non_zero_on_the_joined_file(joined, capsys):
    assert main(["rescore", str(joined)]) != 0
    captured = capsys.readouterr()
    assert "2 pass(es) over the items" in captured.err and "Accuracy" not in captured.out


def test_a_four_option_block_before_a_ten_option_file_is_named_as_such(fidelity, tmp_path):
    four = (fidelity / "mmmu-pro-2024" / "gpt-4o-2024-08-06_direct_Standard(4opts).jsonl").read_text(encoding="utf-8")
    ten = (fidelity / "mmmu-pro" / "gpt-4o_standard(10 options)_direct.jsonl").read_text(encoding="utf-8")
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(four.splitlines(keepends=True)[:100]) + ten, encoding="utf-8")
    with pytest.raises(DataError, match=r"lines 1-100: 100 rows, the original 2-9 options: standard-4; "
                                        r"lines 101-1830: 1,730 rows"):
        rescore(path)
