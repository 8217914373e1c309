"""The terminal headline names the benchmark as the papers do."""

from mmmu_eval.cli.main import main


def test_an_mmmu_pro_run_is_headed_mmmu_pro_not_shouted(tmp_path, capsys):
    """`benchmark.upper()` printed "MMMU-PRO vision test", a name the paper never uses."""
    out = tmp_path / "run"
    assert main(["run", "--benchmark", "mmmu-pro", "--setting", "vision", "--data", "sample",
                 "--model", "random", "--out", str(out), "--no-html"]) == 0
    printed = capsys.readouterr().out
    assert "MMMU-Pro vision" in printed
    assert "MMMU-PRO" not in printed
