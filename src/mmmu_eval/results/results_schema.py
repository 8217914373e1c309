"""The shape of ``results.json``, declared once: one TypedDict per block, a comment on each key.

``docs/results-schema.md`` is the prose version of these types; keep the two together. Split
from ``results.py`` (which fills and reads the file) so that a reader looking for what a key
means finds the declarations alone; ``results.py`` re-exports every name here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from mmmu_eval.results.usage import Usage

if TYPE_CHECKING:
    from typing import NotRequired  # Python 3.11; annotations are never evaluated here

__all__ = ["SCHEMA_VERSION", "Coverage", "IntervalMethod", "ItemVerdict", "ParseStats", "ParserScore", "Results", "Row",
           "RowWithInterval", "RunInfo", "ScopeInfo"]

#: Bumped whenever a key is renamed or changes meaning.
SCHEMA_VERSION = 1


class Row(TypedDict):
    """Accuracy of one group of items."""

    n: int
    """Items scored in this group (responses present; errors and missing excluded)."""
    correct: int
    """Items judged correct by the headline parser (random fallbacks count when they hit)."""
    accuracy: float | None
    """correct / n; None (``null``) when n is 0: no scored item, so no figure (older files: 0.0)."""


class RowWithInterval(Row):
    """A Row that also carries its bootstrap interval."""

    ci95: list[float] | None
    """[low, high] 95% interval of accuracy: percentile bootstrap stratified by subject, or the
    Wilson score interval for a cell of fewer than 30 items or whose bootstrap has zero width.
    None when n is 0 (older files: [0, 1])."""
    ci_method: NotRequired[str | None]
    """``bootstrap`` or ``wilson``: which of the two ``ci95`` is; None when there is none. Absent
    in older files (bootstrap)."""


class IntervalMethod(TypedDict):
    """How every ``ci95`` in the file was computed, so it can be reproduced."""

    method: str
    """``bootstrap-stratified-by-subject`` (percentile interval)."""
    level: float
    """Coverage: 0.95."""
    resamples: int
    """Bootstrap replicates (0 means the interval is the point estimate)."""
    seed: int
    """Seed of numpy's default generator; the same seed gives the same interval."""
    small_cells: NotRequired[str]
    """The rule for small cells, in words (Wilson below 30 items or at zero bootstrap width)."""


class ScopeInfo(TypedDict):
    """What the figures stand for (``results/scope.py``): the full split, a subset, a shard, a
    partial rescore or the bundled sample."""

    kind: str
    """``full``, ``subset``, ``shard``, ``partial`` or ``sample``; only ``full`` is comparable
    with published figures and the human experts."""
    items: int
    """Items evaluated."""
    of: int | None
    """Items in the full split or setting; None when unknown or for the sample."""
    chosen_by: list[str]
    """How a subset or shard was chosen, in words (``subjects Art``, ``--limit 10``, ``shard 2/8``)."""
    split: str
    """The full set's name: ``validation split``, ``vision setting``."""
    text: str
    """The phrase every headline prints beside the figure."""


class RunInfo(TypedDict):
    """Where the numbers come from, copied from manifest.json (None when the manifest lacks it)."""

    model: str | None
    """The model spec (``openai:gpt-4o``, ``hf:...``, ``random``)."""
    prompt_mode: str | None
    """``direct``, ``cot`` or ``ocr``."""
    protocol_fingerprint: str | None
    """sha256 of the prompt templates and settings; ``compare`` refuses to pair different ones."""
    official: bool | None
    """True when the run followed the official protocol exactly."""
    dataset_revision: str | None
    """Resolved dataset commit (or ``bundled-<version>`` / ``local``)."""
    dataset_digest: str | None
    """sha256 over the parquet files read."""
    package_version: str | None
    """mmmu-eval version that made the run."""
    rescored_from: str | None
    """The harness format the responses were read from (``mmmu-eval rescore --out``); None for our runs."""


class ParseStats(TypedDict):
    """How much of the headline depends on parsing luck."""

    parser: str
    """The headline parser (``official``)."""
    answers: NotRequired[str | None]
    """File name of the answer dict the gold answers came from (``--answers``); None: the dataset's."""
    fallback_policy: str
    """``official`` (random letter when nothing parses, as the official scorer) or ``none``."""
    fallback_seed: int
    """Seed of the fallback generator (42, as the official scorer)."""
    fallbacks: int
    """Multiple-choice responses where nothing parsed and the fallback picked a letter."""
    unparsed: NotRequired[int]
    """Scored responses, with or without a gold answer, where the headline parser found no
    answer (multiple choice: the fallback's cases). Unlike ``fallbacks`` it counts on a run
    without gold answers too. Absent in older files."""
    fallback_rate: float | None
    """fallbacks / scored items; None when no item was scored."""
    deterministic_correct: int
    """Correct answers with every fallback counted wrong."""
    deterministic_accuracy: float | None
    """deterministic_correct / scored items: a lower bound free of random draws; None when no item was scored."""
    expected_correct: float
    """deterministic_correct + sum of 1/options over fallbacks: the fallback's expected value."""
    expected_accuracy: float | None
    """expected_correct / scored items: the headline without the luck of one seed; None when no item was scored."""


