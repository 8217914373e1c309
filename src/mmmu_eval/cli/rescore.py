"""``mmmu-eval rescore PATH --format F``: score outputs produced elsewhere, the official way."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mmmu_eval.dataset.subjects import DISCIPLINES
from mmmu_eval.errors import ConfigError, DataError

EPILOG = """examples:
  mmmu-eval rescore ../shared/fidelity/mmmu/qwen_vl --format official-mmmu
  mmmu-eval rescore ../shared/fidelity/mmmu/qwen_vl/total_val_output.json --format official-mmmu-eval-only \\
      --answers ../shared/fidelity/mmmu/answer_dict_val.json
  mmmu-eval rescore "gpt-4o_vision_cot.jsonl" --format official-mmmu-pro --parser official --parser strict --json out.json
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from mmmu_eval.score.judge import PARSERS
    from mmmu_eval.score.rescore import FORMATS

    p = subparsers.add_parser(
        "rescore",
        help="score another harness's outputs in an official file format",
        description=(
            "Score model outputs written in one of the official formats, with the official parsers "
            "reproduced exactly: official-mmmu (a folder of <Subject>/output.json), "
            "official-mmmu-eval-only ({id: prediction} plus --answers) and official-mmmu-pro (JSONL rows "
            "with id, options, answer, response). Malformed rows are reported and scored as the official "
            "code scores them, or wrong where it would crash; they never stop the run. Unparseable "
            "multiple-choice answers get the official seeded random letter (--fallback official, seed 42) "
            "or count wrong (--fallback none); both the official and the deterministic accuracy are printed."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", metavar="PATH", help="the output folder (official-mmmu) or file")
    p.add_argument("--format", required=True, choices=FORMATS, help="the format of PATH")
    p.add_argument("--answers", metavar="FILE", help="official answer dict (answer_dict_val.json); needed by official-mmmu-eval-only")
    p.add_argument("--json", metavar="OUT", help="also write the scores, breakdowns and every item's verdict to OUT")
    p.add_argument("--parser", action="append", choices=PARSERS, metavar="NAME",
                   help=f"parser to apply, repeatable; the first is the headline (default official; one of {', '.join(PARSERS)})")
    p.add_argument("--fallback", choices=("official", "none"), default="official",
                   help="unparseable multiple choice: seeded random letter (official, default) or wrong (none)")
    p.add_argument("--seed", type=int, default=42, help="seed of the random fallback (default 42, the official one)")
    p.add_argument("--show-problems", type=int, default=10, metavar="N", help="print at most N problems (default 10)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.score.rescore import rescore

    if args.show_problems < 0:
        raise ConfigError("--show-problems must be 0 or more")
    result = rescore(
        args.path,
        format=args.format,
        answers=args.answers,
        parsers=tuple(args.parser or ("official",)),
        fallback=args.fallback,
        fallback_seed=args.seed,
    )
    doc = result.to_json()
    for line in summary_lines(doc, pro=args.format == "official-mmmu-pro"):
        print(line)
    problems = doc["problems"]
    if problems:
        print(f"{len(problems)} problem(s):")
        for problem in problems[: args.show_problems]:
            print(f"  {problem}")
        if len(problems) > args.show_problems:
            print(f"  ... {len(problems) - args.show_problems} more (see --json)")
    if args.json:
        out = Path(args.json)
        try:
            out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--json {out}: cannot write ({exc})") from None
        print(f"wrote {out}")
    if not doc["overall"]["total"]:
        # Nothing scored is a failed rescore (a wrong file or format), not an accuracy of 0.
        raise DataError(
            f"{args.path}: no row could be scored ({len(problems)} problem(s)); "
            f"check that it is an {args.format} file (see --help for the formats)"
        )
    return 0


def summary_lines(doc: dict, *, pro: bool) -> list[str]:
    """The printed result: the official table (MMMU) or the official accuracy line (MMMU-Pro), then parse figures."""
    lines: list[str] = []
    overall = doc["overall"]
    if pro:
        lines.append(f"Accuracy: {overall['accuracy'] * 100:.2f}% ({overall['correct']}/{overall['total']})")
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
    total = overall["total"] or 1
    lines.append(
        f"parser {doc['parser']}, fallback {doc['fallback_policy']} (seed {doc['fallback_seed']}): "
        f"{overall['correct']}/{overall['total']} correct; deterministic {doc['deterministic_correct']} "
        f"({doc['deterministic_correct'] / total:.4f}); expected {doc['expected_correct']:.2f} "
        f"({doc['expected_correct'] / total:.4f}); fallbacks {doc['fallbacks']} ({doc['fallbacks'] / total:.2%})"
    )
    for name, row in doc["parsers"].items():
        if name != doc["parser"]:
            lines.append(f"parser {name}: {row['correct']}/{row['total']} correct ({row['accuracy']:.4f})")
    if doc["disagreements"]:
        lines.append(f"{len(doc['disagreements'])} item(s) where the parsers disagree (listed in --json)")
    return lines
