"""Small statistics for honest accuracies: stratified bootstrap intervals and paired tests.

Every function is pure and takes its seed; the same inputs give the same interval on every
machine (numpy's PCG64 generator is stable across versions for ``binomial``/``multinomial``).

Why these and not a normal approximation: MMMU subjects have 30 validation items each, and
accuracies near 0 or 1 occur, so a Wald interval would be wrong exactly where people look.
Why stratify by subject: the benchmark fixes how many items each subject contributes, so a
resample must keep those counts; resampling across subjects would add variance the benchmark
does not have.

Resampling 0/1 outcomes with replacement inside a stratum of n items, of which k are correct,
draws a count of correct answers that is exactly Binomial(n, k/n); for pairs of outcomes it is
Multinomial(n, cell shares). We draw those counts directly: the same distribution as resampling
item by item, at the cost of one draw per stratum instead of n. ``combination_ci`` (figures made
of several runs, such as MMMU-Pro's overall = mean of standard-10 and vision) resamples items
themselves, because each run may count on its own set of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

#: Default number of bootstrap resamples.
RESAMPLES = 1000


@dataclass(frozen=True, slots=True)
class Stratum:
    """Counts of one stratum (a subject): ``n`` items, ``correct`` of them right."""

    n: int
    correct: int

    def __post_init__(self) -> None:
        if not 0 <= self.correct <= self.n:
            raise ValueError(f"a stratum needs 0 <= correct <= n, got correct={self.correct}, n={self.n}")


@dataclass(frozen=True)
class Term:
    """One run's accuracy in a sum of weighted accuracies (``combination_ci``)."""

    weight: float
    """Factor of this run's accuracy: 0.5 for each half of a mean, -1 for the run subtracted."""
    group: str
    """Runs of one group answered the same items (one benchmark): they are resampled together, so
    their outcomes stay paired. Different groups are resampled independently."""
    correct: Mapping[str, bool]
    """Item id -> judged correct, for every item the run scored."""
    subjects: Mapping[str, str]
    """Item id -> subject (the stratum), for the same items."""


@dataclass(frozen=True, slots=True)
class PairedStratum:
    """Paired outcomes of one stratum: how many items each run alone got right, and both.

    ``both`` + ``a_only`` + ``b_only`` + ``neither`` = the items both runs answered.
    """

    both: int
    a_only: int
    b_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither


def _quantiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    tail = (1 - level) / 2
    low, high = np.quantile(samples, [tail, 1 - tail])
    return float(low), float(high)


def _pool_singletons(strata: list) -> list:
    """Strata of one item merged into one stratum (Stratum or PairedStratum lists).

    Resampling one item from a stratum of one always draws that item, so a selection with one
    item per subject (``--limit``, ``--ids``, a small sample) got an interval of zero width: a
    claim of certainty. Pooled, those items vary as the items of one larger stratum do. Full
    subjects (30 items and more) are never singletons, so their intervals are unchanged.
    """
    singles = [s for s in strata if s.n == 1]
    if len(singles) < 2:
        return strata
    rest = [s for s in strata if s.n != 1]
    if isinstance(singles[0], PairedStratum):
        pooled = PairedStratum(*(sum(getattr(s, f) for s in singles) for f in ("both", "a_only", "b_only", "neither")))
        return rest + [pooled]
    return rest + [Stratum(len(singles), sum(s.correct for s in singles))]


