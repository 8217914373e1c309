"""Mutation check: do the tests fail when the code that decides results is broken on purpose?

Each mutant below is one small, deliberate bug (a flipped comparison, a dropped step, a wrong
seed) in the code that decides results: the official parsers and their fallback, open-answer
matching, aggregation and intervals, the study's rounding and better-of rule, the environments'
rewards and shuffle, harden's filter rule, shuffle and review decisions, the runner's "answered
already" rule, resume and merge, and the page kit's rules for every HTML file. For each, the
source tree is copied to a temporary directory, the mutant is applied there (the checkout is
never changed), and the tests of that package run against the copy (``PYTHONPATH`` puts the copy first; a check at the start proves that the copy is
what the tests import). A mutant is *killed* when its tests fail, and *survives* when they pass:
a survivor is a behaviour no test pins, so a test is missing or too weak.

Not part of CI (minutes, not seconds). Run from the repository root with the test venv:

    .venv/bin/python benchmarks/mutants.py             # every mutant; exit 1 when any survives
    .venv/bin/python benchmarks/mutants.py --jobs 2    # two at a time
    .venv/bin/python benchmarks/mutants.py --only filter-majority,merge-gaps
    .venv/bin/python benchmarks/mutants.py --list

It prints one line per mutant (killed, with the first failing test, or SURVIVED), then the
figures: mutants, killed, survivors and wall time. A mutant whose text no longer occurs exactly
once in its file is reported as stale (the code moved on; update the list), never skipped.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Test sets, one per package of the code mutated (fast tests only: no servers or browsers). The
#: files that pin the behaviour most directly come first: pytest stops at the first failure (-x),
#: so a killed mutant costs seconds and only a survivor runs the whole set.
SCORE = ("tests/scoring/test_score_mmmu_parser.py", "tests/scoring/test_score_pro_parser.py", "tests/scoring/test_score_open_answer.py",
         "tests/scoring/test_score_open_answer_lines.py",
         "tests/scoring/test_score_boxed_strict.py", "tests/scoring/test_score_scorer.py", "tests/scoring/test_score_aggregate.py",
         "tests/scoring/test_score_headline.py", "tests/scoring/test_score_parity.py", "tests/scoring/test_score_properties.py",
         "tests/scoring/test_score_doctests.py", "tests/scoring/test_scoring_record.py")
STATS = ("tests/stats/test_report_stats.py", "tests/stats/test_report_stats_combination.py",
         "tests/stats/test_report_qa_singleton_strata.py", "tests/results/test_report_results.py")
SUITE = ("tests/suite/test_suite_study.py", "tests/suite/test_suite_table1.py", "tests/suite/test_suite_old_image_rule.py", "tests/suite/test_suite_local_engine.py",
         "tests/cli/test_cli_suite.py", "tests/suite")
ENVIRONMENTS = ("tests/environments/test_rewards.py", "tests/environments/test_examples.py", "tests/environments")
HARDEN = ("tests/harden/test_harden_filter.py", "tests/harden/test_harden_distractors.py", "tests/harden/test_harden_augment.py",
          "tests/harden/test_harden_later_steps.py", "tests/harden/test_harden_review_rerun.py", "tests/harden")
RUNNER = ("tests/run/test_resume_truncated.py", "tests/run/test_kill_resume.py", "tests/run/test_runner.py", "tests/run/test_api.py", "tests/store/test_store_rundir.py",
          "tests/store", "tests/cli/test_cli_run.py")
NUMBERS = ("tests/suite/test_suite_same_figure.py", "tests/core/test_numbers.py", "tests/suite/test_suite_study.py")
STORE = ("tests/run/test_merge_checks.py", "tests/run/test_merge_runs.py", "tests/store")
PAGE = ("tests/rendering/test_page_kit.py", "tests/rendering/test_report_html.py", "tests/harden/test_harden_augment.py")


@dataclass(frozen=True)
class Mutant:
    """One deliberate bug: ``find`` (which must occur exactly once in ``path``) becomes ``replace``."""

    name: str
    path: str
    """Relative to ``src/mmmu_eval``."""
    find: str
    replace: str
    tests: tuple[str, ...]
    why: str
    """The behaviour it removes, as the report names it."""


M = Mutant
MUTANTS: tuple[Mutant, ...] = (
    # -- the official parsers and their fallback ---------------------------------------------------
    M("strip-order", "scoring/choices.py", "    for mark in PUNCTUATION:", "    for mark in reversed(PUNCTUATION):", SCORE,
      "the official sequential punctuation strip order"),
    M("tie-latest", "scoring/choices.py", "        if pos > best_pos:", "        if pos >= best_pos:", SCORE,
      "ties among candidates go to the earliest (np.argmax)"),
    M("bracket-first-mention", "scoring/choices.py", 'lambda c: padded.rfind(f"({c})")', 'lambda c: padded.find(f"({c})")', SCORE,
      "the (L) pass takes the latest last mention"),
    M("content-threshold", "scoring/choices.py", "    if len(padded.split()) <= 5:", "    if len(padded.split()) < 5:", SCORE,
      "the content pass runs only on more than 5 tokens"),
    M("content-case", "scoring/choices.py", "        if option.lower() in lowered:", "        if option in padded:", SCORE,
      "the content pass ignores case"),
    M("mmmu-spaced-pass", "scoring/mmmu_parser.py", 'candidates = [c for c in choices if f" {c} " in padded]',
      'candidates = [c for c in choices if f"{c} " in padded]', SCORE, "MMMU's spaced pass needs a space on both sides"),
    M("pro-answer-unique", "scoring/mmmu_pro_parser.py", "        if len(matching) == 1:", "        if len(matching) >= 1:", SCORE,
      "MMMU-Pro's Answer: step needs exactly one letter"),
    M("pro-answer-last", "scoring/mmmu_pro_parser.py", "mark = response.rfind(ANSWER_MARK)", "mark = response.find(ANSWER_MARK)", SCORE,
      "MMMU-Pro reads the last Answer:"),
    M("pro-tie-spaced", "scoring/mmmu_pro_parser.py", 'return last_mentioned(candidates, lambda c: padded.rfind(f" {c} "))',
      'return last_mentioned(candidates, lambda c: padded.rfind(f"{c} "))', SCORE,
      "MMMU-Pro's tie rule looks for ' L ' (so 'L '/'L.' candidates give the first)"),
    M("fallback-first-letter", "scoring/choices.py", "    return rng.choice(list(choices)), True", "    return choices[0], True", SCORE,
      "the fallback draws a random letter"),
    M("fallback-seed", "scoring/scorer.py", "rng = random.Random(fallback_seed) if", "rng = random.Random(fallback_seed + 1) if", SCORE,
      "the fallback generator is seeded with the official 42"),
    M("fallback-draw-order", "scoring/scorer.py", "    drawing_order = sorted(scorable, key=draw_key)", "    drawing_order = list(scorable)", SCORE,
      "the draws go in the official subject/number order"),
    M("deterministic-counts-fallbacks", "scoring/scorer.py", "if v.correct and not v.fallback)", "if v.correct)", SCORE,
      "deterministic accuracy counts every fallback wrong"),
    M("expected-credit", "scoring/scorer.py", "sum(1 / v.n_choices for v in fallen", "sum(1 / (v.n_choices + 1) for v in fallen", SCORE,
      "expected accuracy credits a fallback 1/options"),
    # -- open-answer matching ------------------------------------------------------------------
    M("open-substring", "scoring/open_answer.py", "            if any(g in candidate for g in gold_strings):",
      "            if any(g == candidate for g in gold_strings):", SCORE, "a string gold matches as a substring"),
    M("open-round", "scoring/open_answer.py", 'return [round(float(text.replace(",", "")), 2)]', 'return [round(float(text.replace(",", "")), 3)]', SCORE,
      "numbers compare rounded to 2 decimals"),
    M("open-pad-single", "scoring/open_answer.py", "    if len(text) == 1:", "    if len(text) == 0:", SCORE,
      "a one-character answer is padded on either side"),
    M("open-equals-last-line", "scoring/open_answer.py", 'indicators = _INDICATORS + ("=",) if index == len(lines) - 1 else _INDICATORS',
      'indicators = _INDICATORS + ("=",) if index == 0 else _INDICATORS', SCORE, "'=' is an indicator on the last line only"),
    M("open-shortest", "scoring/open_answer.py", "if not shortest or len(tail) < len(shortest):", "if not shortest or len(tail) > len(shortest):", SCORE,
      "the shortest text after an indicator is the key"),
    M("choice-exact", "scoring/open_answer.py", "        return gold == pred", "        return gold.lower() == str(pred).lower()", SCORE,
      "a multiple-choice answer equals the gold letter exactly"),
    M("boxed-case", "scoring/boxed.py", "answer.casefold() == g.strip().casefold()", "answer == g.strip()", SCORE,
      "the boxed parser ignores case"),
    # -- aggregation and intervals -------------------------------------------------------------
    M("tally-correct", "scoring/aggregate.py", "correct[key] = correct.get(key, 0) + int(ok)", "correct[key] = correct.get(key, 0) + 1", SCORE,
      "a group counts only its correct items"),
    M("aggregate-graded-only", "scoring/scorer.py", "aggregates={name: aggregate(graded, verdicts[name])", "aggregates={name: aggregate(items, verdicts[name])", SCORE,
      "accuracy is over the graded items"),
    M("interval-tail", "stats/intervals.py", "    tail = (1 - level) / 2", "    tail = 1 - level", STATS, "a 95% interval cuts 2.5% on each side"),
    M("bootstrap-total", "stats/intervals.py", "counts.sum(axis=1) / total, level)", "counts.sum(axis=1) / (total + 1), level)", STATS,
      "the bootstrap replicate is pooled accuracy"),
    M("paired-difference", "stats/intervals.py", "        diff += cells[:, 1] - cells[:, 2]", "        diff += cells[:, 1]", STATS,
      "the paired interval is of a difference"),
    M("mcnemar-two-sided", "stats/intervals.py", "Fraction(2 * tail, 2**n)", "Fraction(tail, 2**n)", STATS, "McNemar's p is two-sided"),
    M("percent-half-up", "core/numbers.py", "rounding=ROUND_HALF_UP, context=_EXACT)", 'rounding="ROUND_HALF_EVEN", context=_EXACT)',
      NUMBERS, "percentages round half up"),
    M("percent-float-path", "core/numbers.py", "        return Decimal(repr(x))", "        return Decimal(x)", NUMBERS,
      "a figure rounds the decimal its float stands for, not the binary float"),
    M("difference-exact", "suite/study.py", '"percent": percent(value if exactly is None else exactly)', '"percent": percent(value)',
      NUMBERS, "a Table 1 combination or difference rounds its exact value once"),
    M("overall-columns", "suite/study.py", '"overall": ((0.5, "standard_10"), (0.5, "vision")),', '"overall": ((0.5, "standard_10"), (0.5, "standard_4")),',
      SUITE, "overall is the mean of standard-10 and vision"),
    M("better-of-tie", "scoring/headline.py", 'key=lambda m: (by_mode.get(m, float("-inf")), m == "direct"))',
      'key=lambda m: (by_mode.get(m, float("-inf")), m == "cot"))', SCORE + SUITE, "a tie between direct and CoT goes to direct"),
    M("suite-report-stale", "suite/execute.py", '    return summarize(suite_dir, runs, model=old["model"]', '    return old or summarize(suite_dir, runs, model=old["model"]',
      SUITE, "report SUITE_DIR rebuilds Table 1 from the runs' results.json (after a re-score)"),
    M("suite-local-together", "suite/execute.py", '        if sharing == "sequential":', "        if False:", SUITE,
      "a local engine's runs go one after another"),
    M("suite-local-per-run", "suite/suite_config.py", '    if spec.startswith(("hf:", "vllm:")):\n        return "sequential"',
      '    if spec.startswith(("hf:", "vllm:")):\n        return "per-run"', SUITE, "a local engine is loaded once for the whole suite"),
    M("suite-image-rule-hint", "suite/execute.py", "        check_run_dir(run.config, partial)", "        RunStore.check(run.config.out, partial, resume=True)",
      SUITE, "the suite's refusal of an old-image-rule run names --unreferenced-images append"),
    # -- the environments' rewards and shuffle ----------------------------------------------------
    M("examples-no-shuffle", "environments/examples.py", "        random.Random(seed).shuffle(items)", "        items = items", ENVIRONMENTS,
      "seed shuffles the examples"),
    M("examples-limit-first", "environments/examples.py",
      "    if seed is not None:\n        random.Random(seed).shuffle(items)\n    if limit is not None:\n"
      "        if limit < 1:\n            raise ConfigError(f\"limit {limit} must be at least 1\")\n        items = items[:limit]\n",
      "    if limit is not None:\n        if limit < 1:\n            raise ConfigError(f\"limit {limit} must be at least 1\")\n"
      "        items = items[:limit]\n    if seed is not None:\n        random.Random(seed).shuffle(items)\n",
      ENVIRONMENTS, "the shuffle comes before the limit"),
    M("reward-any-box", "environments/rewards.py", '"boxed_correct": float(boxed.correct),', '"boxed_correct": float(boxed.pred is not None),',
      ENVIRONMENTS, "the reward needs the right answer in the box, not just a box"),
    M("official-metric-guesses", "environments/rewards.py", 'official = judge(item, text, "official", None).correct',
      'official = judge(item, text, "official", __import__("random").Random(0)).correct', ENVIRONMENTS,
      "official_correct never counts a random guess"),
    M("boxed-found-text", "environments/rewards.py", '"boxed_found": float(last_boxed(text) is not None),', '"boxed_found": float("boxed" in text),',
      ENVIRONMENTS, "boxed_found needs a closed box"),
    # -- harden: the filter rule, the shuffle, the decisions ---------------------------------------
    M("filter-majority", "harden/filter.py", "        need = self.trials // 2 + 1", "        need = self.trials // 2", HARDEN,
      "answerable means right in MORE than half of the trials"),
    M("filter-failed-could-tip", "harden/filter.py", "        if outcome.correct + outcome.failed < need:", "        if outcome.correct < need:", HARDEN,
      "failed trials that could tip it leave the verdict open"),
    M("filter-min-models", "harden/filter.py", "        if sure >= rule.min_models:", "        if sure > rule.min_models:", HARDEN,
      "excluded when at least min_models find it answerable"),
    M("filter-undecided", "harden/filter.py", "        elif sure + unsure < rule.min_models:", "        elif sure < rule.min_models:", HARDEN,
      "a question the unsure models could tip is undecided, not kept"),
    M("filter-scaled-rule", "harden/filter.py", "math.ceil(3 * n_models / 4)", "round(3 * n_models / 4)", HARDEN,
      "min_models is ceil(3n/4)"),
    M("filter-sample-per-subject", "harden/filter.py", 'random.Random(f"{seed}:sample:{subject}")', 'random.Random(f"{seed}:sample")', HARDEN,
      "each subject samples from its own generator"),
    M("shuffle-unseeded", "harden/shuffle.py", '    return random.Random(f"{seed}:shuffle:{item_id}")', "    return random.Random()", HARDEN,
      "the option shuffle is seeded per item"),
    M("shuffle-none", "harden/shuffle.py", "    rng.shuffle(movers)", "    movers = movers", HARDEN, "the options and distractors are shuffled"),
    M("shuffle-true-all-above", "harden/shuffle.py", 'if dep.kind == "all-above" and dep.index == correct:', "if False:", HARDEN,
      "a correct 'All of the above' is not augmented"),
    M("shuffle-enders-last", "harden/shuffle.py", "last_free = [k for k in range(total - 1, -1, -1) if k not in fixed]",
      "last_free = [k for k in range(total) if k not in fixed]", HARDEN, "'None of the above' goes to the last place"),
    M("shuffle-answer-follows", "harden/shuffle.py", "    answer_letter = letters(total)[[src for _, src in final].index(original[correct][1])]",
      "    answer_letter = answer", HARDEN, "the answer letter follows the correct option"),
    M("review-stale-options", "harden/review.py", 'if shown is not None and list(shown) != list(entry["options"]):', "if False:", HARDEN,
      "a decision on options that changed since the review is refused"),
    M("review-drop", "harden/review.py", '"drop": "dropped"}', '"drop": "accepted"}', HARDEN, "a dropped question is dropped"),
    M("augment-keeps-review", "harden/augment.py", 'if old.get("options") == plans[item.id].get("options") and old.get("review"):', "if False:",
      HARDEN, "a rerun keeps the review decisions already applied"),
    M("later-steps-kept", "harden/outdir.py", "    if before is not None and before != digest:", "    if False:", HARDEN,
      "a changed step result drops the later steps built on it"),
    M("later-steps-keep-runs", "harden/outdir.py", '                shutil.rmtree(out / "runs" / later)', "                pass", HARDEN,
      "a changed step result removes the later steps' runs (so they can run again)"),
    M("filter-model-endpoints", "harden/trials.py", "        own = tuple(urls) or (tuple(base_urls) if base_urls else None)",
      "        own = tuple(base_urls) if base_urls else None", HARDEN, "a model spec's own @endpoints"),
    M("later-steps-always-dropped", "harden/outdir.py", "    if before is not None and before != digest:", "    if before is not None:", HARDEN,
      "an unchanged step result keeps the later steps"),
    # -- the runner's "answered already" rule and resume -------------------------------------------
    M("finished-includes-errors", "run/resume.py", 'FINISHED = ("ok", "truncated")', 'FINISHED = ("ok", "truncated", "error")', RUNNER,
      "an error is asked again on resume"),
    M("finished-excludes-truncated", "run/resume.py", 'FINISHED = ("ok", "truncated")', 'FINISHED = ("ok",)', RUNNER,
      "a truncated answer is an answer (not asked again)"),
    M("early-contact-on-resume", "run/pipeline.py", "make_backend_before_data(model, backend_settings(config)) if not holds_anything(Path(config.out or \".\")) else None",
      "make_backend_before_data(model, backend_settings(config)) if True else None", ("tests/run/test_early_contact.py",) + RUNNER,
      "a resumed run is checked before the server hears anything"),
    M("resume-asks-everything", "run/resume.py", "    return [r for r in requests if r.item_id not in answered]", "    return list(requests)", RUNNER,
      "a resumed run asks only what has no answer"),
    M("store-first-record-wins", "store/rundir.py",
      "            out.pop(response.item_id, None)  # keep insertion order = order of the latest answer\n            out[response.item_id] = response",
      "            out.setdefault(response.item_id, response)",
      RUNNER, "the last stored record of an item wins"),
    M("resume-other-protocol", "store/same_run.py", "    if a != b:\n        differences", "    if False:\n        differences", RUNNER,
      "a run under another protocol is refused"),
    M("resume-other-config", "store/same_run.py", "        if old_config.get(key) != new_config.get(key):", "        if False:", RUNNER,
      "a run of another model or selection is refused"),
    M("torn-line-anywhere", "store/response_lines.py", '            finished = raw.endswith(b"\\n")', "            finished = False", RUNNER,
      "only a torn LAST line is skipped; damage elsewhere stops the read"),
    # -- merge --------------------------------------------------------------------------------
    M("merge-overlap", "run/merge_shards.py", "            if item_id in owner:", "            if False:", STORE, "an item answered in two shards is refused"),
    M("merge-missing-shard", "run/merge_shards.py", "    missing = [k for k in range(1, n + 1) if k not in seen]",
      "    missing = [k for k in range(1, n) if k not in seen]", STORE, "every shard K of N must be there"),
    M("merge-gaps", "run/merge_shards.py", "        expected = order[shard.k - 1:: n]", "        expected = order[shard.k:: n]", STORE,
      "each shard holds exactly its round-robin slice"),
    M("merge-order", "run/merge_shards.py", "        for item_id in order:\n            store.append(merged[item_id])",
      "        for item_id in reversed(order):\n            store.append(merged[item_id])", STORE, "the merged run keeps the dataset order"),
    M("merge-shard-count", "run/merge_shards.py", "        if shard.n != first.n:", "        if False:", STORE, "shards of different N are refused"),
    # -- the page kit: one head, one conversion rule, one budget unit for every HTML file ---------
    M("page-tiff-as-stored", "rendering/page.py", 'SHOWABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})',
      'SHOWABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/tiff", "image/bmp"})', PAGE,
      "every page shows a TIFF or BMP as PNG"),
    M("page-always-converted", "rendering/page.py", "    if media in SHOWABLE:\n        return data, media\n",
      "    if False:\n        return data, media\n", PAGE, "a browser format is embedded as stored (a rendered page unchanged)"),
    M("page-budget-raw-bytes", "harden/review.py", "if not spend.take(len(url)):", "if not spend.take(len(url) * 3 // 4):", PAGE,
      "the review page counts its budget in data-URL bytes, as every page does"),
    M("page-policy-without-script", "rendering/page.py", "    if script is None:\n        return _POLICY\n",
      "    if True:\n        return _POLICY\n", PAGE, "a page's policy admits its own script by hash"),
)


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str
    """``killed``, ``survived`` or ``stale``."""
    detail: str
    seconds: float


def apply(mutant: Mutant, src: Path) -> None:
    """Write the mutant into the copy ``src`` (the package folder of a copied tree)."""
    file = src / mutant.path
    text = file.read_text(encoding="utf-8")
    count = text.count(mutant.find)
    if count != 1:
        raise LookupError(f"{mutant.path}: the text to mutate occurs {count} times, not once")
    file.write_text(text.replace(mutant.find, mutant.replace), encoding="utf-8")


def pytest_command(tests: tuple[str, ...], python: str) -> list[str]:
    return [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", "-rf", "--no-header", *tests]


def environment(copy_root: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(copy_root), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env.pop("CI", None)  # a skip for a missing tool is not a kill; but neither may it fail the baseline
    return env


def check_imports_copy(copy_root: Path, python: str) -> None:
    """The tests must import the copy, not the checkout (an editable install could win)."""
    done = subprocess.run([python, "-c", "import mmmu_eval; print(mmmu_eval.__file__)"], capture_output=True, text=True,
                          env=environment(copy_root), cwd=ROOT, check=True)
    where = Path(done.stdout.strip()).resolve()
    if copy_root.resolve() not in where.parents:
        raise SystemExit(f"the tests import mmmu_eval from {where}, not from the mutated copy {copy_root}; "
                         "uninstall a non-editable mmmu-eval from this venv")


def copy_source(tmp: str) -> Path:
    """A copy of the checkout's ``src/`` under ``tmp``; the root to put on PYTHONPATH."""
    copy_root = Path(tmp) / "src"
    shutil.copytree(ROOT / "src", copy_root, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return copy_root


def run_one(mutant: Mutant, python: str) -> Outcome:
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name}-") as tmp:
        copy_root = copy_source(tmp)
        try:
            apply(mutant, copy_root / "mmmu_eval")
        except LookupError as exc:
            return Outcome(mutant, "stale", str(exc), time.monotonic() - start)
        done = subprocess.run(pytest_command(mutant.tests, python), capture_output=True, text=True,
                              env=environment(copy_root), cwd=ROOT)
    seconds = time.monotonic() - start
    if done.returncode == 0:
        return Outcome(mutant, "survived", "every test passed", seconds)
    if done.returncode == 5:
        return Outcome(mutant, "survived", "no test was collected", seconds)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)
    return Outcome(mutant, "killed", failed[0] if failed else f"pytest exit {done.returncode}", seconds)


