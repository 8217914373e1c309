"""A two-parameter logistic (2PL) item response model, fitted with numpy.

P(run j answers item i right) = 1 / (1 + exp(-a_i (theta_j - b_i))): ``theta`` is a run's ability,
``b`` an item's difficulty on the same scale, ``a`` its discrimination.

Why a fit of our own: the maintained Python IRT libraries did not fit this package. ``mirt``
(2026) needs Python 3.11 and a compiled extension, while the package supports 3.10; ``irtorch``
brings plotly, factor_analyzer, scikit-learn and splinetorch; ``py-irt`` brings pyro; ``girth``
has had no release since 2021. A 2PL over tens of runs and a few thousand items is a small
problem: joint maximum a posteriori estimation by gradient ascent, with standard normal priors on
ability, difficulty and log-discrimination (the priors keep items every run got right, or none,
finite). tests/auditing/test_rules.py recovers known parameters from simulated answers.

With few runs the item parameters are rough (each rests on as many answers as there are runs),
so the audit fits the model only from ``MIN_RUNS`` runs and says how many it had.

It lives in ``report`` because two users need it: the audit (``auditing.item_stats``) and the
estimate of a sampled run's full score (``stats.sample_design``, ``stats.sampled``), which
finds a new run's ability from its sampled answers with ``map_ability``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Fewest runs for which the audit fits the model.
MIN_RUNS = 8


@dataclass(frozen=True)
class TwoPL:
    ability: np.ndarray
    """theta per run."""
    difficulty: np.ndarray
    """b per item."""
    discrimination: np.ndarray
    """a per item."""
    iterations: int
    converged: bool


def fit_2pl(correct: np.ndarray, seen: np.ndarray | None = None, *, steps: int = 5000, rate: float = 0.05,
            tolerance: float = 1e-4) -> TwoPL:
    """Fit a 2PL to a runs x items matrix of 0/1 answers; ``seen`` masks the pairs answered.

    Gradient ascent with Adam steps (the step shrinking as 1/sqrt(1 + step/100)) on the joint log
    posterior; converged when no gradient component exceeds ``tolerance``. The ability scale is
    fixed by the prior (mean 0, sd 1).
    """
    y = np.asarray(correct, dtype=float)
    mask = np.ones_like(y) if seen is None else np.asarray(seen, dtype=float)
    n_runs, n_items = y.shape
    theta = _start_ability(y, mask)
    b = np.zeros(n_items)
    log_a = np.zeros(n_items)
    params = [theta, b, log_a]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    converged = False
    step = 0
    for step in range(1, steps + 1):
        a = np.exp(log_a)
        z = a[None, :] * (theta[:, None] - b[None, :])
        p = 1.0 / (1.0 + np.exp(-z))
        r = (y - p) * mask
        grads = [
            (r * a[None, :]).sum(axis=1) - theta,
            -(r * a[None, :]).sum(axis=0) - b,
            (r * (theta[:, None] - b[None, :])).sum(axis=0) * a - log_a,
        ]
        if max(float(np.abs(g).max(initial=0.0)) for g in grads) < tolerance:
            converged = True
            break
        size = rate / np.sqrt(1 + step / 100)
        for i, (g, (m, v)) in enumerate(zip(grads, moments)):
            m[:] = 0.9 * m + 0.1 * g
            v[:] = 0.999 * v + 0.001 * g * g
            params[i] += size * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        theta, b, log_a = params
    return TwoPL(theta.copy(), b.copy(), np.exp(log_a), step, converged)


def map_ability(right: np.ndarray, discrimination: np.ndarray, difficulty: np.ndarray, *,
                steps: int = 50) -> np.ndarray:
    """Each row's ability from its 0/1 answers to items of known parameters (all arrays rows x items).

    The maximum a posteriori ability under the joint fit's standard normal prior, by Newton steps
    (the log posterior is concave in theta; a step is capped at 1 so that a row of all-right
    answers moves steadily to its finite maximum).
    """
    y = np.atleast_2d(np.asarray(right, dtype=float))
    a = np.atleast_2d(np.asarray(discrimination, dtype=float))
    b = np.atleast_2d(np.asarray(difficulty, dtype=float))
    theta = np.zeros(y.shape[0])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
        gradient = (a * (y - p)).sum(axis=1) - theta
        curvature = (a * a * p * (1 - p)).sum(axis=1) + 1.0
        move = np.clip(gradient / curvature, -1.0, 1.0)
        theta = theta + move
        if float(np.abs(move).max(initial=0.0)) < 1e-8:
            break
    return theta


def _start_ability(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each run's standardised proportion right: a start near the answer."""
    share = (y * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1)
    spread = share.std()
    return (share - share.mean()) / spread if spread > 0 else np.zeros_like(share)


def predict(model: TwoPL, runs: np.ndarray | None = None) -> np.ndarray:
    """P(right) for each run x item (all runs, or those indexed by ``runs``)."""
    theta = model.ability if runs is None else model.ability[runs]
    z = model.discrimination[None, :] * (theta[:, None] - model.difficulty[None, :])
    return 1.0 / (1.0 + np.exp(-z))