class Coverage(TypedDict):
    """What was asked, answered, failed and never answered."""

    items: int
    """Items in the evaluated set."""
    scored: int
    """Items with a scorable response (ok or truncated): the denominator of every accuracy."""
    errors: int
    """Items whose response has status ``error``; never scored."""
    missing: int
    """Items with no response at all (an interrupted run)."""
    truncated: int | None
    """Scored items cut by the token limit; None when the responses were not given."""
    ungraded: int
    """Items with a prediction but no gold answer (test split): in no accuracy."""
    error_ids: list[str]
    """Ids of the errors, in dataset order."""
    missing_ids: list[str]
    """Ids of the missing items, in dataset order."""
    problems: list[str]
    """``"<id>: <what>"`` for inputs the official code would crash on; those items count wrong."""


class ParserScore(TypedDict):
    """One parser's score on the same responses (the first parser is the headline)."""

    n: int
    """Items it scored."""
    correct: int
    """Items it judged correct."""
    accuracy: float | None
    """correct / n; None when n is 0."""
    fallbacks: int
    """Of those, random fallbacks."""
    deterministic_correct: NotRequired[int]
    """Items it judged correct without a random fallback (fallbacks counted wrong): for the
    official parser, what a verifiers run's mean ``official_correct`` counts. Absent in older files."""


class ItemVerdict(TypedDict):
    """The headline verdict of one item; ``compare`` pairs these across runs."""

    subject: str
    """The item's subject (the bootstrap stratum)."""
    pred: str | None
    """Parsed letter, or the open answer's first candidate; None when nothing parsed."""
    correct: bool
    """Judged correct."""
    fallback: bool
    """The letter came from the random fallback."""


class Results(TypedDict):
    """The whole of ``results.json``."""

    schema_version: int
    """Version of this schema (1)."""
    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    split: str
    """``dev``, ``validation`` or ``test`` (MMMU-Pro: always ``test``)."""
    setting: str | None
    """MMMU-Pro setting (``standard-10``, ``standard-4``, ``vision``); None for MMMU."""
    gold_available: bool
    """False when no item has a gold answer (test split without --answers): accuracies are void."""
    scope: NotRequired[ScopeInfo]
    """The items the figures stand for; absent in older files (``scope.scope_of_results`` works it out)."""
    run: RunInfo
    """Provenance from the manifest."""
    overall: RowWithInterval
    """The headline: micro accuracy over all scored items, with its interval."""
    interval: IntervalMethod
    """How every ci95 was computed."""
    by_discipline: dict[str, RowWithInterval]
    """Per discipline, in the official order; interval stratified by its subjects."""
    by_subject: dict[str, RowWithInterval]
    """Per subject, discipline by discipline in the official order; plain bootstrap interval."""
    by_img_type: dict[str, Row]
    """Per image type (an item with several types counts in each)."""
    by_topic_difficulty: dict[str, Row]
    """Per ``topic_difficulty`` (Easy, Medium, Hard)."""
    by_question_type: dict[str, Row]
    """``multiple-choice`` and ``open``."""
    by_option_count: dict[str, Row]
    """Per number of options, as a string (``"4"``), and ``"open"``."""
    parse: ParseStats
    """Fallback counts and the accuracies with fallbacks removed or averaged."""
    coverage: Coverage
    """Items asked, scored, failed, missing, truncated."""
    parsers: dict[str, ParserScore]
    """Every parser that scored the responses, headline first."""
    disagreements: int
    """Items on which the parsers disagree about correctness."""
    verdicts: dict[str, ItemVerdict]
    """Item id -> headline verdict, for every scored item with a gold answer, in dataset order."""
    usage: Usage | None
    """Requests, retries, tokens, latency and cost of the run's responses (results/usage.py);
    None when the responses were not given. Older files lack the key."""
    sample: NotRequired[dict]
    """``run --sample K`` only: the sample's score and the exact 95% interval for the full set's
    (``stats.sampled.sample_section``; docs/results-schema.md)."""
    harness: NotRequired[dict]
    """Rescored runs only: the other harness's accuracy beside ours and the items where the
    verdicts differ, by cause (``scoring.explain.Explanation.to_json``; docs/results-schema.md)."""
