"""``mmmu-eval report RUN_DIR [RUN_DIR ...]``: tables, results.json, report.html, submission.json.

Parse, call ``report_run`` per run (``commands/report.py``: it writes the files), print.
"""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console

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
    declare(p.add_argument("--published", metavar="VALUE_OR_MODEL",
                           help="with --html: set the page's doctor section against this published figure, in percent "
                                "or a model's name"),
            Phrase("the published row of exactly the run's model name"))
    p.add_argument("--json", action="store_true", help="print results.json to stdout instead of tables")
    p.add_argument("--official-table", action="store_true", help="print only the official table, as plain text")
    declare(p.add_argument("--answers", metavar="FILE",
                           help="official answer dict (answer_dict_test.json) to score the test split against"),
            Phrase("the run's"))
    p.add_argument("--submission", action="store_true", help="write submission.json (EvalAI format) for test runs")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples when rebuilding")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed when rebuilding")
    declare(p.add_argument("--exclude-suspects", metavar="FILE",
                           help="also print the accuracy with the items an audit flagged set aside (an audit's --json, "
                                "or item ids one per line), beside the official figure, never instead of it"),
            Phrase("none; every item"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.results.harness import summary_lines as harness_lines
    from mmmu_eval.rendering.run_terminal import official_table_text, print_pro_headline, print_results
    from mmmu_eval.commands.report import report_run
    from mmmu_eval.scoring.answers import load_answer_dict
    from mmmu_eval.results.finished_run import read_run
    from mmmu_eval.core.manifest import how_it_stopped

    if args.image_budget_mb < 0:
        raise ConfigError("--image-budget-mb must be 0 or more")
    console = make_console()
    err = make_console(stderr=True)
    suites = [path for path in args.runs if _is_suite(path)]
    if suites:
        _suite_reports(suites, args, console, err)
        args.runs = [path for path in args.runs if path not in suites]
        if not args.runs:
            return 0
    for path in args.runs:  # every directory checked before the first report is printed
        read_run(path, rebuild=False)
    answers = load_answer_dict(args.answers) if args.answers else None
    aside = None
    if args.exclude_suspects:
        from mmmu_eval.auditing.exclude import read_set_aside

        aside = read_set_aside(args.exclude_suspects)
    audited: dict = {}
    loaded = []
    for path in args.runs:
        # The files (a rebuilt results.json, report.html, submission.json) are written by
        # report_run through run/outputs.py, under its one rule for results.json.
        page = report_run(path, html=args.html, images=not args.no_images, image_budget_mb=args.image_budget_mb,
                          submission=args.submission, answers=answers, bootstrap=args.bootstrap, seed=args.seed,
                          published=args.published)
        one = page.run
        loaded.append(one)
        if page.writer is not None:
            err.print(f"[yellow]{for_rich(str(one.path))}: being written by {for_rich(page.writer)}; these are its figures "
                      "as they stand, and nothing was written (report again when it finishes)[/yellow]", soft_wrap=True)
        stopped = how_it_stopped(one.manifest)
        if stopped is not None:
            err.print(f"[yellow]{for_rich(str(one.path))}: {for_rich(stopped)}; these are its figures over the "
                      "answers it stored[/yellow]", soft_wrap=True)
        if page.saved_results is not None:
            err.print(f"rebuilt and saved {for_rich(str(page.saved_results))}")
        if args.official_table:
            print(for_terminal(official_table_text(one.results)))
        elif not args.json:  # JSON is printed once, after the loop
            if len(args.runs) > 1:
                console.rule(for_rich(str(one.path)))
            print_results(one.results, console)
            if one.results.get("harness"):
                for line in harness_lines(one.results["harness"]):
                    console.print(for_rich(line), soft_wrap=True)
        if aside is not None:
            audited[str(one.path)] = _excluding(one.results, aside, console, quiet=args.json or args.official_table)
        if page.html is not None:
            err.print(f"wrote {for_rich(str(page.html))}")
        if args.submission and page.writer is None:
            if page.submission is None:  # only MMMU test is submitted (results.submission)
                err.print(f"[yellow]{for_rich(str(one.path))}: not an MMMU test-split run; no submission.json written[/yellow]", soft_wrap=True)
            else:
                err.print(f"wrote {for_rich(str(page.submission))} ({page.submitted} predictions"
                          + (f"; {page.left_out} items without one count as wrong on EvalAI)" if page.left_out else ")"))
    headline = _pro_headline(loaded, err)
    if args.json:
        if aside is not None:  # the official results as they are, the audited figure beside them
            doc = {"runs": {str(r.path): r.results for r in loaded}, "excluding_suspects": audited}
            if headline is not None:
                doc["mmmu_pro_headline"] = headline
            print(json.dumps(doc, indent=2))
        elif len(loaded) == 1:
            print(json.dumps(loaded[0].results, indent=2))
        else:
            doc: dict = {"runs": {str(r.path): r.results for r in loaded}}
            if headline is not None:
                doc["mmmu_pro_headline"] = headline
            print(json.dumps(doc, indent=2))
    elif headline is not None and not args.official_table:
        print_pro_headline(headline, console)
    return 0


def _excluding(results: dict, aside, console: Console, *, quiet: bool) -> dict | None:
    """Print (unless ``quiet``) and return the run's figure with the suspects set aside."""
    from mmmu_eval.auditing.exclude import excluding

    figure = excluding(results, aside)
    if figure is None:
        if not quiet:
            console.print("[yellow]--exclude-suspects: no gold answers in this run; nothing to set aside[/yellow]")
        return None
    if not quiet:
        console.print(for_rich(figure.line()), soft_wrap=True)
    return figure.to_json()


def _is_suite(path: str) -> bool:
    from pathlib import Path

    from mmmu_eval.suite.execute import SUITE_FILE
    from mmmu_eval.store.rundir import MANIFEST

    return (Path(path) / SUITE_FILE).is_file() and not (Path(path) / MANIFEST).exists()


def _suite_reports(suites: list[str], args: argparse.Namespace, console: Console, err: Console) -> None:
    """A suite directory: suite.json and report.html rebuilt from its runs, then its tables."""
    from mmmu_eval.suite.execute import summarize_suite
    from mmmu_eval.suite.suite_terminal import print_suite

    for path in suites:
        summary = summarize_suite(path, resamples=args.bootstrap, seed=args.seed)
        if args.json:
            print(json.dumps(summary, indent=2))
        else:
            if len(args.runs) > 1:
                console.rule(for_rich(str(path)))
            print_suite(summary, console)
        err.print(f"rewrote {for_rich(str(path))}/suite.json and report.html")


def _pro_headline(loaded: list, err: Console) -> dict | None:
    """The MMMU-Pro headline over several MMMU-Pro runs (direct/cot only), or None."""
    from mmmu_eval.results.caveats import NO_SCORE, void, void_reason
    from mmmu_eval.scoring.headline import pro_headline

    pro = [r for r in loaded if r.results["benchmark"] == "mmmu-pro"]
    if len(pro) < 2:
        return None
    by_run: dict[tuple[str, str], float] = {}
    for r in pro:
        mode = str(r.results["run"]["prompt_mode"] or "direct")
        if mode not in ("direct", "cot"):
            err.print(f"[yellow]{for_rich(str(r.path))}: prompt mode {for_rich(mode)} is not part of the MMMU-Pro headline[/yellow]")
            continue
        if void(r.results):
            err.print(f"[yellow]{for_rich(str(r.path))}: {NO_SCORE} ({for_rich(str(void_reason(r.results)))}); "
                      "not part of the MMMU-Pro headline[/yellow]")
            continue
        key = (str(r.results["setting"]), mode)
        if key in by_run:
            err.print(f"[yellow]two runs of {key[0]} {key[1]}; using {for_rich(str(r.path))}[/yellow]")
        by_run[key] = r.results["overall"]["accuracy"]
    return pro_headline(by_run) if by_run else None
