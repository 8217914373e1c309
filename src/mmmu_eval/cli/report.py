"""``mmmu-eval report RUN_DIR [RUN_DIR ...]``: tables, results.json, report.html, submission.json.

Parse, call ``report_dirs`` (``commands/report.py``: it writes the files and decides suite or
run, the MMMU-Pro headline and the audited figure), print.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from rich.console import Console

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare
from mmmu_eval.cli.shared_flags import add_bootstrap, add_json, add_published
from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console

if TYPE_CHECKING:
    from mmmu_eval.commands.report import Reports, RunReport

EPILOG = """examples:
  mmmu-eval report runs/sample-random
  mmmu-eval report runs/sample-random --html --no-images
  mmmu-eval report runs/test-gpt4o --answers answer_dict_test.json --submission
  mmmu-eval report runs/pro-std10-cot runs/pro-vision-cot   # also prints the MMMU-Pro headline
  mmmu-eval report suites/gpt-4o      # a suite: suite.json and report.html rebuilt from its runs
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "report",
        help="print a run's results; write report.html, submission.json",
        description=(
            "Print the results of one or more runs: the headline with its 95% interval, the official "
            "MMMU table, the breakdowns and the parse statistics. Uses results.json, or rebuilds it from "
            "the stored responses (and saves it) when it is missing. Given several MMMU-Pro runs it also "
            "prints the MMMU-Pro headline."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories")
    p.add_argument("--html", action="store_true", help="write report.html into each run directory")
    p.add_argument("--no-images", action="store_true", help="with --html: embed no images (a small file)")
    p.add_argument("--image-budget-mb", type=int, default=64, metavar="MB",
                   help="with --html: most MiB of embedded images; wrong answers get theirs first")
    add_published(p, help="with --html: set the page's doctor section against this published figure, in percent "
                          "or a model's name", shows=Phrase("the published row of exactly the run's model name"))
    add_json(p, prints="the results (results.json; of several runs, one object holding them)")
    p.add_argument("--official-table", action="store_true", help="print only the official table, as plain text")
    declare(p.add_argument("--answers", metavar="FILE",
                           help="official answer dict (answer_dict_test.json) to score the test split against"),
            Phrase("the run's"))
    p.add_argument("--submission", action="store_true", help="write submission.json (EvalAI format) for test runs")
    add_bootstrap(p, what="the intervals when results.json is rebuilt")
    declare(p.add_argument("--exclude-suspects", metavar="FILE",
                           help="also print the accuracy with the items an audit flagged set aside (an audit's --json, "
                                "or item ids one per line), beside the official figure, never instead of it"),
            Phrase("none; every item"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.commands.report import report_dirs

    reports = report_dirs(args.runs, html=args.html, images=not args.no_images, image_budget_mb=args.image_budget_mb,
                          submission=args.submission, answers=args.answers, bootstrap=args.bootstrap,
                          bootstrap_seed=args.bootstrap_seed, published=args.published,
                          exclude_suspects=args.exclude_suspects)
    if args.json:
        print_suites(reports, quiet=True)
        for document in reports.to_json():
            print(json.dumps(document, indent=2))
        print_runs(reports, quiet=True, submission=args.submission)
    else:
        print_suites(reports, quiet=False)
        print_runs(reports, quiet=False, official_table=args.official_table, submission=args.submission)
    return 0


def print_suites(reports: Reports, *, quiet: bool) -> None:
    """Each suite's tables (unless ``quiet``: its JSON is printed instead), and what was rewritten."""
    from mmmu_eval.suite.suite_terminal import print_suite

    console, err = make_console(), make_console(stderr=True)
    for suite in reports.suites:
        if not quiet:
            if len(reports.suites) + len(reports.runs) > 1:
                console.rule(for_rich(str(suite.path)))
            print_suite(suite.summary, console)
        err.print(f"rewrote {for_rich(str(suite.path))}/suite.json and report.html")


def print_runs(reports: Reports, *, quiet: bool, official_table: bool = False, submission: bool = False) -> None:
    """Each run's tables (the official table alone with ``official_table``; none when ``quiet``),
    the files written (``submission``: it was asked for), the audited figure, and the MMMU-Pro headline."""
    from mmmu_eval.rendering.run_terminal import official_table_text, print_pro_headline, print_results
    from mmmu_eval.results.harness import summary_lines as harness_lines
    from mmmu_eval.core.manifest import how_it_stopped

    console, err = make_console(), make_console(stderr=True)
    for page in reports.runs:
        one = page.run
        if page.writer is not None:
            err.print(f"[yellow]{for_rich(str(one.path))}: being written by {for_rich(page.writer)}; these are its figures "
                      "as they stand, and nothing was written (report again when it finishes)[/yellow]", soft_wrap=True)
        stopped = how_it_stopped(one.manifest)
        if stopped is not None:
            err.print(f"[yellow]{for_rich(str(one.path))}: {for_rich(stopped)}; these are its figures over the "
                      "answers it stored[/yellow]", soft_wrap=True)
        if page.saved_results is not None:
            err.print(f"rebuilt and saved {for_rich(str(page.saved_results))}")
        if official_table:
            print(for_terminal(official_table_text(one.results)))
        elif not quiet:
            if len(reports.runs) > 1:
                console.rule(for_rich(str(one.path)))
            print_results(one.results, console)
            for line in harness_lines(one.results["harness"]) if one.results.get("harness") else ():
                console.print(for_rich(line), soft_wrap=True)
        if reports.excluding_suspects is not None and not (quiet or official_table):
            figure = reports.excluding_suspects[str(one.path)]
            console.print("[yellow]--exclude-suspects: no gold answers in this run; nothing to set aside[/yellow]"
                          if figure is None else for_rich(figure.line()), soft_wrap=True)
        _written(page, err, submission=submission)
    for note in reports.notes:
        err.print(f"[yellow]{for_rich(note)}[/yellow]", soft_wrap=True)
    if reports.pro_headline is not None and not (quiet or official_table):
        print_pro_headline(reports.pro_headline, console)


def _written(page: RunReport, err: Console, *, submission: bool) -> None:
    """report.html and submission.json, as written (or why no submission was)."""
    if page.html is not None:
        err.print(f"wrote {for_rich(str(page.html))}")
    if page.submission is None and submission and page.writer is None:  # only MMMU test is submitted (results.submission)
        err.print(f"[yellow]{for_rich(str(page.run.path))}: not an MMMU test-split run; no submission.json "
                  "written[/yellow]", soft_wrap=True)
    elif page.submission is not None:
        err.print(f"wrote {for_rich(str(page.submission))} ({page.submitted} predictions"
                  + (f"; {page.left_out} items without one count as wrong on EvalAI)" if page.left_out else ")"))
