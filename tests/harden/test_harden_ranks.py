"""`mmmu-eval harden filter` under torchrun: each rank asks its shard of every trial with its own
copy of the local model, rank 0 merges the trials and filters; DIR ends as one process leaves it.

Real processes (`python -m torch.distributed.run`, two ranks) on the tiny offline LLaVA, greedy:
every rank answers an item exactly as one process does, so the whole output can be compared.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.ranks import rank_env, start_rank, without_times
from fakes.served_model import free_port

from mmmu_eval.store.rundir import RunStore

pytestmark = pytest.mark.hf



@pytest.fixture(scope="module")
def tiny_llava(hf_extra, tmp_path_factory) -> Path:
    """The tiny LLaVA with llava-hf's image token, ``<image>``: the text-only trials keep an
    ``<image>`` marker where each image was, which the hf backend writes ``[image]``."""
    from fakes.tiny_models import build_tiny_llava

    return build_tiny_llava(tmp_path_factory.mktemp("filter") / "model", initializer_range=0.3)


def _args(model: Path, out: Path) -> list[str]:
    return ["harden", "filter", "--data", "sample", "--limit", "6", "--models", f"hf:{model},hf:{model}", "--trials", "2",
            "--temperature", "0", "--max-tokens", "4", "--per-subject", "1", "--out", str(out)]


def _filter(model: Path, out: Path, *, ranks: int = 1) -> subprocess.CompletedProcess[str]:
    launcher = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(ranks)] if ranks > 1 else []
    command = [sys.executable, *launcher, "-m", "mmmu_eval", *_args(model, out)]
    return subprocess.run(command, env=rank_env(), capture_output=True, text=True, timeout=300)


def _same_output(one: Path, two: Path) -> None:
    """The filter's files in ``two`` equal ``one``'s: the set, the record, every trial item for item."""
    files = sorted(str(p.relative_to(one)) for p in one.rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(two)) for p in two.rglob("*") if p.is_file() and "ranks" not in p.parts)
    assert (one / "standard (4 options)").is_dir()
    for name in files:
        if name.endswith(".parquet"):
            assert (two / name).read_bytes() == (one / name).read_bytes(), name
    records = [json.loads((d / "harden.json").read_text()) for d in (one, two)]
    assert without_times(records[1]) == without_times(records[0])
    for trial in sorted((one / "runs" / "filter").glob("*/trial-*")):
        mine = two / trial.relative_to(one)
        assert (mine / "predictions.jsonl").read_text() == (trial / "predictions.jsonl").read_text(), trial
        a, b = RunStore.read(trial), RunStore.read(mine)
        assert {i: (r.status, r.text) for i, r in b.responses().items()} == {i: (r.status, r.text) for i, r in a.responses().items()}
        assert list(b.responses()) == b.manifest()["item_ids"]  # merged in dataset order
        results = [json.loads((d / "results.json").read_text()) for d in (trial, mine)]
        assert without_times(results[1]) == without_times(results[0])


@pytest.fixture(scope="module")
def filtered(tiny_llava, tmp_path_factory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The filter of one process, the filter of two torchrun ranks, and what the ranks printed."""
    root = tmp_path_factory.mktemp("filtered")
    single = _filter(tiny_llava, root / "one")
    assert single.returncode == 0, single.stderr[-3000:]
    done = _filter(tiny_llava, root / "two", ranks=2)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "one", root / "two", done


def test_two_ranks_filter_as_one_process_and_a_finished_filter_asks_nothing(tiny_llava, filtered):
    one, two, done = filtered
    record = json.loads((one / "harden.json").read_text())
    assert record["steps"]["filter"]["counts"]["asked"] == 6 and record["steps"]["filter"]["status"] == "complete"
    _same_output(one, two)
    # Each rank asked its own shard (3 of the 6 questions) of every trial; rank 0 alone printed the report.
    for trial in (two / "runs" / "filter").glob("*/trial-*"):
        for k in (1, 2):
            shard = RunStore.read(two / "ranks" / f"rank-{k}-of-2" / trial.relative_to(two))
            assert len(shard.responses()) == 3 and shard.manifest()["shard"] == [k, 2]
    assert done.stdout.count("filter: complete") == 1
    assert "rank 0/2: done" in done.stderr and "rank 1/2: done" in done.stderr

    # Finished: the same command again asks nothing on any rank and changes nothing.
    before = {p: p.read_bytes() for p in two.rglob("*") if p.is_file()}
    rest = _filter(tiny_llava, two, ranks=2)
    assert rest.returncode == 0, rest.stderr[-3000:]
    assert "rank 1/2: done" not in rest.stderr and rest.stdout.count("filter: complete") == 1
    assert {p: p.read_bytes() for p in before} == before


def test_a_failed_rank_is_named_and_the_same_command_asks_only_its_shard(tiny_llava, filtered):
    one, two, _ = filtered
    trial = next((two / "runs" / "filter").glob("m2-*/trial-02")).relative_to(two)
    # A session that ended before rank 0 merged one trial, with rank 1's shard of it damaged:
    # rank 1 fails on it, and rank 0 stops naming rank 1 and its error instead of waiting (the
    # ranks started by hand, so that no torchrun agent stops rank 0 first).
    shard = two / "ranks" / "rank-2-of-2" / trial
    (shard / "manifest.json").write_text("{bad")
    shutil.rmtree(two / trial)
    port = free_port()
    ranks = [start_rank(r, 2, port, [*_args(tiny_llava, two), "--rank-timeout", "600"]) for r in (0, 1)]
    outputs = [r.communicate(timeout=240) for r in ranks]
    assert [r.returncode for r in ranks] == [1, 1]
    assert "rank 1 of 2 failed:" in outputs[0][1] and "manifest.json: cannot be read" in outputs[0][1], outputs[0][1][-3000:]
    assert not (two / trial).exists()  # nothing merged from a partial set

    # Without the damaged shard, the same command asks rank 1's 3 answers of that trial again,
    # and nothing else (every other shard is finished: no line added), then merges and filters.
    shutil.rmtree(shard)
    before = {p: p.read_text() for p in (two / "ranks").rglob("responses.jsonl")}
    again = _filter(tiny_llava, two, ranks=2)
    assert again.returncode == 0, again.stderr[-3000:]
    assert {p: p.read_text() for p in before} == before
    assert len(RunStore.read(shard).responses()) == 3
    _same_output(one, two)


def test_a_filter_of_one_process_is_not_continued_by_ranks(tiny_llava, tmp_path):
    """Its trial runs are not the merge of rank shards: refused before any rank asks anything."""
    out = tmp_path / "one"
    (out / "runs" / "filter").mkdir(parents=True)
    (out / "harden.json").write_text("{}")
    refused = _filter(tiny_llava, out, ranks=2)
    assert refused.returncode != 0
    assert "holds a filter run by one process" in refused.stderr, refused.stderr[-3000:]
    assert not (out / "ranks").exists()
