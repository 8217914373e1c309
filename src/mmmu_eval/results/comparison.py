"""Paired comparison of two runs on the items both answered.

Two accuracies from the same questions are not independent samples, so comparing their
separate intervals understates what the data can tell. Here the runs are paired item by item:
the difference in accuracy on the shared items, a paired bootstrap interval of it (stratified
by subject), and the exact McNemar test on the items where exactly one run is right (the
"flips", which are also listed). Runs of different protocols measure different things and are
refused unless the caller says otherwise; a different dataset revision only warns. A run rescored
from another harness's output (``mmmu-eval rescore --out``) has no protocol of ours: it is
compared, with a warning that says what the difference then measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mmmu_eval.dataset.subjects import DISCIPLINES, discipline_of
from mmmu_eval.core.errors import ConfigError, MmmuEvalError
from mmmu_eval.results.caveats import NO_SCORE, void, void_reason
from mmmu_eval.results.results_json import Results
from mmmu_eval.results.scope import scope_of_results
from mmmu_eval.stats.intervals import RESAMPLES, mcnemar_exact, paired_bootstrap_ci, paired_strata


@dataclass(frozen=True, slots=True)
class Flip:
    """An item exactly one run got right."""

    id: str
    """The item's id."""
    subject: str
    """Its subject."""
    pred_a: str | None
    """Run A's parsed answer (a letter, or an open answer); None when nothing was parsed."""
    pred_b: str | None
    """Run B's parsed answer; None when nothing was parsed."""
    a_correct: bool
    """True when run A is the one that got it right."""


@dataclass(frozen=True, slots=True)
class DisciplineDiff:
    """Accuracies of both runs on one discipline's shared items."""

    n: int
    """Items of the discipline scored in both runs."""
    acc_a: float
    """Run A's accuracy on them, a fraction from 0 to 1."""
    acc_b: float
    """Run B's accuracy on them, a fraction from 0 to 1."""

    @property
    def difference(self) -> float:
        """``acc_a - acc_b``, a fraction."""
        return self.acc_a - self.acc_b


@dataclass(frozen=True)
class Comparison:
    """The result of ``compare_runs``; differences are A minus B, as fractions."""

    label_a: str
    """Run A's name as printed (its directory, as given)."""
    label_b: str
    """Run B's name as printed."""
    shared: int
    """Items scored in both runs: the only ones compared."""
    only_a: int
    """Items scored only in run A (left out)."""
    only_b: int
    """Items scored only in run B (left out)."""
    acc_a: float
    """Run A's accuracy on the shared items, a fraction from 0 to 1."""
    acc_b: float
    """Run B's accuracy on the shared items, a fraction from 0 to 1."""
    difference: float
    """``acc_a - acc_b``, a fraction (0.031 is 3.1 points)."""
    ci95: tuple[float, float]
    """Paired bootstrap 95% interval of the difference, stratified by subject, as fractions."""
    a_only_right: int
    """McNemar's b: items only A got right."""
    b_only_right: int
    """McNemar's c: items only B got right."""
    p_value: float
    """Two-sided exact McNemar p-value."""
    by_discipline: dict[str, DisciplineDiff]
    """Discipline name -> both runs' accuracies on its shared items."""
    flips: tuple[Flip, ...]
    """Every item exactly one run got right, in id order."""
    warnings: tuple[str, ...] = field(default=())
    """Differences between the runs that do not stop the comparison (dataset revision...)."""
    scoring_a: dict = field(default_factory=dict)
    """How run A was scored (``scoring_of``): parser, fallback policy and seed, answers file."""
    scoring_b: dict = field(default_factory=dict)
    """How run B was scored, as ``scoring_a``."""

    def __repr__(self) -> str:
        from mmmu_eval.results.notebook_view import comparison_repr

        return comparison_repr(self)

    def _repr_html_(self) -> str:
        from mmmu_eval.results.notebook_view import comparison_html

        return comparison_html(self)

    def to_json(self) -> dict:
        """JSON-ready form (for ``compare --json``)."""
        return {
            "a": self.label_a,
            "b": self.label_b,
            "scoring_a": dict(self.scoring_a),
            "scoring_b": dict(self.scoring_b),
            "shared": self.shared,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "acc_a": self.acc_a,
            "acc_b": self.acc_b,
            "difference": self.difference,
            "ci95": list(self.ci95),
            "a_only_right": self.a_only_right,
            "b_only_right": self.b_only_right,
            "mcnemar_p": self.p_value,
            "by_discipline": {
                d: {"n": r.n, "acc_a": r.acc_a, "acc_b": r.acc_b, "difference": r.difference}
                for d, r in self.by_discipline.items()
            },
            "flips": [
                {"id": f.id, "subject": f.subject, "pred_a": f.pred_a, "pred_b": f.pred_b, "right": "a" if f.a_correct else "b"}
                for f in self.flips
            ],
            "warnings": list(self.warnings),
        }


