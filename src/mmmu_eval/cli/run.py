"""``mmmu-eval run``: flags -> RunConfig -> ``evaluate`` -> the headline.

Every RunConfig field is a flag with the field's own help text (``config.help_of``), so the
CLI and the Python API cannot drift apart. An unset flag stays None and leaves the RunConfig
default. Running the same command with the same ``--out`` again continues that run (only
failed and missing items are asked), exactly as ``--resume`` does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import typing
from dataclasses import fields
from pathlib import Path
from typing import Any

from rich.console import Console

from mmmu_eval.cli.flag_defaults import HelpFormatter, declare, run_default
from mmmu_eval.cli.log_flags import add_log_flags, log_to_of
from mmmu_eval.cli.shared_flags import add_generation_seed, add_ids, add_json, add_subjects
from mmmu_eval.core.config import UNREFERENCED_IMAGES, RunConfig, check_extra_body, help_of
from mmmu_eval.core.errors import ConfigError, speaking_cli
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.scoring.judge import PARSERS
from mmmu_eval.scoring.scorer import FALLBACK_POLICIES
from mmmu_eval.core.untrusted import for_rich, for_terminal, make_console
from mmmu_eval.store.rundir import MANIFEST, RANKS

EXAMPLES = """examples:
  mmmu-eval run --benchmark mmmu --split dev --data sample --model random
  mmmu-eval run --benchmark mmmu-pro --setting vision --data sample --model frequent
  mmmu-eval run --model openai:Qwen/Qwen2.5-VL-7B-Instruct --base-url http://localhost:8000/v1 --limit 50
  mmmu-eval run --benchmark mmmu-pro --model openai:gpt-4o --price-input 2.5 --price-output 10 --dry-run
