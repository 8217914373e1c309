"""`mmmu-eval merge` of shards that still hold failed items must say so and exit 1, as `run` does."""

from fakes.parquet_rows import mmmu_row, write_mmmu
from mmmu_eval.cli.main import main


def test_merging_shards_with_a_failed_item_exits_1_naming_it(tmp_path, capsys):
    """The merge scored the other items and exited 0, so a script saw a finished evaluation with
    one item silently left out of the score."""
    snap = tmp_path / "snap"
    write_mmmu(snap, "Art", "dev", [
        mmmu_row("dev_Art_1"), mmmu_row("dev_Art_2", question="See <image 4>."), mmmu_row("dev_Art_3"), mmmu_row("dev_Art_4"),
    ])
    shards = []
    for k in (1, 2):
        out = tmp_path / f"s{k}"
        main(["run", "--split", "dev", "--data", str(snap), "--model", "random", "--shard", f"{k}/2",
              "--out", str(out), "--no-html"])
        shards.append(str(out))
    capsys.readouterr()
    assert main(["merge", *shards, "--out", str(tmp_path / "merged")]) == 1
    err = capsys.readouterr().err
    assert "1 item(s) failed in the shards and are not scored (dev_Art_2)" in err
    assert "Run each shard's command again" in err


def test_merging_clean_shards_still_exits_0(tmp_path, capsys):
    shards = []
    for k in (1, 2):
        out = tmp_path / f"s{k}"
        assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--shard", f"{k}/2",
                     "--out", str(out), "--no-html"]) == 0
        shards.append(str(out))
    assert main(["merge", *shards, "--out", str(tmp_path / "merged")]) == 0