def discipline_or_other(subject: str) -> str:
    """The subject's discipline; ``Other`` for a subject outside the official 30."""
    try:
        return discipline_of(subject)
    except MmmuEvalError:
        return "Other"


def _where(results: Results) -> str:
    """``mmmu validation`` or ``mmmu-pro standard-10``: what a run's ids refer to."""
    where = results.get("setting") or results.get("split") or ""
    return f"{results['benchmark']} {where}".strip()


def scoring_of(results: Results) -> dict:
    """How a run's headline was scored: ``{"parser", "fallback", "fallback_seed", "answers"}``.

    The seed is None under the ``none`` policy (no draw, so no seed matters); answers is the
    answer dict's file name, None for the dataset's own answers.
    """
    parse = results.get("parse") or {}
    fallback = parse.get("fallback_policy")
    return {"parser": parse.get("parser"), "fallback": fallback,
            "fallback_seed": parse.get("fallback_seed") if fallback == "official" else None,
            "answers": parse.get("answers")}


def describe_scoring(scoring: dict) -> str:
    """``parser official, fallback official (seed 42)``: one phrase for a header (answers when a file gave them)."""
    text = f"parser {scoring.get('parser')}, fallback {scoring.get('fallback')}"
    if scoring.get("fallback_seed") is not None:
        text += f" (seed {scoring['fallback_seed']})"
    return text + (f", answers {scoring['answers']}" if scoring.get("answers") else "")


