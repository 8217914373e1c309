"""``mmmu-eval rescore PATH``: score another harness's outputs the official way, and explain the gap.

Parse, call ``rescore_outputs`` (``commands/rescore.py``) and its writers, print.
"""

from __future__ import annotations

import argparse
import sys

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare
from mmmu_eval.dataset.subjects import DISCIPLINES
from mmmu_eval.cli.log_flags import add_log_flags, log_to_of
from mmmu_eval.cli.wrap import echo
from mmmu_eval.core.errors import ConfigError

EPILOG = """examples:
  mmmu-eval rescore ../shared/fidelity/mmmu/qwen_vl --format official-mmmu
  mmmu-eval rescore logs/qwen2_vl/20250101_120000_samples_mmmu_val.jsonl --out runs/qwen-lmms-eval
  mmmu-eval rescore outputs/GPT4o/GPT4o_MMMU_DEV_VAL.xlsx --data sample --json scores.json
  mmmu-eval rescore outputs/20250101_120000 --json scores.json          # an EvalScope run
  mmmu-eval rescore results/details/openai/m/2025-01-01T12-00-00/      # lighteval details
  mmmu-eval rescore answers.jsonl --format jsonl --benchmark mmmu-pro --setting vision
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from mmmu_eval.scoring.judge import PARSERS
    from mmmu_eval.harnesses.readers import FORMATS

    p = subparsers.add_parser(
        "rescore",
        help="score another harness's outputs with the official parser and explain the difference",
        description=(
            "Score model outputs written by another harness with the official parsers reproduced exactly, "
            "and set the harness's own verdicts beside ours: lmms-eval (--log_samples logs), vlmevalkit "
            "(prediction .xlsx/.tsv/.json, with its result or detailed-results file), inspect (.eval/.json "
            "logs), verifiers (vf-eval output), evalscope (a run's reviews folder), lighteval (details "
            ".parquet of its MMMU-Pro tasks), jsonl ({\"id\", \"response\"} rows) and the official repository's formats "
            "(official-mmmu, official-mmmu-eval-only, official-mmmu-pro). --format auto (the default) "
            "recognises each. Rows are joined by id to our dataset (--data); rows that match no item are "
            "named. The items where the verdicts differ are listed by cause. --out writes a normal run "
            "directory (report, compare and the HTML report work on it)."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("path", metavar="PATH", help="the harness's output file or folder")
    p.add_argument("--format", default="auto", choices=FORMATS, help="the format of PATH")
    p.add_argument("--data", default="hub", metavar="hub|sample|DIR",
                   help="the dataset the rows are joined to: hub at the pinned revision, sample, or a snapshot")
    declare(p.add_argument("--revision", help="hub revision to join to"), Phrase("the pinned commit"))
    declare(p.add_argument("--benchmark", choices=("mmmu", "mmmu-pro"), help="what PATH holds, when its name and rows do not say"),
            Phrase("as PATH says"))
    declare(p.add_argument("--split", choices=("dev", "validation", "test"),
                           help="MMMU split; also chooses one split of a file that holds two (MMMU_DEV_VAL)"),
            Phrase("as PATH says"))
    declare(p.add_argument("--setting", choices=("standard-10", "standard-4", "vision"),
                           help="MMMU-Pro setting, when PATH does not say"), Phrase("as PATH says"))
    declare(p.add_argument("--answers", metavar="FILE",
                           help="official answer dict (answer_dict_val.json); needed by official-mmmu-eval-only"),
            Phrase("none; the dataset's answers"))
    p.add_argument("--partial", action="store_true",
                   help="exit 0 even when the file covers only part of its split (without it that exits 1, as a run "
                        "with unanswered items does; the accuracy is over the rows the file has either way)")
    declare(p.add_argument("--out", metavar="RUN_DIR", help="also write a run directory (results.json, predictions.jsonl, report.html)"),
            Phrase("none; no run directory"))
    p.add_argument("--no-html", action="store_true", help="with --out: no report.html")
    p.add_argument("--no-images", action="store_true", help="with --out: embed no images in report.html")
    declare(p.add_argument("--json", metavar="OUT",
                           help="also write the scores, breakdowns, the harness and every item's verdict to OUT"),
            Phrase("none; no JSON file"))
    declare(p.add_argument("--parser", action="append", choices=PARSERS, metavar="NAME",
                           help=f"parser to apply, repeatable; the first is the headline (one of {', '.join(PARSERS)})"),
            Phrase("as the file's own prompt asks: boxed then official where it asks for \\boxed{}, else official"))
    p.add_argument("--fallback", choices=("official", "none"), default="official",
                   help="unparseable multiple choice: seeded random letter (official) or wrong (none)")
    declare(p.add_argument("--seed", type=int, default=42, help="seed of the random fallback"), Phrase("42, the official one"))
    p.add_argument("--show-problems", type=int, default=10, metavar="N", help="print at most N problems")
    p.add_argument("--show-differences", type=int, default=20, metavar="N",
                   help="print at most N items where the verdicts differ")
    add_log_flags(p, what="the rescored run", needs=", with --out")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.results.harness import summary_lines as harness_lines
    from mmmu_eval.commands.rescore import logging_needs_out, require_scored, rescore_outputs, write_rescore_json
    from mmmu_eval.harnesses.write import write_rescored_run
    from mmmu_eval.tracking import log_run

    if args.show_problems < 0 or args.show_differences < 0:
        raise ConfigError("--show-problems and --show-differences must be 0 or more")
    log_to = logging_needs_out(log_to_of(args), args.out)  # before the file is read
    # Read and scored first (a view), then written: what was read is printed even when nothing scored.
    found = rescore_outputs(
        args.path, format=args.format, answers=args.answers, data=args.data, revision=args.revision,
        benchmark=args.benchmark, split=args.split, setting=args.setting,
        parsers=args.parser, fallback=args.fallback, seed=args.seed,
    )
    result, doc = found.rescore, found.document
    if result.detected:
        echo(f"format: {result.format} (recognised: {result.detected})")
    if result.dataset is not None:
        echo(f"joined {len(result.items)} row(s) to {result.dataset!r}"
              + (f"; {len(result.unjoined)} row(s) matched no item" if result.unjoined else "")
              + (f"; {len(result.missing)} of its {result.expected} item(s) have no row" if result.missing else ""))
    for note in doc["notes"]:
        echo(f"note: {note}")
    if found.accuracy is None:  # the refusal below says how many problems: these are they
        _listed("problem(s)", doc["problems"], args.show_problems, more="--show-problems N")
        _listed("row(s) that matched no item", doc["unjoined"], args.show_problems, more="--show-problems N")
    require_scored(found)
    for line in summary_lines(doc, pro=result.items[0].benchmark == "mmmu-pro",
                              ci95=None if found.ci95 is None else list(found.ci95)):
        echo(line)
    for line in failure_lines(doc, official=result.dataset is None):
        echo(line)
    for warning in doc["warnings"]:
        echo(f"WARNING: {warning}")
    if doc["harness"] is not None:
        for line in harness_lines(doc["harness"], show=args.show_differences):
            echo(line)
    _listed("problem(s)", doc["problems"], args.show_problems)
    _listed("row(s) that matched no item", doc["unjoined"], args.show_problems)
    if args.json:
        echo(f"wrote {write_rescore_json(found, args.json)}")
    if args.out:
        written = write_rescored_run(result, args.out, html=not args.no_html, images=not args.no_images)
        if written.stored_as_errors:
            echo(f"{len(written.stored_as_errors)} response(s) that are not text are stored as errors in "
                  f"{written.run_dir} and not scored there (e.g. {written.stored_as_errors[0]})")
        echo(f"wrote {written.run_dir} (mmmu-eval report {written.run_dir} --html; mmmu-eval compare RUN {written.run_dir})")
        log_run(log_to, written.run_dir, kind="rescore")
    if found.unanswered and not args.partial:
        echo(f"{found.unanswered} of the {doc['coverage']['expected']} item(s) have no scored answer "
              f"({doc['coverage']['missing']} without a row, {len(doc['errors'])} failed in the harness): exit status 1 "
              "(pass --partial to accept a partial file)", file=sys.stderr)
        return 1
    return 0


def failure_lines(doc: dict, *, official: bool) -> list[str]:
    """One line per named failure (``harness_error``, ``empty``): how many rows, how scored, an example."""
    from mmmu_eval.scoring.harness_verdicts import FAILURES

    lines = []
    for cause, entry in (doc.get("failures") or {}).items():
        if not entry["count"]:
            continue
        first_id, message = next(iter(entry["items"].items()))
        scored = ("scored as the official code scored them (a random letter, or wrong where it would crash)"
                  if official else ("not scored" if cause == "harness_error" else "scored as unparsed answers"))
        lines.append(f"{cause}: {entry['count']} row(s) where {FAILURES[cause]}; {scored} "
                     f"(e.g. {first_id}: {message})")
    return lines


def _listed(what: str, entries: list[str], show: int, *, more: str = "see --json") -> None:
    if not entries:
        return
    echo(f"{len(entries)} {what}:")
    for entry in entries[:show]:
        echo(f"  {entry}")
    if len(entries) > show:
        echo(f"  ... {len(entries) - show} more ({more})")


def summary_lines(doc: dict, *, pro: bool, ci95: list[float] | None = None) -> list[str]:
    """The printed result: the official table (MMMU) or the official accuracy line (MMMU-Pro), then parse figures.

    The official lines print as the official scripts print them (the binary float formatted);
    our own figures after them round as every table of ours does (``core.numbers``).
    """
    from mmmu_eval.core.numbers import interval as interval_of, pct

    lines: list[str] = []
    overall = doc["overall"]
    coverage = doc.get("coverage") or {}
    partial = (f"PARTIAL: {coverage['missing']} of the {coverage['expected']} item(s) have no row; "
               f"the accuracy is over the {coverage['rows']} scored") if coverage.get("missing") else ""
    if pro:
        named = "" if doc["parser"] == "official" else f" by the {doc['parser']} parser"
        lines.append(f"Accuracy: {overall['accuracy'] * 100:.2f}% ({overall['correct']}/{overall['total']}){named}"
                     + (f"  {partial}" if partial else ""))
    else:
        lines.append(f"{'Subject':<40} {'Data Num':>8} {'Acc':>6}")
        known = {s for subjects in DISCIPLINES.values() for s in subjects}
        for discipline, row in doc["by_discipline"].items():
            lines.append(f"{'Overall-' + discipline:<40} {row['total']:>8} {row['accuracy']:>6.3f}")
            members = DISCIPLINES.get(discipline) or tuple(s for s in doc["by_subject"] if s not in known)
            for subject in (s for s in members if s in doc["by_subject"]):
                sub = doc["by_subject"][subject]
                lines.append(f"{subject:<40} {sub['total']:>8} {sub['accuracy']:>6.3f}")
        lines.append(f"{'Overall':<40} {overall['total']:>8} {overall['accuracy']:>6.3f}")
        if partial:
            lines.append(partial)
    total = overall["total"] or 1
    interval = f" (95% CI {interval_of(ci95, 4, as_is=True)})" if ci95 else ""
    lines.append(
        f"parser {doc['parser']}, fallback {doc['fallback_policy']} (seed {doc['fallback_seed']}): "
        f"{overall['correct']}/{overall['total']} correct = {overall['accuracy']:.4f}{interval}; deterministic "
        f"{doc['deterministic_correct']} ({doc['deterministic_correct'] / total:.4f}); expected "
        f"{doc['expected_correct']:.2f} ({doc['expected_correct'] / total:.4f}); fallbacks {doc['fallbacks']} "
        f"({pct(doc['fallbacks'] / total, 2)}%)"
    )
    if doc.get("errors"):
        lines.append(f"{len(doc['errors'])} failed request(s) the harness recorded: not scored (e.g. {doc['errors'][0]})")
    for name, row in doc["parsers"].items():
        if name != doc["parser"]:
            lines.append(f"parser {name}: {row['correct']}/{row['total']} correct ({row['accuracy']:.4f})")
    if doc["disagreements"]:
        lines.append(f"{len(doc['disagreements'])} item(s) where the parsers disagree (listed in --json)")
    return lines
