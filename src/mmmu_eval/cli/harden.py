"""``mmmu-eval harden filter|augment|render|all``: the MMMU-Pro construction method on any set.

Flags -> the ``mmmu_eval.harden`` API call -> the step table and what was left out. Each step
reads ``--data`` (``sample``, ``hub``, a directory, or a ``.jsonl`` file) and writes ``--out``;
a later step takes an earlier step's ``--out`` as its ``--data`` (or the same directory for
both, to extend it). Running the same command again resumes the step.
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any


from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare, run_default
from mmmu_eval.cli.run import _json_object, add_rank_timeout
from mmmu_eval.cli.shared_flags import add_data, add_draw_seed, add_limit, add_split, add_subjects
from mmmu_eval.core.config import help_of
from mmmu_eval.core.untrusted import for_rich, make_console

if TYPE_CHECKING:
    from mmmu_eval.harden.step_settings import FilterSettings, RenderSettings, SourceSettings

EXAMPLES = """examples:
  mmmu-eval harden filter --data sample --out hard --models frequent,frequent,frequent,random --trials 4
  mmmu-eval harden augment --data hard --out hard --model openai:gpt-4o
  mmmu-eval harden render --data hard --out hard
  mmmu-eval harden all --data mmmu-data --out hard --models openai:a,openai:b,openai:c,openai:d --augment-model openai:gpt-4o
  mmmu-eval run --benchmark mmmu-pro --setting vision --data hard --model random
