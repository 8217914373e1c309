"""`mmmu-eval run` under the other launchers: `accelerate launch`, torchrun over two "nodes"
sharing one `--out`, and the MPI variables `accelerate launch --cpu` ranks get from `mpirun`.

Each merged run must equal the one-process run of the same command item for item
(`fakes.ranks.assert_same_run`), on the tiny offline LLaVA, greedy, on the CPU.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fakes.ranks import assert_same_run, rank_env
from fakes.served_model import free_port

pytestmark = pytest.mark.hf

_TIMEOUT = 300


@pytest.fixture(scope="module")
def one_process(hf_extra, tmp_path_factory) -> tuple[list[str], Path]:
    """The run's arguments (but --out) and the run one process made of them."""
    from fakes.tiny_models import build_tiny_llava

    root = tmp_path_factory.mktemp("launchers")
    model = build_tiny_llava(root / "llava", initializer_range=0.3)
    args = ["run", "--data", "sample", "--benchmark", "mmmu", "--split", "dev", "--model", f"hf:{model}", "--limit", "4",
            "--max-tokens", "3", "--batch-size", "2", "--no-html"]
    single = subprocess.run([sys.executable, "-m", "mmmu_eval", *args, "--out", str(root / "one")],
                            env=rank_env(), capture_output=True, text=True, timeout=_TIMEOUT)
    assert single.returncode == 0, single.stderr[-3000:]
    return args, root / "one"


def test_accelerate_launch_equals_one_process(one_process, tmp_path):
    """The real `accelerate launch` with no config of the user's (its home and cache are empty
    folders): --multi_gpu starts its processes through torch's elastic agent, on the CPU too.
    (`--cpu --num_processes 2` without mpirun starts one process: an ordinary run.)"""
    from fakes import required

    required.module("accelerate", "the accelerate launch test needs accelerate (installed with trl)")
    args, one = one_process
    home = tmp_path / "home"
    env = rank_env(HOME=str(home), HF_HOME=str(home / "hf"), XDG_CACHE_HOME=str(home / "cache"))
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
               "--main_process_port", str(free_port()), "-m", "mmmu_eval", *args, "--out", str(tmp_path / "two")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=_TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_same_run(one, tmp_path / "two")
    assert done.stdout.count("run directory:") == 1
    assert "rank 0/2: done" in done.stderr and "rank 1/2: done" in done.stderr


def test_two_nodes_sharing_one_out_equal_one_process(one_process, tmp_path):
    """Two torchrun agents, one per "node" (static rendezvous on node 0), one process each: both
    processes have LOCAL_RANK 0, and the shards are still named by the global rank."""
    args, one = one_process
    port = free_port()
    nodes = [
        subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--node-rank", str(node),
                          "--nproc-per-node", "1", "--master-addr", "127.0.0.1", "--master-port", str(port),
                          "-m", "mmmu_eval", *args, "--out", str(tmp_path / "two")],
                         env=rank_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for node in (0, 1)
    ]
    try:
        outputs = [node.communicate(timeout=_TIMEOUT) for node in nodes]
    finally:
        for node in nodes:
            if node.poll() is None:
                node.kill()
                node.communicate()
    assert [n.returncode for n in nodes] == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    assert_same_run(one, tmp_path / "two")
    # The second node's process is rank 1 of 2, its progress says so, and it printed no result.
    assert "rank 1/2: done" in outputs[1][1] and "rank 0/2" not in outputs[1][1]
    assert outputs[0][0].count("run directory:") == 1 and "run directory:" not in outputs[1][0]


def test_ranks_named_by_the_mpi_variables_equal_one_process(one_process, tmp_path):
    """What each process of `accelerate launch --cpu --mpirun_hostfile` sees with Open MPI: the
    OMPI_COMM_WORLD_* variables and accelerate's MASTER_ADDR / MASTER_PORT, no RANK."""
    args, one = one_process
    port = free_port()
    ranks = [
        subprocess.Popen([sys.executable, "-m", "mmmu_eval", *args, "--out", str(tmp_path / "two")],
                         env=rank_env(OMPI_COMM_WORLD_RANK=str(r), OMPI_COMM_WORLD_SIZE="2",
                                      OMPI_COMM_WORLD_LOCAL_RANK=str(r), OMPI_COMM_WORLD_LOCAL_SIZE="2",
                                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), ACCELERATE_USE_CPU="True"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for r in (0, 1)
    ]
    try:
        outputs = [r.communicate(timeout=_TIMEOUT) for r in ranks]
    finally:
        for r in ranks:
            if r.poll() is None:
                r.kill()
                r.communicate()
    assert [r.returncode for r in ranks] == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    assert_same_run(one, tmp_path / "two")
