"""One rank of a distributed run whose model blocks the main thread: ``python stuck_rank.py OUT TIMEOUT``.

Started with the variables torchrun sets (``fakes.ranks.start_rank``'s environment). Rank 0 runs
the ``random`` baseline and finishes its shard; every other rank's model calls ``time.sleep`` on
the event loop's own thread (as a model that blocks in a C call would), so its process lives, its
side thread could beat for ever, and its work never advances.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mmmu_eval.core.errors import MmmuEvalError
from mmmu_eval.run.distributed import Launch
from mmmu_eval.run.launcher_ranks import evaluate_ranks


class BlockingModel:
    """A model whose ``generate`` blocks the thread it runs on (the event loop's) for an hour."""

    async def generate(self, requests):
        time.sleep(3600)  # the stuck call
        yield  # pragma: no cover


def main() -> int:
    out, timeout = Path(sys.argv[1]), float(sys.argv[2])
    launch = Launch.from_env()
    assert launch is not None
    model = "random" if launch.rank == 0 else BlockingModel()
    try:
        evaluate_ranks({"model": model, "data": "sample", "benchmark": "mmmu", "split": "dev", "out": out, "html": False},
                       launch, timeout=timeout)
    except MmmuEvalError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