def baseline(test_sets: set[tuple[str, ...]], python: str) -> None:
    """Every test set passes on the unmutated copy; else a kill would mean nothing."""
    with tempfile.TemporaryDirectory(prefix="mutant-baseline-") as tmp:
        copy_root = copy_source(tmp)
        check_imports_copy(copy_root, python)
        tests = sorted({t for s in test_sets for t in s})
        done = subprocess.run(pytest_command(tuple(tests), python), capture_output=True, text=True,
                              env=environment(copy_root), cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"the tests fail without any mutant; fix them first:\n{done.stdout[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at the same time (default 1)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of every test set")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the test venv (default this one)")
    args = parser.parse_args(argv)
    chosen = list(MUTANTS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(names) - {m.name for m in MUTANTS})
        if unknown:
            parser.error(f"unknown mutant(s): {', '.join(unknown)}")
        chosen = [m for m in MUTANTS if m.name in names]
    if args.list:
        for m in chosen:
            print(f"{m.name:32} {m.path:28} {m.why}")
        return 0
    start = time.monotonic()
    if not args.no_baseline:
        baseline({m.tests for m in chosen}, args.python)
        print(f"baseline: every test set passes unmutated ({time.monotonic() - start:.0f} s)", flush=True)
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(lambda m: run_one(m, args.python), chosen):
            outcomes.append(outcome)
            mark = {"killed": "killed  ", "survived": "SURVIVED", "stale": "STALE   "}[outcome.status]
            print(f"{mark} {outcome.mutant.name:32} {outcome.seconds:6.1f} s  {outcome.detail}", flush=True)
    survivors = [o for o in outcomes if o.status == "survived"]
    stale = [o for o in outcomes if o.status == "stale"]
    killed = len(outcomes) - len(survivors) - len(stale)
    print(f"\n{len(outcomes)} mutants: {killed} killed, {len(survivors)} survived, {len(stale)} stale; "
          f"wall time {time.monotonic() - start:.0f} s")
    for o in survivors:
        print(f"  survivor {o.mutant.name} ({o.mutant.path}): no test pins that {o.mutant.why}")
    for o in stale:
        print(f"  stale {o.mutant.name}: {o.detail}")
    return 1 if survivors or stale else 0


if __name__ == "__main__":
    sys.exit(main())
