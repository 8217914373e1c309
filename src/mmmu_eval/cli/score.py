"""``mmmu-eval score RUN_DIR``: score a stored run with one or more parsers, side by side."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmmu_eval.errors import ConfigError

EPILOG = """examples:
  mmmu-eval score runs/sample-random
  mmmu-eval score runs/pro-vision-cot --parser official --parser boxed --parser strict
  mmmu-eval score runs/sample-random --fallback none --show-disagreements 50
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from mmmu_eval.score.judge import PARSERS
    from mmmu_eval.score.scorer import FALLBACK_POLICIES

    p = subparsers.add_parser(
        "score",
        help="score a run's stored responses (several parsers side by side)",
        description=(
            "Score the responses stored in a run directory against the run's items, with the official "
            "parsers (and optionally others), and write predictions.jsonl and results.json into it. "
            "Prints each parser's score, the fallback figures (official, deterministic and expected "
            "accuracy) and the items on which the parsers disagree."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    p.add_argument("--parser", action="append", choices=PARSERS, metavar="NAME",
                   help=("parser to apply, repeatable; the first is the headline (default official, or boxed then "
                         f"official for a run asked with --prompt boxed; one of {', '.join(PARSERS)})"))
    p.add_argument("--fallback", choices=FALLBACK_POLICIES, default=None,
                   help="unparseable multiple choice: seeded random letter (official) or wrong (none); default: the run's")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random fallback (default: the run's fallback_seed, else 42)")
    p.add_argument("--answers", metavar="FILE", help="official answer dict to score a test-split run against")
    # What is set here becomes the run's scoring (manifest.json), so that report, compare and the
    # HTML report show the headline this command printed.
    p.add_argument("--show-disagreements", type=int, default=20, metavar="N",
                   help="print at most N disagreeing items (default 20)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for results.json (default 1000)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # The run directory and the dataset are read the same way the report reads them back.
    from mmmu_eval.report.harness import harness_section
    from mmmu_eval.report.results import build_results
    from mmmu_eval.report.loaded_run import run_items
    from mmmu_eval.score.scorer import predictions_rows
    from mmmu_eval.score.spec import MANIFEST_KEY, ScoringSpec
    from mmmu_eval.store.rundir import MANIFEST, RunStore

    if args.show_disagreements < 0:
        raise ConfigError("--show-disagreements must be 0 or more")
    store = RunStore.read(args.run_dir)
    manifest = store.manifest()
    recorded = ScoringSpec.from_manifest(manifest)
    spec = recorded.replace(parsers=args.parser, fallback=args.fallback, fallback_seed=args.seed, answers=args.answers)
    responses = store.responses()
    items = spec.gold_items(run_items(manifest, responses, manifest_path=store.path / MANIFEST))
    scoring = spec.score(items, responses)

    # RunStore.read is read-only; derived files go through a writable store on the same
    # directory (write_* never touches manifest.json or responses.jsonl), as the report does.
    out = RunStore(Path(store.path), writable=True)
    written = [out.write_jsonl("predictions.jsonl", predictions_rows(scoring, responses))]
    if not scoring.ungraded or spec.answers:
        harness = harness_section(store, manifest, items, scoring, responses)  # rescored runs only
        results = build_results(scoring, items, manifest, bootstrap=args.bootstrap, responses=responses, harness=harness)
        written.append(out.write_json("results.json", results))
    if spec != recorded or MANIFEST_KEY not in store.manifest():
        out.update_manifest(**{MANIFEST_KEY: spec.to_manifest()})
    for line in summary_lines(scoring, len(items), args.show_disagreements):
        print(line)
    if spec != recorded:
        print(f"the run's scoring is now: {spec.describe()} (recorded in manifest.json; report and compare follow it)")
    for path in written:
        print(f"wrote {path}")
    return 0


def summary_lines(scoring, n_items: int, show: int) -> list[str]:
    """Per-parser scores, the fallback figures, coverage, and the first ``show`` disagreements."""
    from mmmu_eval.report.numbers import pct

    headline = scoring.parsers[0]
    graded = scoring.aggregates[headline].overall.n
    lines = []
    if graded:
        lines.append(f"{'parser':<10} {'correct':>8} {'total':>6} {'accuracy':>9} {'fallbacks':>9}")
        for name in scoring.parsers:
            tally = scoring.aggregates[name].overall
            fallbacks = sum(1 for v in scoring.verdicts[name].values() if v.fallback)
            lines.append(f"{name:<10} {tally.correct:>8} {tally.n:>6} {tally.accuracy:>9.4f} {fallbacks:>9}")
        lines.append(
            f"{headline}: official-policy accuracy {scoring.aggregates[headline].overall.accuracy:.4f} "
            f"(fallback {scoring.fallback_policy}, seed {scoring.fallback_seed}); deterministic "
            f"{scoring.deterministic_correct / graded:.4f}; expected {scoring.expected_correct / graded:.4f}; "
            f"fallbacks {scoring.fallbacks} ({pct(scoring.fallbacks / graded, 2)}%)"
        )
    if scoring.ungraded:
        judged = scoring.verdicts[headline]
        guessed = sum(1 for i in scoring.ungraded if judged[i].fallback)
        lines.append(f"{len(scoring.ungraded)} predictions without a gold answer (test split; {guessed} of them "
                     "fallbacks): pass --answers to score them, or `mmmu-eval report --submission` for EvalAI")
    lines.append(f"items {n_items}: scored {graded}, errors {len(scoring.errors)}, missing {len(scoring.missing)}")
    if scoring.problems:
        lines.append(f"{len(scoring.problems)} item(s) the official code would crash on (scored wrong), e.g. {scoring.problems[0]}")
    if len(scoring.parsers) > 1:
        lines.append(f"{len(scoring.disagreements)} item(s) where the parsers disagree")
        for entry in scoring.disagreements[:show]:
            preds = ", ".join(f"{p}={entry['preds'][p]!r}{'+' if entry['correct'][p] else '-'}" for p in scoring.parsers)
            lines.append(f"  {entry['id']}: {preds}")
        if len(scoring.disagreements) > show:
            lines.append(f"  ... {len(scoring.disagreements) - show} more")
    return lines
