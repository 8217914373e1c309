"""Continuing a run on other data is refused; the same snapshot, fixed, may continue."""

from fakes.parquet_rows import mmmu_row, write_mmmu
from mmmu_eval.cli.main import main


def test_continuing_a_sample_run_on_a_snapshot_is_refused(tmp_path, capsys):
    """`--out` of a run on the bundled sample, rerun with `--data DIR`, silently added answers to
    another dataset's items to the same run, and scored them together."""
    out = tmp_path / "run"
    base = ["run", "--split", "dev", "--model", "random", "--out", str(out), "--no-html"]
    assert main([*base, "--data", "sample", "--subjects", "Art"]) == 0
    before = (out / "responses.jsonl").read_text()
    snap = tmp_path / "snap"
    write_mmmu(snap, "Art", "dev", [mmmu_row(f"dev_Art_{i}") for i in range(1, 4)])
    capsys.readouterr()
    assert main([*base, "--data", str(snap), "--subjects", "Art"]) == 1
    err = capsys.readouterr().err
    assert (
        f"{out}: holds a run on data sample at revision bundled-" in err
        and "not a snapshot directory at local; use a new --out for other data" in err
    )
    assert (out / "responses.jsonl").read_text() == before
