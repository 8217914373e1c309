"""``python -m mmmu_eval`` with the retry loop's waits cut to a tenth, for the tests that fault a
server to check what is stored, not how long the client waits between attempts.

Run as a script, ``[sys.executable, QUICK_CLI, "run", ...]``, where a test would run
``[sys.executable, "-m", "mmmu_eval", "run", ...]``: the fault soaks spent most of their time
asleep in back-off (base 1 s, doubling, on 30% of requests). The waits keep their shape
(exponential, jittered, capped, ``Retry-After`` obeyed), scaled by ``SCALE``. The real waits
stay tested where they are the subject: ``tests/backends/test_retry_loop.py`` checks them, and
``tests/run/test_progress_retries.py`` runs a faulted run through them.
"""

from __future__ import annotations

import runpy
from pathlib import Path

#: Each wait of the retry loop, times this.
SCALE = 0.1
#: This file, to run as a script.
QUICK_CLI = str(Path(__file__).resolve())


def _scaled_waits() -> None:
    from mmmu_eval.backends.retry import RetryPolicy

    real_wait = RetryPolicy.wait

    def wait(self: RetryPolicy, attempt: int, failure, rng) -> float:
        return real_wait(self, attempt, failure, rng) * SCALE

    RetryPolicy.wait = wait  # type: ignore[method-assign]


if __name__ == "__main__":
    _scaled_waits()
    runpy.run_module("mmmu_eval", run_name="__main__", alter_sys=True)