"""

STEPS = {
    "filter": "drop questions text-only models answer, sample per subject -> standard (4 options)",
    "augment": "LLM-proposed distractors, checked, shuffled, reviewed -> standard (10 options)",
    "render": "each question as one screenshot in headless Chromium -> vision",
    "all": "filter, augment and render into one directory, with one report",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "harden", help="build an MMMU-Pro-style robust set from any multiple-choice set",
        description="The MMMU-Pro construction method (filter, augment, render) on any multiple-choice set.",
        epilog=EXAMPLES, formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="harden_step", metavar="STEP")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])
    for step, summary in STEPS.items():
        p = sub.add_parser(step, help=summary, description=summary, epilog=EXAMPLES, formatter_class=HelpFormatter)
        _input_flags(p)
        if step in ("filter", "all"):
            _filter_flags(p)
        if step == "filter":
            add_rank_timeout(p)
        if step in ("augment", "all"):
            _augment_flags(p, all_steps=step == "all")
        if step in ("render", "all"):
            _render_flags(p)
        if step != "render":
            _model_flags(p)
        p.set_defaults(func=main, harden_step=step)


def _input_flags(p: argparse.ArgumentParser) -> None:
    add_data(p, required=True, metavar="DATA",
             help="sample, hub, a directory (MMMU or MMMU-Pro layout, or an earlier step's --out), or a .jsonl file")
    p.add_argument("--out", required=True, help="the output directory (the same as --data extends a harden output)")
    add_split(p, help="MMMU split to read from sample, hub or an MMMU directory")
    add_subjects(p, help="keep only these subjects")
    declare(add_limit(p, help="keep the first N usable questions (to try a setting out)"), Phrase("every question"))
    declare(p.add_argument("--subject", dest="default_subject", metavar="SUBJECT", help="subject of JSONL rows that name none"),
            Phrase("none; a row without one is refused"))
    add_draw_seed(p, help="seeds every draw: trial seeds, the sample, shuffles, page styles")


def _model_flags(p: argparse.ArgumentParser) -> None:
    declare(p.add_argument("--base-url", dest="base_urls", action="append", metavar="URL",
                           help=help_of("base_urls") + " (repeat the flag for several)"), run_default("base_urls"))
    for name, kind in (("concurrency", int), ("max_attempts", int), ("request_timeout", float), ("api_key_env", str)):
        declare(p.add_argument("--" + name.replace("_", "-"), type=kind, help=help_of(name)), run_default(name))
    declare(p.add_argument("--extra-body", type=_json_object, metavar="JSON", help=help_of("extra_body") + ", as a JSON object"),
            run_default("extra_body"))


def _filter_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", required=True, metavar="SPEC,SPEC,...",
                   help="the text-only models, comma-separated; SPEC@URL gives one its own endpoint(s)")
    p.add_argument("--trials", type=int, default=10, help="answers per model per question (the paper's number)")
    declare(p.add_argument("--min-models", type=int, help="exclude a question answerable by at least this many models"),
            Phrase("ceil(3/4 x models): 3 of 4"))
    p.add_argument("--per-subject", type=int, default=60, help="questions sampled per subject from those kept; 0 keeps all")
    declare(p.add_argument("--temperature", type=float, help="sampling temperature of the trials"),
            lambda: importlib.import_module("mmmu_eval.harden.trials").DEFAULT_TEMPERATURE)
    declare(p.add_argument("--max-tokens", type=int, help="most tokens per trial answer"),
            lambda: Phrase(f"{importlib.import_module('mmmu_eval.prompt.protocol').PRO_MAX_TOKENS}, MMMU-Pro's"))
    declare(p.add_argument("--batch-size", type=int, help=help_of("batch_size") + "; with sampling, hf: draws depend on the batches"),
            run_default("batch_size"))


def _augment_flags(p: argparse.ArgumentParser, *, all_steps: bool) -> None:
    if all_steps:
        p.add_argument("--augment-model", required=True, metavar="SPEC", help="the model that proposes distractors")
        declare(p.add_argument("--augment-base-url", dest="augment_base_urls", action="append", metavar="URL",
                               help="its endpoint(s), when not --base-url"), Phrase("--base-url's"))
        p.add_argument("--augment-temperature", type=float, default=0.7, help="its sampling temperature")
    else:
        declare(p.add_argument("--model", metavar="SPEC", help="the model that proposes distractors (not with --apply)"),
                Phrase("none; needed unless --apply"))
        p.add_argument("--temperature", type=float, default=0.7, help="its sampling temperature")
        p.add_argument("--max-tokens", type=int, default=1024, help="most tokens per proposal")
        declare(p.add_argument("--apply", metavar="DECISIONS",
                               help="apply a decisions file downloaded from review.html (--data: the augment output)"),
                Phrase("none; propose"))
        declare(p.add_argument("--check-models", metavar="SPEC,SPEC,...", help="text-only models for the augmented set"),
                Phrase("the filter's"))
        p.add_argument("--no-check", dest="check_models", action="store_const", const="", help="skip the text-only check of the augmented set")
    p.add_argument("--options", type=int, default=10, help="options per question after augmenting")
    p.add_argument("--attempts", type=int, default=3, help="tries per question before its proposals count as failed")
    p.add_argument("--position-dependent", choices=("keep", "flag"), default="keep",
                   help="'Both A and B', 'None of the above': keep them meaningful in place or leave those questions unaugmented, flagged")
    declare(p.add_argument("--check-trials", type=int, help="trials of the text-only check of the augmented set"),
            Phrase("the filter's"))


def _render_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=4, help="browser pages rendering side by side")
    declare(p.add_argument("--fonts", type=lambda t: tuple(x.strip() for x in t.split(",") if x.strip()),
                           help="font families to draw from, comma-separated"), Phrase("every installed one of ours"))
    for flag, default, what in (("--font-sizes", (16, 24), "font size"), ("--page-widths", (640, 980), "page width")):
        declare(p.add_argument(flag, type=_range, default=default, metavar="LOW-HIGH", help=f"{what} range in pixels"),
                Phrase(f"{default[0]}-{default[1]}"))
    declare(p.add_argument("--backgrounds", type=lambda t: tuple(x.strip() for x in t.split(",") if x.strip()),
                           help="background names to draw from, comma-separated"), Phrase("all"))
    p.add_argument("--photo-share", type=float, default=0.3, help="share of pages made photos of a screen rather than screenshots; 0 for none")


def main(args: argparse.Namespace) -> int:
    from mmmu_eval.core.errors import ConfigError
    from mmmu_eval.run.distributed import Launch

    launch = Launch.from_env()
    if launch is not None and args.harden_step != "filter":
        raise ConfigError(f"harden {args.harden_step} does not run under torchrun / accelerate launch ({launch.name}): "
                          "only harden filter does (its local models' trials, one shard per rank); run this step as one process")
    result = call_step(args, launch)
    if result is None:  # a rank of torchrun / accelerate launch other than 0
        return 0
    print_step(result, args.harden_step)
    return result.exit_status


def call_step(args: argparse.Namespace, launch: Any) -> Any:
    """The step's one call (``harden_filter``, ``harden_augment`` / ``harden_apply``,
    ``harden_render``, ``harden_all``) with the settings its flags say; None on a rank other than 0."""
    from mmmu_eval import harden

    step, source = args.harden_step, _source_settings(args)
    run = {k: getattr(args, k) for k in ("concurrency", "max_attempts", "request_timeout", "api_key_env", "extra_body")
           if getattr(args, k, None) is not None}
    if step in ("filter", "all"):
        run.update({k: getattr(args, k) for k in ("max_tokens", "batch_size") if getattr(args, k) is not None})
    if step == "filter" and launch is not None:  # one rank of torchrun / accelerate launch: rank 0 gets the result
        from mmmu_eval.harden.filter_ranks import harden_filter_ranks

        return harden_filter_ranks(args.data, args.out, launch, timeout=args.rank_timeout, settings=_filter_settings(args),
                                   draw_seed=args.draw_seed, run_settings=run, source=source)
    if step == "filter":
        return harden.harden_filter(args.data, args.out, _filter_settings(args), draw_seed=args.draw_seed,
                                    run_settings=run, source=source)
    if step == "augment" and args.apply is not None:
        return harden.harden_apply(args.data, args.out, args.apply, source=source,
                                   check=harden.CheckSettings(models=args.check_models, trials=args.check_trials,
                                                              base_urls=args.base_urls))
    if step == "augment":
        augment = harden.AugmentSettings(
            model=args.model, options=args.options, attempts=args.attempts, temperature=args.temperature,
            max_tokens=args.max_tokens, base_urls=args.base_urls, position_dependent=args.position_dependent,
            check=harden.CheckSettings(models=args.check_models, trials=args.check_trials))
        return harden.harden_augment(args.data, args.out, augment, draw_seed=args.draw_seed, run_settings=run, source=source)
    if step == "render":
        return harden.harden_render(args.data, args.out, _render_settings(args), draw_seed=args.draw_seed, source=source)
    augment = harden.AugmentSettings(
        model=args.augment_model, options=args.options, attempts=args.attempts, temperature=args.augment_temperature,
        base_urls=args.augment_base_urls, position_dependent=args.position_dependent,
        check=harden.CheckSettings(trials=args.check_trials))
    return harden.harden_all(args.data, args.out, filter=_filter_settings(args), augment=augment,
                             render=_render_settings(args), draw_seed=args.draw_seed, run_settings=run, source=source)


def print_step(result: Any, step: str) -> None:
    """The step's report, its status and output, then its messages and (at most ten) problems."""
    from mmmu_eval.harden.harden_report import print_report

    console = make_console()
    print_report(result.record, console)
    console.print(f"{step}: {result.status}, {for_rich(result.summary())} · output: {for_rich(str(result.out))}", soft_wrap=True)
    err = make_console(stderr=True)
    for message in result.messages:
        err.print(f"[yellow]{for_rich(message)}[/yellow]", soft_wrap=True)
    shown = [p for p in result.problems if p.bad][:10]
    for problem in shown:
        err.print(f"[red]{problem.label}[/red] {for_rich(str(problem))}", soft_wrap=True)
    if len([p for p in result.problems if p.bad]) > len(shown):
        err.print(f"... and more: every one is in {for_rich(str(result.out / 'harden.json'))} (left_out)", soft_wrap=True)


def _source_settings(args: argparse.Namespace) -> SourceSettings:
    from mmmu_eval.harden.step_settings import SourceSettings

    subjects = tuple(args.subjects) if args.subjects else None
    return SourceSettings(split=args.split, subjects=subjects, limit=args.limit, default_subject=args.default_subject)


def _filter_settings(args: argparse.Namespace) -> FilterSettings:
    from mmmu_eval.harden.step_settings import FilterSettings

    return FilterSettings(
        models=args.models, trials=args.trials, min_models=args.min_models, per_subject=args.per_subject,
        temperature=args.temperature, base_urls=args.base_urls,
    )


def _render_settings(args: argparse.Namespace) -> RenderSettings:
    from mmmu_eval.harden.step_settings import RenderSettings

    return RenderSettings(
        workers=args.workers, fonts=args.fonts, font_sizes=args.font_sizes, page_widths=args.page_widths,
        backgrounds=args.backgrounds, photo_share=args.photo_share,
    )


def _range(text: str) -> tuple[int, int]:
    try:
        low, high = (int(x) for x in text.split("-", 1)) if "-" in text else (int(text), int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"write LOW-HIGH in whole pixels, e.g. 16-24 (got {text!r})") from None
    return low, high
