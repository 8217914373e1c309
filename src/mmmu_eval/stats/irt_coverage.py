"""How wide the 2PL estimate's interval must be, calibrated on each held-out model, and how often it held.

The hold-one-model-out check (``sample_check``) gives every 2PL estimate's absolute error against
the full score of a held-out model's run. One 95th percentile over all of them is too narrow for
the models the 2PL fits worst: on the paper-era MMMU-Pro outputs at K = 200 it held the strongest
model's full score (Gemini 1.5 Pro's) in 88% of the draws, 82% on one of its runs, because the
2PL's estimate of that model runs 2 to 3 points low. So the margin is calibrated per model: the
largest of the held-out models' own 95th percentiles, which holds every held-out model's full
score in 95% of its draws or more, the strongest's included.

A user's model is none of the audit's, so the coverage is also measured as it would be for a
model outside the calibration: each model in turn is left out of the margin (the largest of the
OTHER models' 95th percentiles) and its own draws are checked against it. Both figures are kept
and printed beside the interval, which is labelled with them rather than called 95%.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mmmu_eval.core.numbers import pct


@dataclass(frozen=True)
class IrtCoverage:
    """The 2PL interval's half-width and its measured coverage (``to_json`` is the check's ``irt_coverage``)."""

    margin: float
    """The largest of the held-out models' 95th-percentile absolute errors (a fraction)."""
    each_model: dict[str, float]
    """Model -> the share of its draws whose full score ``margin`` held (0.95 or more by construction)."""
    held_out: float | None
    """The mean, over the models, of the share held when the model is left out of the margin; None
    with one model."""
    worst: tuple[str, float] | None
    """The model with the lowest such share, and that share."""

    def to_json(self) -> dict:
        return {"margin": self.margin, "each_model": self.each_model, "held_out": self.held_out,
                "worst": None if self.worst is None else {"model": self.worst[0], "held": self.worst[1]}}

    @classmethod
    def from_json(cls, value: object) -> IrtCoverage | None:
        """The record a manifest holds; None for a check written before it was kept."""
        if not isinstance(value, Mapping) or not isinstance(value.get("margin"), (int, float)):
            return None
        worst = value.get("worst")
        return cls(margin=float(value["margin"]), each_model={str(k): float(v) for k, v in
                                                              (value.get("each_model") or {}).items()},
                   held_out=None if value.get("held_out") is None else float(value["held_out"]),
                   worst=(str(worst["model"]), float(worst["held"])) if isinstance(worst, Mapping) else None)

    def label(self) -> str:
        """The words printed beside the interval."""
        text = ("the interval is the largest of the held-out models' own 95th-percentile absolute errors at this K "
                f"({len(self.each_model)} models): it held each one's full score in "
                f"{pct(min(self.each_model.values()))}% of its draws or more")
        if self.held_out is not None and self.worst is not None:
            text += (f"; for a model left out of that calibration, {pct(self.held_out)}% on average, "
                     f"{pct(self.worst[1])}% for the worst ({self.worst[0]})")
        return text


def irt_coverage(errors: Sequence[float], owners: Sequence[str]) -> IrtCoverage | None:
    """The calibrated margin and its coverage, from each 2PL error and the model it was measured on."""
    if not len(errors):
        return None
    err = np.asarray(errors, dtype=float)
    who = np.asarray(owners)
    models = sorted(set(owners))
    own = {m: float(np.quantile(err[who == m], 0.95)) for m in models}
    margin = max(own.values())
    each = {m: float(np.mean(err[who == m] <= margin)) for m in models}
    if len(models) < 2:
        return IrtCoverage(margin, each, None, None)
    left_out = {m: float(np.mean(err[who == m] <= max(own[o] for o in models if o != m))) for m in models}
    worst = min(left_out.items(), key=lambda kv: (kv[1], kv[0]))
    return IrtCoverage(margin, each, float(np.mean(list(left_out.values()))), worst)
