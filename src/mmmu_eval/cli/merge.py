"""``mmmu-eval merge``: join the run directories of ``--shard K/N`` runs into one run, then score it.

Shards run anywhere (one per GPU, one per node); copy their run directories to one place and
merge. The merge refuses runs that are not the complete, disjoint shards of one evaluation
(see ``run/merge_shards.py``), so the merged score is the whole benchmark's. Two GPUs, one model each::

    CUDA_VISIBLE_DEVICES=0 mmmu-eval run --model hf:/models/m --shard 1/2 --out runs/m-1 &
    CUDA_VISIBLE_DEVICES=1 mmmu-eval run --model hf:/models/m --shard 2/2 --out runs/m-2 &
    wait && mmmu-eval merge runs/m-1 runs/m-2 --out runs/m

(the same with ``vllm:`` and ``--tensor-parallel-size`` per shard, or one shard per node).

Parse, call ``merge`` (``commands/merge.py``) and ``score_run``, print.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console

from mmmu_eval.cli.flag_defaults import HelpFormatter

EXAMPLES = """examples:
  mmmu-eval run --data sample --split dev --model random --shard 1/2 --out runs/s1
  mmmu-eval run --data sample --split dev --model random --shard 2/2 --out runs/s2
  mmmu-eval merge runs/s1 runs/s2 --out runs/merged
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="join --shard K/N runs into one run (and score it)",
        description="Join the run directories of --shard K/N runs into one run directory, in dataset "
        "order, refusing mismatched protocols, duplicate items and missing shards or items; then score it.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="the shards' run directories")
    parser.add_argument("--out", type=Path, required=True, help="the merged run directory (new or empty)")
    parser.add_argument("--no-score", dest="score", action="store_false",
                        help="only join the responses; score later with `mmmu-eval score OUT --save`")
    parser.set_defaults(func=_merge)


def _merge(args: argparse.Namespace) -> int:
    from mmmu_eval.cli.score import SHOWN_DISAGREEMENTS, print_score
    from mmmu_eval.commands.merge import merge
    from mmmu_eval.commands.score import score_run

    # Joined first and scored after, so that "merged" is said even when the scoring then fails.
    merged = merge(args.runs, args.out, score=False)
    out = merged.run_dir
    print(for_terminal(f"merged {len(args.runs)} shards into {out}"))
    for warning in merged.warnings:
        print(for_terminal(f"warning: {warning}"))
    if not args.score:
        print(for_terminal(f"score it with: mmmu-eval score {out} --save"))
    else:  # as `mmmu-eval score OUT --save` scores and prints it
        print_score(score_run(out, save=True), SHOWN_DISAGREEMENTS)
    if merged.failed:
        # Like `run`: a merged run that still holds failed items is not finished.
        failed = merged.failed
        shown = ", ".join(failed[:5]) + (", ..." if len(failed) > 5 else "")
        make_console(stderr=True).print(
            f"[red]{len(failed)} item(s) failed in the shards and are not scored ({for_rich(shown)}). "
            "Run each shard's command again (it retries them), then merge into a new --out.[/red]",
            soft_wrap=True,
        )
        return 1
    return 0
