"""``mmmu-eval compare RUN_A RUN_B [...]``: paired comparison on the items the runs share.

Parse, read each run once (``read_run``), call ``compare`` per pair (``commands/compare.py``), print.
"""

from __future__ import annotations

import argparse
import json


from mmmu_eval.cli.flag_defaults import HelpFormatter
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.untrusted import for_rich, make_console

EPILOG = """examples:
  mmmu-eval compare runs/sample-random runs/sample-frequent
  mmmu-eval compare runs/gpt4o-direct runs/gpt4o-cot --allow-different-protocols --flips 100
  mmmu-eval compare runs/a runs/b runs/c --json > comparison.json   # b and c each against a
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare",
        help="paired comparison of runs: difference, paired bootstrap interval, exact McNemar",
        description=(
            "Compare runs item by item on the items each pair shares: the accuracy difference with a "
            "paired bootstrap 95% interval (stratified by subject), the exact McNemar test, the "
            "per-discipline differences and the items that flip. Every run after the first is compared "
            "with the first. Runs of different protocols (prompt fingerprints) are refused unless "
            "--allow-different-protocols, runs scored differently (headline parser, fallback policy or "
            "seed, answers file) unless --allow-different-scoring; different dataset revisions only warn. "
            "Each run's scoring is printed in the header and in --json."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="two or more run directories; the first is the baseline")
    p.add_argument("--allow-different-protocols", action="store_true",
                   help="compare runs whose prompts or settings differ (e.g. direct vs cot)")
    p.add_argument("--allow-different-scoring", action="store_true",
                   help="compare runs scored by different parsers, fallback policies or answer files")
    p.add_argument("--flips", type=int, default=50, metavar="N", help="list at most N flipping items")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="paired bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--json", action="store_true", help="print the comparisons as JSON (all flips) instead of tables")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.commands.compare import compare
    from mmmu_eval.rendering.comparison_terminal import print_comparison
    from mmmu_eval.results.finished_run import read_run

    if len(args.runs) < 2:
        raise ConfigError("compare needs at least two run directories (RUN_A RUN_B)")
    if args.flips < 0 or args.bootstrap < 0:
        raise ConfigError("--flips and --bootstrap must be 0 or more")
    console = make_console()
    runs = [read_run(path, bootstrap=args.bootstrap, seed=args.seed) for path in args.runs]  # the baseline read once
    comparisons = [
        compare(runs[0], other, labels=(str(args.runs[0]), str(path)),
                allow_different_protocols=args.allow_different_protocols,
                allow_different_scoring=args.allow_different_scoring, bootstrap=args.bootstrap, seed=args.seed)
        for path, other in zip(args.runs[1:], runs[1:])
    ]
    if args.json:
        out = [c.to_json() for c in comparisons]
        print(json.dumps(out[0] if len(out) == 1 else out, indent=2))
        return 0
    for c in comparisons:
        if len(comparisons) > 1:
            console.rule(f"{for_rich(c.label_a)} vs {for_rich(c.label_b)}")
        print_comparison(c, console, max_flips=args.flips)
    return 0
