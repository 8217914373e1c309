"""``mmmu-eval doctor RUN [--published VALUE | MODEL] [--json FILE]``: why the figure may differ from a published one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase
from mmmu_eval.cli.shared_flags import add_json_file, add_published

EPILOG = """examples:
  mmmu-eval doctor runs/qwen-val
  mmmu-eval doctor runs/qwen-val --published 58.6
  mmmu-eval doctor runs/pro-std10-cot --published "GPT-4o (0513)" --json doctor.json
  mmmu-eval doctor suites/gpt-4o --published "GPT-4o (0513)"   # a suite: each run and the Table 1 row
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="list what in a run could move its figure, against a published one",
        description=(
            "List the causes in a run that could move its figure (truncated answers, unparsed answers, "
            "sampling settings, prompt and images, errors and coverage, and for rescored runs the "
            "harness's judge and parser), each with its items and the most points it can account for, "
            "largest first. Every figure is a count from the run. With --published, say whether that "
            "value lies inside the run's 95% interval and which causes together could cover the gap."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("run", metavar="RUN", help="a run directory, a rescore --out directory, or a suite directory")
    add_published(p, help="a published accuracy in percent (58.6), or a model name from the published results shipped",
                  shows=Phrase("none; the run alone"))
    add_json_file(p, writes="the diagnosis (docs/doctor.md)", dest="json_file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.commands.diagnose import diagnose

    from mmmu_eval.cli.wrap import echo

    diagnosis = diagnose(args.run, published=args.published)
    stopped = _how_it_stopped(args.run)
    if stopped is not None:  # its figure is over the answers it stored before the exception
        echo(f"{args.run}: {stopped}", file=sys.stderr)
    for line in diagnosis.lines():
        echo(line)  # folded between words at the terminal's width, never mid-word
    if args.json_file:
        from mmmu_eval.doctor.save_diagnosis import save_diagnosis

        save_diagnosis(diagnosis, args.json_file)
        echo(f"wrote {args.json_file}")
    return 0


def _how_it_stopped(run_dir: str) -> str | None:
    """The sentence of a run an exception ended (``core.manifest.how_it_stopped``); None for a
    suite directory and any other run."""
    from mmmu_eval.core.manifest import MANIFEST, how_it_stopped
    from mmmu_eval.results.finished_run import read_run

    if not (Path(run_dir) / MANIFEST).is_file():
        return None
    return how_it_stopped(read_run(run_dir, rebuild=False).manifest)
