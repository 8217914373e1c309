"""Which runs are the stronger ones: all but the runs of the weakest models.

A model's strength is the mean, over its runs, of the run's accuracy minus the mean accuracy of
all runs of the same setting (so a model run only on the hard vision setting is not called weak
for it). The weakest quarter of the models (rounded down: none below four models) is set aside;
every run of the others is a stronger run. On the paper-era MMMU-Pro outputs (seven models) that
sets aside LLaVA-OneVision-7B: 14 of the 17 ten-option and vision sets are the stronger ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import mean

from mmmu_eval.auditing.sources import RunAnswers


def stronger_runs(runs: Sequence[RunAnswers], *, weakest: float = 0.25) -> dict[str, bool]:
    """Run name -> whether it is one of the stronger runs (see the module); a run with no scored
    item has no accuracy to rank (never a 0.0 that would make its model the weakest): not stronger."""
    scored = [(run, run.accuracy) for run in runs if run.accuracy is not None]
    by_setting: dict[str, list[float]] = defaultdict(list)
    for run, accuracy in scored:
        by_setting[run.setting].append(accuracy)
    setting_mean = {s: mean(v) for s, v in by_setting.items()}
    by_model: dict[str, list[float]] = defaultdict(list)
    for run, accuracy in scored:
        by_model[run.model].append(accuracy - setting_mean[run.setting])
    ranked = sorted(by_model, key=lambda m: (mean(by_model[m]), m))
    weak = set(ranked[: int(len(ranked) * weakest)])
    return {run.name: run.accuracy is not None and run.model not in weak for run in runs}