def bootstrap_ci(
    strata: Iterable[Stratum],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of pooled accuracy, resampling items within each stratum.

    Args:
        strata: one Stratum per subject (empty strata are ignored).
        resamples: bootstrap replicates; 0 gives the point estimate twice.
        seed: seed of the numpy generator.
        level: coverage, 0.95 for a 95% interval.

    Returns:
        (low, high) accuracies in [0, 1]; (0.0, 0.0) when there are no items.

    >>> bootstrap_ci([Stratum(30, 30)])
    (1.0, 1.0)
    """
    kept = _pool_singletons([s for s in strata if s.n > 0])
    total = sum(s.n for s in kept)
    if total == 0:
        return 0.0, 0.0
    point = sum(s.correct for s in kept) / total
    if resamples <= 0:
        return point, point
    rng = np.random.default_rng(seed)
    ns = np.array([s.n for s in kept], dtype=np.int64)
    ps = np.array([s.correct / s.n for s in kept], dtype=np.float64)
    counts = rng.binomial(ns, ps, size=(resamples, len(kept)))
    return _quantiles(counts.sum(axis=1) / total, level)


#: Below this many items a cell's interval is the Wilson score interval, not the bootstrap's
#: (docs/scoring.md, "Intervals"): a percentile bootstrap of a handful of 0/1 outcomes has
#: few distinct values, and of a cell all right or all wrong, none but the point itself.
SMALL_CELL = 30

#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054


def wilson_ci(correct: int, n: int, *, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of ``correct`` successes in ``n`` trials: never of zero width for n >= 1.

    Used for small cells (fewer than ``SMALL_CELL`` items) and for any cell whose bootstrap
    interval has zero width (all right or all wrong): 0 of 4 is [0.0, 0.49], not [0, 0].
    With no items the interval is the whole range, [0, 1]: nothing is known.

    >>> [round(x, 3) for x in wilson_ci(0, 4)]
    [0.0, 0.49]
    """
    if not 0 <= correct <= n:
        raise ValueError(f"need 0 <= correct <= n, got correct={correct}, n={n}")
    if n == 0:
        return 0.0, 1.0
    if level == 0.95:
        z = _Z95
    else:
        from statistics import NormalDist

        z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = correct / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * ((p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5) / (1 + z2 / n)
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    high = 1.0 if correct == n else min(1.0, centre + half)
    return low, high


def cell_ci(
    strata: Iterable[Stratum], *, resamples: int = RESAMPLES, seed: int = 0, level: float = 0.95
) -> tuple[tuple[float, float], str]:
    """The interval of one cell of a table and its method: the stratified bootstrap, or Wilson
    when the cell is small or the bootstrap's interval has zero width.

    Returns:
        ((low, high), method) with method ``bootstrap`` or ``wilson``.
    """
    kept = [s for s in strata if s.n > 0]
    n = sum(s.n for s in kept)
    correct = sum(s.correct for s in kept)
    if n >= SMALL_CELL:
        low, high = bootstrap_ci(kept, resamples=resamples, seed=seed, level=level)
        if high > low:
            return (low, high), "bootstrap"
    return wilson_ci(correct, n, level=level), "wilson"


def paired_bootstrap_ci(
    strata: Iterable[PairedStratum],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of accuracy(A) - accuracy(B) over shared items, resampling pairs.

    Each replicate resamples the items of every stratum with replacement, keeping each item's
    two outcomes together, so the interval reflects that both runs saw the same questions.

    Returns:
        (low, high) differences in [-1, 1]; (0.0, 0.0) when there are no shared items.

    >>> paired_bootstrap_ci([PairedStratum(both=10, a_only=0, b_only=0, neither=5)])
    (0.0, 0.0)
    """
    kept = _pool_singletons([s for s in strata if s.n > 0])
    total = sum(s.n for s in kept)
    if total == 0:
        return 0.0, 0.0
    point = sum(s.a_only - s.b_only for s in kept) / total
    if resamples <= 0:
        return point, point
    rng = np.random.default_rng(seed)
    diff = np.zeros(resamples, dtype=np.int64)
    for s in kept:
        shares = np.array([s.both, s.a_only, s.b_only, s.neither], dtype=np.float64) / s.n
        cells = rng.multinomial(s.n, shares, size=resamples)
        diff += cells[:, 1] - cells[:, 2]
    return _quantiles(diff / total, level)


def combination_ci(
    terms: Sequence[Term],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of ``sum(weight * accuracy)`` over several runs, resampling items.

    Each replicate draws, for every group, its items with replacement within each subject (one
    draw shared by all the group's runs, so runs over the same items stay paired), then
    recomputes every run's accuracy on the drawn items it scored. Two runs of one group with
    weights +1 and -1 give the same distribution as ``paired_bootstrap_ci``; runs of different
    groups (MMMU-Pro and MMMU) are independent samples. Subjects of one item are pooled, as in
    ``bootstrap_ci``.

    Args:
        terms: the runs and their weights; each must have scored at least one item.
        resamples: bootstrap replicates; 0 gives the point estimate twice.
        seed: seed of the numpy generator.
        level: coverage, 0.95 for a 95% interval.

    Returns:
        (low, high) of the weighted sum, in accuracy units (fractions).

    >>> subjects = {"a": "Art", "b": "Art", "c": "Math", "d": "Math"}
    >>> same = {"a": True, "b": False, "c": True, "d": True}
    >>> combination_ci([Term(1, "pro", same, subjects), Term(-1, "pro", same, subjects)])   # paired: cancels
    (0.0, 0.0)
    """
    if any(not t.correct for t in terms):
        raise ValueError("combination_ci: every term needs at least one scored item")
    point = sum(t.weight * sum(map(bool, t.correct.values())) / len(t.correct) for t in terms)
    if resamples <= 0:
        return point, point
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples, dtype=np.float64)
    groups: dict[str, list[Term]] = {}
    for term in terms:
        groups.setdefault(term.group, []).append(term)
    for members in groups.values():
        ids = sorted(set().union(*(t.correct.keys() for t in members)))
        subject_of: dict[str, str] = {}
        for t in members:
            subject_of.update(t.subjects)
        strata: dict[str, list[int]] = {}
        for index, item_id in enumerate(ids):
            strata.setdefault(subject_of[item_id], []).append(index)
        singles = [idx[0] for idx in strata.values() if len(idx) == 1]
        blocks = [idx for idx in strata.values() if len(idx) > 1 or len(singles) < 2]
        if len(singles) >= 2:
            blocks.append(singles)
        drawn = np.zeros((resamples, len(ids)), dtype=np.int32)  # times item i is drawn in replicate r
        for block in blocks:
            n = len(block)
            drawn[:, block] = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples)
        for t in members:
            scored = np.array([i in t.correct for i in ids], dtype=np.float64)
            right = np.array([bool(t.correct.get(i, False)) for i in ids], dtype=np.float64)
            numerator, denominator = drawn @ right, drawn @ scored
            fallback = right.sum() / scored.sum()  # a replicate that drew none of this run's items
            accuracy = np.divide(numerator, denominator, out=np.full(resamples, fallback), where=denominator > 0)
            total += t.weight * accuracy
    return _quantiles(total, level)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    ``b`` = items only run A got right, ``c`` = items only run B got right. Under the null
    hypothesis each discordant item is a fair coin, so the p-value is
    ``min(1, 2 * P(X <= min(b, c)))`` with X ~ Binomial(b + c, 1/2). Computed with exact
    integers, so it stays right for thousands of discordant items.

    >>> mcnemar_exact(1, 9)   # 2 * (C(10,0) + C(10,1)) / 2**10 = 22/1024
    0.021484375
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    # Sum C(n, k) for k <= min(b, c) with exact integers, each term from the one before.
    term = tail = 1
    for k in range(min(b, c)):
        term = term * (n - k) // (k + 1)
        tail += term
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def strata_from_outcomes(subjects: Sequence[str], correct: Sequence[bool]) -> list[Stratum]:
    """Group per-item outcomes into one Stratum per subject, in first-seen order."""
    n: dict[str, int] = {}
    k: dict[str, int] = {}
    for subject, ok in zip(subjects, correct, strict=True):
        n[subject] = n.get(subject, 0) + 1
        k[subject] = k.get(subject, 0) + int(bool(ok))
    return [Stratum(n[s], k[s]) for s in n]


def paired_strata(
    subjects: Mapping[str, str], a: Mapping[str, bool], b: Mapping[str, bool]
) -> dict[str, PairedStratum]:
    """Paired counts per subject over the ids present in both ``a`` and ``b``.

    Args:
        subjects: item id -> subject (the stratum).
        a, b: item id -> correct, for each run.
    """
    cells: dict[str, list[int]] = {}
    for item_id in a.keys() & b.keys():
        row = cells.setdefault(subjects[item_id], [0, 0, 0, 0])
        ra, rb = bool(a[item_id]), bool(b[item_id])
        row[0 if ra and rb else 1 if ra else 2 if rb else 3] += 1
    return {s: PairedStratum(*row) for s, row in sorted(cells.items())}
