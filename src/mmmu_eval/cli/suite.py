"""``mmmu-eval suite``: the MMMU-Pro study in one command (flags -> ``evaluate_suite`` -> Table 1).

Every generation, selection and scoring flag of ``run`` applies to each run (the same flags,
built from RunConfig by ``cli.run.add_run_flags``); the suite's own flags choose the runs. The
same command again continues every run where it stopped.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


from mmmu_eval.cli.log_flags import add_log_flags, log_to_of
from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare, run_default
from mmmu_eval.cli.run import add_rank_timeout, add_run_flags, config_overrides
from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console

EXAMPLES = """examples:
  mmmu-eval suite --model frequent --data sample --out suites/frequent-sample
  mmmu-eval suite --model openai:Qwen/Qwen2.5-VL-7B-Instruct --base-url http://localhost:8000/v1 --max-tokens 4096
  mmmu-eval suite --model openai:gpt-4o --settings vision --prompts direct --ocr --no-mmmu --limit 100
"""

#: RunConfig fields a suite decides per run (or gives its own flag).
_PER_RUN = frozenset({"benchmark", "split", "setting", "prompt", "out", "resume", "answers", "data", "revision"})


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "suite",
        help="the MMMU-Pro study: every setting with direct and CoT, MMMU validation, Table 1",
        description=(
            "Run the MMMU-Pro paper's study for one model: standard-4, standard-10 and vision, each with the "
            "direct and CoT prompts, plus MMMU validation (7 ordinary run directories under --out), then write "
            "suite.json and report.html: the Table 1 row with 95% intervals, the CoT and OCR effects with paired "
            "tests, and the section 3.5 flips. The runs of an API model ask at the same time and share one pool "
            "of --concurrency requests in flight per endpoint. The same command again continues every run."
        ),
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    declare(parser.add_argument("--out", type=Path, metavar="SUITE_DIR",
                                help="suite directory; the same command continues it"),
            Phrase("suites/<model>[-<data>]"))
    declare(parser.add_argument("--settings", type=_names, metavar="LIST", help="MMMU-Pro settings, comma-separated"),
            lambda: _suite_default("settings"))
    declare(parser.add_argument("--prompts", type=_names, metavar="LIST",
                                help="prompt modes per setting, comma-separated; Table 1 takes the better"),
            lambda: _suite_default("prompts"))
    parser.add_argument("--ocr", action="store_true", default=None,
                        help="also run vision with the OCR prompt (section 3.3; not in the official code)")
    parser.add_argument("--no-mmmu", dest="mmmu", action="store_false", default=None,
                        help="leave out the MMMU validation run (Table 1's MMMU (Val) and Δ3)")
    declare(parser.add_argument("--data", metavar="DATA", help="MMMU-Pro data: hub, sample (bundled) or a snapshot directory"),
            run_default("data"))
    declare(parser.add_argument("--revision", metavar="REVISION", help="MMMU-Pro hub revision"), run_default("revision"))
    declare(parser.add_argument("--mmmu-data", metavar="DATA", help="MMMU data: hub, sample or a snapshot directory"),
            Phrase("as --data when that is hub or sample, or a snapshot holding an MMMU folder"))
    declare(parser.add_argument("--mmmu-revision", metavar="REVISION", help="MMMU hub revision"), run_default("revision"))
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="bootstrap resamples of the study's intervals")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what each run would send (requests, images, bytes, a prompt-token estimate) and the "
                             "totals, then exit; no backend is created or called, nothing is written")
    parser.add_argument("--json", action="store_true", help="print suite.json (with --dry-run: the plans) to stdout instead of tables")
    add_run_flags(parser, skip=_PER_RUN)
    add_rank_timeout(parser)
    add_log_flags(parser, what="the suite")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from mmmu_eval.core.errors import ConfigError
    from mmmu_eval.run.distributed import Launch
    from mmmu_eval.suite.execute import SUITE_FILE, SuiteInterrupted, evaluate_suite
    from mmmu_eval.suite.suite_ranks import evaluate_suite_ranks
    from mmmu_eval.suite.suite_terminal import print_suite

    if args.bootstrap < 0:
        raise ConfigError("--bootstrap must be 0 or more")
    log_to = log_to_of(args)
    overrides = config_overrides(args)
    for name in ("out", "settings", "prompts", "ocr", "mmmu", "data", "revision", "mmmu_data", "mmmu_revision"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    console = make_console()
    err = make_console(stderr=True)
    if args.dry_run:
        if log_to is not None:
            raise ConfigError("--log-to logs a finished suite; --dry-run runs nothing (drop one of them)")
        return dry_run(overrides, as_json=args.json)
    launch = Launch.from_env()
    try:
        if launch is None:
            result = evaluate_suite(**overrides, bootstrap=args.bootstrap, log_to=log_to)
        else:  # one rank of torchrun / accelerate launch: rank 0 gets the merged suite, the others None
            result = evaluate_suite_ranks(overrides, launch, bootstrap=args.bootstrap, timeout=args.rank_timeout,
                                          log_to=log_to)
            if result is None:
                return 0
    except SuiteInterrupted as exc:
        err.print(f"[yellow]{for_rich(str(exc))}[/yellow]", soft_wrap=True)
        return 130
    if args.json:
        print(json.dumps(result.summary, indent=2))
    else:
        print_suite(result.summary, console)
        console.print(f"suite directory: {for_rich(str(result.suite_dir))} ({SUITE_FILE}, report.html)", soft_wrap=True)
    message = result.message()
    if message:
        err.print(f"[red]{for_rich(message)}[/red]", soft_wrap=True)
    return result.exit_status


def dry_run(overrides: dict, *, as_json: bool) -> int:
    """Print each run's plan and the suite's totals; 0, or 1 when a run would be refused."""
    from mmmu_eval.run.dry_run import wrap_line
    from mmmu_eval.suite.suite_config import plan_suite, plan_totals

    plans = plan_suite(**overrides)
    totals = plan_totals(plans)
    if as_json:
        print(json.dumps({"runs": [p.to_json() for p in plans], "totals": totals}, indent=2))
    else:
        width = shutil.get_terminal_size().columns
        for plan in plans:
            print(for_terminal(plan.text(width)) + "\n")
        usd = totals["estimated_input_usd"]
        sent = totals["sent_bytes"]
        size = (f"{sent / 1e6:.2f} MB sent ({sent:,} B: requests and {totals['preflight_probes']} preflight probe(s) "
                f"as JSON, images in base64; raw {totals['request_bytes'] / 1e6:.2f} MB)"
                if sent is not None else f"{totals['request_bytes'] / 1e6:.2f} MB")
        print(wrap_line(f"suite: {totals['runs']} runs, {totals['requests']} requests ({totals['already_answered']} items already "
              f"answered), {totals['images']} images, {size}, about "
              f"{totals['estimated_prompt_tokens']:,} prompt tokens of text"
              + (f", at least ${usd:.4f} for the prompt text" if usd is not None else "")
              + (f"; {len(totals['refused'])} run(s) would be refused" if totals["refused"] else ""), width, indent=7))
    return 1 if totals["refused"] else 0


def _names(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


def _suite_default(name: str) -> object:
    """SuiteConfig's default of ``name`` (read when help is printed)."""
    from dataclasses import fields

    from mmmu_eval.suite.suite_config import SuiteConfig

    return next(f.default for f in fields(SuiteConfig) if f.name == name)
