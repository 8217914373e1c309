"""``mmmu-eval score RUN_DIR``: a run's figures under the parsers asked for, side by side.

Parse, call ``score_run`` (``commands/score.py``), print. A view: it prints and writes nothing.
The figures a run is remembered by (results.json, the manifest's scoring record, the report
and ``compare``) change only with ``--save``, which says what it replaces. Before, ``score --parser strict`` quietly became the run's scoring, and
``report`` then printed 2.5% for a run whose official figure was 17.5%.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.untrusted import LINE_CHARACTERS, capped_or_none

if TYPE_CHECKING:
    from mmmu_eval.commands.score import RunScore

#: Disagreeing items printed by default (``--show-disagreements``; ``merge`` prints as many).
SHOWN_DISAGREEMENTS = 20

EPILOG = """examples:
  mmmu-eval score runs/sample-random
  mmmu-eval score runs/pro-vision-cot --parser official --parser boxed --parser strict
  mmmu-eval score runs/sample-random --fallback none --show-disagreements 50
  mmmu-eval score runs/test-gpt4o --answers answer_dict_test.json --save
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from mmmu_eval.scoring.judge import PARSERS
    from mmmu_eval.scoring.scorer import FALLBACK_POLICIES

    p = subparsers.add_parser(
        "score",
        help="score a run's stored responses (several parsers side by side)",
        description=(
            "Score the responses stored in a run directory against the run's items, with the official "
            "parsers (and optionally others). Prints each parser's score, the fallback figures (official, "
            "deterministic and expected accuracy) and the items on which the parsers disagree. Writes "
            "nothing unless --save: then this scoring becomes the run's (manifest.json), and "
            "predictions.jsonl and results.json are written again; it says what it replaces."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    declare(p.add_argument("--parser", action="append", choices=PARSERS, metavar="NAME",
                           help=f"parser to apply, repeatable; the first is the headline (one of {', '.join(PARSERS)})"),
            Phrase("the run's: official, or boxed then official for a run asked with --prompt boxed"))
    declare(p.add_argument("--fallback", choices=FALLBACK_POLICIES, default=None,
                           help="unparseable multiple choice: seeded random letter (official) or wrong (none)"),
            Phrase("the run's"))
    declare(p.add_argument("--seed", type=int, default=None, help="seed of the random fallback"),
            Phrase("the run's fallback_seed, else 42"))
    declare(p.add_argument("--answers", metavar="FILE", help="official answer dict to score a test-split run against"),
            Phrase("the run's"))
    p.add_argument("--save", action="store_true",
                   help=("make this the run's scoring: record it in manifest.json and rewrite predictions.jsonl and "
                         "results.json (report and compare then follow it); without it nothing is written"))
    p.add_argument("--show-disagreements", type=int, default=SHOWN_DISAGREEMENTS, metavar="N",
                   help="print at most N disagreeing items")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples of the intervals")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mmmu_eval.commands.score import score_run

    if args.show_disagreements < 0:
        raise ConfigError("--show-disagreements must be 0 or more")
    scored = score_run(args.run_dir, parsers=args.parser, fallback=args.fallback, seed=args.seed,
                       answers=args.answers, bootstrap=args.bootstrap, save=args.save)
    print_score(scored, args.show_disagreements)
    return 0


def print_score(scored: RunScore, show: int) -> None:
    """What ``score`` prints: the scoring, the figures, and (saved) what was replaced and written."""
    from mmmu_eval.cli.wrap import echo

    spec, recorded = scored.spec, scored.recorded
    echo(f"scoring: {spec.describe()}" + ("" if spec == recorded else f" (the run's own: {recorded.describe()})"))
    for line in summary_lines(scored.scoring, len(scored.items), show, results=scored.results):
        echo(line)
    if scored.saved_scoring is None:
        if spec != recorded:
            echo("a view: nothing written; the run's figures stay as they were (--save makes this its scoring)")
        return
    if scored.replaced is not None:
        echo(f"replacing results.json: {replaced_text(scored.replaced)}")
    if scored.saved_scoring.recorded:
        echo(f"the run's scoring is now: {spec.describe()} (was: {recorded.describe()}; recorded in "
             "manifest.json; report and compare follow it)")
    for path in scored.saved_scoring.written:
        echo(f"wrote {path}")


def replaced_text(before) -> str:
    """What the results.json that ``--save`` replaced said: its parser and headline."""
    from mmmu_eval.results.caveats import NO_SCORE, void, void_reason
    from mmmu_eval.core.numbers import pct

    parse = before.get("parse") or {}
    figure = f"{NO_SCORE} ({void_reason(before)})" if void(before) else f"{pct(before['overall']['accuracy'])}%"
    return f"it said {figure} (parser {parse.get('parser', '?')}, fallback {parse.get('fallback_policy', '?')})"


def summary_lines(scoring, n_items: int, show: int, *, results=None) -> list[str]:
    """Per-parser scores, the fallback figures, coverage, and the first ``show`` disagreements.

    With ``results`` (``build_results`` of the same scoring) the lines also say the scope, warn
    when the random fallback drew many of the answers, and name a run without gold answers void.
    """
    from mmmu_eval.results.caveats import NO_SCORE, fallback_warning, how_to_score, void_reason
    from mmmu_eval.core.numbers import pct
    from mmmu_eval.results.scope import scope_of_results

    headline = scoring.parsers[0]
    graded = scoring.aggregates[headline].overall.n
    lines = []
    if results is not None:
        lines.append(f"scope: {scope_of_results(results).text}")
    if graded:
        lines.append(f"{'parser':<10} {'correct':>8} {'total':>6} {'accuracy':>9} {'fallbacks':>9}")
        for name in scoring.parsers:
            tally = scoring.aggregates[name].overall
            fallbacks = sum(1 for v in scoring.verdicts[name].values() if v.fallback)
            lines.append(f"{name:<10} {tally.correct:>8} {tally.n:>6} {pct(tally.accuracy, 2) + '%':>9} {fallbacks:>9}")
        lines.append(
            f"{headline}: {pct(scoring.aggregates[headline].overall.accuracy, 2)}% with fallback "
            f"{scoring.fallback_policy} (seed {scoring.fallback_seed}); {pct(scoring.deterministic_correct / graded, 2)}% "
            f"with fallbacks counted wrong; {pct(scoring.expected_correct / graded, 2)}% at their expected value; "
            f"fallbacks {scoring.fallbacks} ({pct(scoring.fallbacks / graded, 2)}%)"
        )
        warning = fallback_warning(results) if results is not None else None
        if warning:
            lines.append(f"WARNING: {warning}")
    if scoring.ungraded:
        judged = scoring.verdicts[headline]
        guessed = sum(1 for i in scoring.ungraded if judged[i].fallback)
        where = results if results is not None else {"benchmark": scoring.benchmark}
        lines.append(f"no gold answers for {len(scoring.ungraded)} predictions ({guessed} of them unparsed): no "
                     f"accuracy; {how_to_score(where)} (`mmmu-eval report --submission` writes it)")
    if not graded and not scoring.ungraded:  # every request failed or was never answered: no figure, not 0%
        reason = void_reason(results) if results is not None else None
        lines.append(f"{NO_SCORE}: " + (reason or f"no item could be scored: {len(scoring.errors)} failed, see responses.jsonl"))
    lines.append(f"items {n_items}: scored {graded}, errors {len(scoring.errors)}, missing {len(scoring.missing)}")
    if scoring.problems:
        lines.append(f"{len(scoring.problems)} item(s) the official code would crash on (scored wrong), e.g. {scoring.problems[0]}")
    if len(scoring.parsers) > 1:
        lines.append(f"{len(scoring.disagreements)} item(s) where the parsers disagree")
        for entry in scoring.disagreements[:show]:
            preds = ", ".join(f"{p}={capped_or_none(entry['preds'][p], LINE_CHARACTERS)!r}{'+' if entry['correct'][p] else '-'}"
                              for p in scoring.parsers)
            lines.append(f"  {entry['id']}: {preds}")
        if len(scoring.disagreements) > show:
            lines.append(f"  ... {len(scoring.disagreements) - show} more")
    return lines