def compare_runs(
    a: Results,
    b: Results,
    *,
    label_a: str = "A",
    label_b: str = "B",
    allow_different_protocols: bool = False,
    allow_different_scoring: bool = False,
    paired_by_design: bool = False,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare two runs' headline verdicts on the items both scored.

    Args:
        a, b: the runs' results.json (their ``verdicts`` are paired by item id).
        label_a, label_b: names to print (usually the run directories).
        allow_different_protocols: compare even when the prompt fingerprints differ.
        allow_different_scoring: compare even when the runs were scored differently (headline
            parser, fallback policy or seed, answers file): the difference then mixes the
            models with the scorers.
        paired_by_design: the runs ask the same items under two settings or prompts on purpose
            (a suite's CoT effect, its standard-4 vs standard-10 flips): neither refused nor
            warned about, and their different parquet files are expected; a different dataset
            revision still warns.
        resamples, seed: paired bootstrap settings.

    Raises:
        ConfigError: the benchmarks, splits, settings, protocol fingerprints or scorings differ and
            that was not allowed; a run has no score (``results.caveats.void``); or the runs share
            no scored item.

    >>> from mmmu_eval import evaluate
    >>> from mmmu_eval.results.results_json import read_results
    >>> _ = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/a")
    >>> _ = evaluate(model="frequent", benchmark="mmmu", split="validation", data="sample", out="runs/b")
    >>> c = compare_runs(read_results("runs/a"), read_results("runs/b"))
    >>> c.difference, c.ci95, c.p_value          # a - b, its paired 95% interval, exact McNemar
    (-0.2, (-0.325, -0.075), 0.03857421875)
    """
    for label, r in ((label_a, a), (label_b, b)):
        if void(r):  # a run with no figure has no verdict to pair: said as such, not as 0 shared items
            raise ConfigError(f"{label} has {NO_SCORE} ({void_reason(r)}): there is nothing to compare")
    warnings: list[str] = []
    where_a, where_b = _where(a), _where(b)
    if where_a != where_b and not paired_by_design:
        # Named before the fingerprint: "different benchmarks" is what the user needs to read, and
        # the same ids then hold different questions (MMMU-Pro reuses MMMU's ids).
        message = f"{label_a} is {where_a} but {label_b} is {where_b}, so their items are not the same questions"
        if not allow_different_protocols:
            raise ConfigError(message + "; compare runs of one benchmark and split, or pass --allow-different-protocols")
        warnings.append(message)
    fa, fb = a["run"]["protocol_fingerprint"], b["run"]["protocol_fingerprint"]
    rescored = [(label, r["run"].get("rescored_from")) for label, r in ((label_a, a), (label_b, b))
                if r["run"].get("rescored_from")]
    if rescored and where_a == where_b:
        # A rescored run has no protocol of ours: its prompts and generation were another harness's.
        # Both sides are parsed by our scorer, so what the comparison measures is the rest.
        for label, harness in rescored:
            warnings.append(
                f"{label} holds {harness} responses rescored here: their prompts and generation settings were "
                f"{harness}'s, not an mmmu-eval protocol, while both runs' answers are parsed by mmmu-eval; "
                "the difference measures what the model was asked and how it answered, not how answers were parsed"
            )
    elif fa != fb and where_a == where_b and not paired_by_design:
        message = (
            f"{label_a} and {label_b} used different protocols (prompt fingerprint "
            f"{(fa or 'unknown')[:12]} vs {(fb or 'unknown')[:12]}): their prompts or settings differ"
        )
        if not allow_different_protocols:
            raise ConfigError(message + "; pass --allow-different-protocols to compare them anyway")
        warnings.append(message)
    scoring_a, scoring_b = scoring_of(a), scoring_of(b)
    if scoring_a != scoring_b and not paired_by_design:
        differ = [k for k in scoring_a if scoring_a[k] != scoring_b[k]]
        message = (
            f"{label_a} and {label_b} were scored differently ({' and '.join(differ)} differ: {describe_scoring(scoring_a)}"
            f" vs {describe_scoring(scoring_b)}), so the difference mixes the scorers with the models"
        )
        if not allow_different_scoring:
            raise ConfigError(message + "; score both alike (`mmmu-eval score RUN --parser ... --save`) or pass "
                              "--allow-different-scoring")
        warnings.append(message)
    checks = [("dataset_revision", "dataset revisions"), ("dataset_digest", "dataset files")]
    for key, what in checks[:1] if paired_by_design else checks:
        ra, rb = a["run"][key], b["run"][key]  # type: ignore[literal-required]
        if ra != rb:
            warnings.append(f"different {what}: {ra} vs {rb}; the same ids may hold different questions or answers")
    warnings.extend(f"{label} is {scope.text}" for label, scope in ((label_a, scope_of_results(a)), (label_b, scope_of_results(b)))
                    if scope.kind == "sampled")

    va, vb = a["verdicts"], b["verdicts"]
    shared = sorted(va.keys() & vb.keys())
    if not shared:
        raise ConfigError(
            f"{label_a} and {label_b} have no scored item in common ({len(va)} and {len(vb)} scored items); "
            "compare runs over the same items"
        )
    subjects = {i: va[i]["subject"] for i in shared}
    ca = {i: va[i]["correct"] for i in shared}
    cb = {i: vb[i]["correct"] for i in shared}
    strata = paired_strata(subjects, ca, cb)
    n = len(shared)
    right_a, right_b = sum(ca.values()), sum(cb.values())
    a_only = sum(s.a_only for s in strata.values())
    b_only = sum(s.b_only for s in strata.values())

    by_discipline: dict[str, DisciplineDiff] = {}
    order = list(DISCIPLINES) + ["Other"]
    groups: dict[str, list[str]] = {}
    for item_id in shared:
        groups.setdefault(discipline_or_other(subjects[item_id]), []).append(item_id)
    for discipline in sorted(groups, key=order.index):
        ids = groups[discipline]
        by_discipline[discipline] = DisciplineDiff(
            len(ids), sum(ca[i] for i in ids) / len(ids), sum(cb[i] for i in ids) / len(ids)
        )

    flips = tuple(
        Flip(i, subjects[i], va[i]["pred"], vb[i]["pred"], ca[i]) for i in shared if ca[i] != cb[i]
    )
    return Comparison(
        label_a=label_a,
        label_b=label_b,
        shared=n,
        only_a=len(va.keys() - vb.keys()),
        only_b=len(vb.keys() - va.keys()),
        acc_a=right_a / n,  # n >= 1: runs with no shared scored item are refused above
        acc_b=right_b / n,
        difference=(right_a - right_b) / n,
        ci95=paired_bootstrap_ci(strata.values(), resamples=resamples, seed=seed),
        a_only_right=a_only,
        b_only_right=b_only,
        p_value=mcnemar_exact(a_only, b_only),
        by_discipline=by_discipline,
        flips=flips,
        warnings=tuple(warnings),
        scoring_a=scoring_a,
        scoring_b=scoring_b,
    )