"""



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="evaluate a model and write a run directory",
        description="Evaluate a model on MMMU or MMMU-Pro with the official protocol, writing a run directory.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    add_run_flags(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would be sent (requests, images, bytes, a prompt-token estimate) and exit; "
                             "no backend is created or called, nothing is written")
    add_json(parser, prints="the plan", dest="dry_run_json", when="with --dry-run")
    add_rank_timeout(parser)
    add_log_flags(parser)
    parser.set_defaults(func=main)


def add_rank_timeout(parser: argparse.ArgumentParser) -> None:
    """``--rank-timeout``, for runs started by torchrun / accelerate launch (docs/parallel.md)."""
    from mmmu_eval.run.distributed import DEFAULT_TIMEOUT_S

    parser.add_argument("--rank-timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                        help="under torchrun / accelerate launch: how long a rank may show no sign of life "
                             "before the others stop, naming it")


def add_run_flags(parser: argparse.ArgumentParser, *, skip: frozenset[str] = frozenset()) -> None:
    """One flag per RunConfig field, with the field's help text and its default; ``skip`` names
    fields left out.

    ``run`` takes them all; ``suite`` takes the same flags except the ones that say which setting
    and prompt one run uses, so the two commands cannot drift apart. Each flag's value stays None
    when it is not given; what applies then is declared on it (``run_default``).
    """
    special: dict[str, tuple[str, dict[str, Any]]] = {
        "model": ("--model", {"required": True, "metavar": "SPEC", "help": help_of("model")}),
        "base_urls": ("--base-url", {"dest": "base_urls", "action": "append", "metavar": "URL",
                                     "help": help_of("base_urls") + " (repeat the flag for several)"}),
        "extra_body": ("--extra-body", {"type": _json_object, "metavar": "JSON",
                                        "help": help_of("extra_body") + ", as a JSON object"}),
        "shard": ("--shard", {"type": _shard, "metavar": "K/N", "help": help_of("shard").replace("(K, N)", "K/N")}),
        "parsers": ("--parser", {"dest": "parsers", "action": "append", "choices": PARSERS, "metavar": "NAME",
                                 "help": help_of("parsers") + f" (repeat the flag for several; one of {', '.join(PARSERS)})"}),
        "fallback": ("--fallback", {"choices": FALLBACK_POLICIES, "default": None, "help": help_of("fallback")}),
        "unreferenced_images": ("--unreferenced-images", {"choices": UNREFERENCED_IMAGES, "default": None,
                                                          "help": help_of("unreferenced_images")}),
    }
    for name, (flag, options) in special.items():
        if name not in skip:
            declare(parser.add_argument(flag, **options), run_default(name))
    shared = {"subjects": add_subjects, "ids": add_ids, "generation_seed": add_generation_seed}  # cli/shared_flags.py
    for name, add in shared.items():
        if name not in skip:
            add(parser, help=help_of(name))
    hints = typing.get_type_hints(RunConfig)
    for f in fields(RunConfig):
        if f.name in special or f.name in skip or f.name in shared:
            continue
        flag = "--" + f.name.replace("_", "-")
        kind = _scalar(hints[f.name])
        if kind is bool:
            action = parser.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None,
                                         help=help_of(f.name))
        else:
            action = parser.add_argument(flag, dest=f.name, type=kind, default=None, metavar=f.name.upper(),
                                         help=help_of(f.name))
        declare(action, run_default(f.name))


def main(args: argparse.Namespace) -> int:
    from mmmu_eval.run.pipeline import RunInterrupted

    overrides = config_overrides(args)
    log_to = log_to_of(args)
    if getattr(args, "dry_run", False) or getattr(args, "dry_run_json", False):
        return dry_run(overrides, as_json=args.dry_run_json, log_to=log_to, asked=args.dry_run)
    out = overrides.get("out")
    continued = _continues(out, overrides.get("resume"))
    try:
        ran = _evaluate(overrides, log_to, args.rank_timeout)
    except RunInterrupted as exc:
        make_console(stderr=True).print(f"[yellow]{for_rich(str(exc))}[/yellow]", soft_wrap=True)
        return 130
    if ran is None:  # a rank of torchrun / accelerate launch other than 0
        return 0
    result, asked = ran
    if continued:  # said after evaluate accepted the directory: a refused resume must not first claim to continue
        _say_continued(out, asked)
    print_headline(result, make_console())
    if result.message:
        make_console(stderr=True).print(f"[red]{for_rich(result.message)}[/red]", soft_wrap=True)
    return result.exit_status


def _continues(out: Any, resume: bool | None) -> bool:
    """Whether ``run`` continues a run in ``out``: one stored there, unless ``--no-resume``
    (``run.resolve.continues_run``), or a distributed run's ranks, which hold answers before its
    first merge."""
    from mmmu_eval.run.resolve import continues_run

    if out is None:
        return False
    return ((Path(out) / MANIFEST).exists() and continues_run(out, resume)) or (Path(out) / RANKS).is_dir()


def _evaluate(overrides: dict[str, Any], log_to: Any, rank_timeout: float) -> tuple[Any, int] | None:
    """``evaluate`` and how many items it asked (what was sent, not the lines added: a merge copies
    the shards' answers); under torchrun / accelerate launch this rank's part (rank 0 gets the
    merged run and what the ranks sent, the others None)."""
    from mmmu_eval.run.distributed import Launch
    from mmmu_eval.run.launcher_ranks import evaluate_ranks
    from mmmu_eval.run.pipeline import evaluate
    from mmmu_eval.run.runner import counting_asked

    launch = Launch.from_env()
    if launch is None:
        with counting_asked() as tally:
            result = evaluate(**overrides, log_to=log_to)
        return result, tally.asked
    ranked = evaluate_ranks(overrides, launch, timeout=rank_timeout, log_to=log_to)
    return None if ranked is None else (ranked.result, ranked.asked)


def _say_continued(out: Any, asked: int) -> None:
    from mmmu_eval.cli.wrap import echo

    if asked <= 0:
        echo(f"{out}: finished already: nothing asked")
    else:
        echo(f"continued the run in {out}: {asked} item(s) asked, those that had failed or were missing")


def dry_run(overrides: dict[str, Any], *, as_json: bool, log_to: Any = None, asked: bool = True) -> int:
    """Print the run's plan; 0, or 1 when the run would be refused before its first request."""
    from mmmu_eval.run.pipeline import plan_run
    from mmmu_eval.run.resolve import resolve_config

    if not asked:
        raise ConfigError("--json applies to --dry-run only (a run's results are in results.json; `mmmu-eval report --json`)")
    if log_to is not None:
        raise ConfigError("--log-to logs a finished run; --dry-run runs nothing (drop one of them)")

    config, _ = resolve_config(None, overrides)
    plan = plan_run(config)
    if as_json:
        print(json.dumps(plan.to_json(), indent=2))
    else:
        print(for_terminal(plan.text(shutil.get_terminal_size().columns)))
    return 1 if plan.refusal else 0


def config_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The RunConfig fields the user set (None means not given, so defaults stay)."""
    names = {f.name for f in fields(RunConfig)}
    out: dict[str, Any] = {}
    for name, value in vars(args).items():
        if name not in names or value is None:
            continue
        if name in ("subjects", "ids", "base_urls", "parsers"):
            value = tuple(value)
        out[name] = value
    return out


def print_headline(result: Any, console: Console) -> None:
    """The report's terminal tables, then where the run is."""
    from rich.table import Table

    from mmmu_eval.rendering.fit import print_fitted
    from mmmu_eval.rendering.run_terminal import print_results

    print_results(result.results, console)
    counts = Table(title="Responses", title_justify="left")
    for key in ("items", "ok", "truncated", "error", "missing"):
        counts.add_column(key, justify="right", no_wrap=True)
    counts.add_row(*(str(result.counts[k]) for k in ("items", "ok", "truncated", "error", "missing")))
    print_fitted(console, counts)
    console.print(f"run directory: {for_rich(str(result.run_dir))}", soft_wrap=True)


# -- flag types -------------------------------------------------------------------------------

def _scalar(hint: Any) -> type:
    """``int | None`` -> int; ``Path | None`` -> Path; ``str`` -> str."""
    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    kind = args[0]
    return kind if kind in (int, float, bool, Path) else str


def _json_object(text: str) -> dict[str, object]:
    try:
        value = loads(text.removeprefix("\ufeff"))  # `--extra-body "$(cat body.json)"` of a file saved with a BOM
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
    except ValueError as exc:  # nested too deep, a number too long (jsonfile.MalformedJSON)
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('must be a JSON object, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'')
    try:
        with speaking_cli({}):  # read while parsing, before main() words errors for the command line
            check_extra_body(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--extra-body ")) from None
    return value


def _shard(text: str) -> tuple[int, int]:
    from mmmu_eval.run.resolve import parse_shard

    try:
        with speaking_cli({}):  # read while parsing
            return parse_shard(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
