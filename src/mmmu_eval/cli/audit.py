"""``mmmu-eval audit RUN_OR_FILE... [--json FILE] [--html FILE]``: the benchmark's own errors, from many runs."""

from __future__ import annotations

import argparse

from mmmu_eval.core.untrusted import make_console

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare

EPILOG = """examples:
  mmmu-eval audit runs/gpt4o-pro10 runs/qwen-pro10 runs/qwen-vision
  mmmu-eval audit suites/pro-2026 --json audit.json --html audit.html
  mmmu-eval audit mmmu-pro-2024/*.jsonl --top 40     # the official paper-era outputs, their mix_data.jsonl too
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "audit",
        help="find suspect labels, augmentation failures and structural problems from many runs",
        description=(
            "Join runs, suites and other harnesses' files by item id and option text, and report the "
            "benchmark's own suspect items: labels that many runs, and the stronger ones, contradict by "
            "agreeing on one wrong option (against how often chance would), in two lists: gold suspects (the "
            "consensus is an original option) and augmentation suspects (an option the ten-option augmentation "
            "added: the fix is to that option); options added by the augmentation that draw the runs where the "
            "four-option form is answered right, structural "
            "problems, item statistics and data revision differences. Evidence for a person to check, never "
            "a verdict; no run and no official figure is changed (docs/audit.md)."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="RUN_OR_FILE",
                   help="run directories, suite directories and harness output files, in any mix")
    declare(p.add_argument("--data", metavar="hub|sample|DIR",
                           help="the dataset other harnesses' rows are joined to (as for rescore); named, it also "
                                "gives the --html page the images of items whose files hold none (the official "
                                "outputs)"),
            Phrase("hub for the rows; no images looked up"))
    p.add_argument("--format", default="auto", help="the harness files' format (see rescore)")
    declare(p.add_argument("--json", metavar="FILE", help="write the whole audit as JSON (schema in docs/audit.md)"),
            Phrase("none; no JSON file"))
    declare(p.add_argument("--html", metavar="FILE", help="write a self-contained page for reviewers"), Phrase("none; no page"))
    p.add_argument("--top", type=int, default=20, metavar="N", help="suspects and added options printed")
    p.add_argument("--min-models", type=int, default=3, metavar="N",
                   help="models whose stronger runs must agree for an item to be flagged")
    p.add_argument("--weakest", type=float, default=0.25, metavar="SHARE",
                   help="share of models, weakest first, whose runs are not the stronger ones")
    p.add_argument("--no-irt", action="store_true", help="do not fit the 2PL item response model")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.auditing import audit
    from mmmu_eval.auditing.audit_terminal import print_audit
    from mmmu_eval.core.errors import ConfigError

    if args.top < 0 or args.min_models < 1:
        raise ConfigError("--top must be 0 or more and --min-models 1 or more")
    result = audit(args.paths, data=args.data or "hub", format=args.format, min_models=args.min_models,
                   weakest=args.weakest, irt=not args.no_irt)
    console = make_console()
    print_audit(result, console, top=args.top)
    if args.json or args.html:
        from mmmu_eval.auditing.save_audit import save_audit

        save_audit(result, json_file=args.json, html_file=args.html, images_from=args.data)
    if args.json:
        console.print(f"audit written to {args.json}")
    if args.html:
        console.print(f"page written to {args.html}")
    return 0
