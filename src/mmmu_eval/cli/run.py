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

from mmmu_eval.cli.log_flags import add_log_flags, log_to_of
from mmmu_eval.cli.flag_defaults import HelpFormatter, declare, run_default
from mmmu_eval.core.config import UNREFERENCED_IMAGES, RunConfig, check_extra_body, help_of
from mmmu_eval.core.errors import ConfigError
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
    parser.add_argument("--json", dest="dry_run_json", action="store_true", help="with --dry-run: print the plan as JSON")
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
        "subjects": ("--subjects", {"nargs": "+", "type": _comma_list, "metavar": "SUBJECT", "help": help_of("subjects")}),
        "ids": ("--ids", {"nargs": "+", "type": _comma_list, "metavar": "ID", "help": help_of("ids")}),
        "parsers": ("--parser", {"dest": "parsers", "action": "append", "choices": PARSERS, "metavar": "NAME",
                                 "help": help_of("parsers") + f" (repeat the flag for several; one of {', '.join(PARSERS)})"}),
        "fallback": ("--fallback", {"choices": FALLBACK_POLICIES, "default": None, "help": help_of("fallback")}),
        "unreferenced_images": ("--unreferenced-images", {"choices": UNREFERENCED_IMAGES, "default": None,
                                                          "help": help_of("unreferenced_images")}),
    }
    for name, (flag, options) in special.items():
        if name not in skip:
            declare(parser.add_argument(flag, **options), run_default(name))
    hints = typing.get_type_hints(RunConfig)
    for f in fields(RunConfig):
        if f.name in special or f.name in skip:
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
    from mmmu_eval.run.distributed import Launch
    from mmmu_eval.run.pipeline import RunInterrupted, evaluate
    from mmmu_eval.run.launcher_ranks import evaluate_ranks
    from mmmu_eval.run.runner import counting_asked

    overrides = config_overrides(args)
    log_to = log_to_of(args)
    out = overrides.get("out")
    console = make_console()
    continued = out is not None and (Path(out) / MANIFEST).exists() and overrides.get("resume") is not False
    if continued and "resume" not in overrides:
        overrides["resume"] = True
    # A distributed run's ranks hold answers before its first merge: a run there continues them too.
    continued = continued or (out is not None and (Path(out) / RANKS).is_dir())
    if getattr(args, "dry_run", False):
        if log_to is not None:
            raise ConfigError("--log-to logs a finished run; --dry-run runs nothing (drop one of them)")
        return dry_run(overrides, as_json=args.dry_run_json)
    if getattr(args, "dry_run_json", False):
        raise ConfigError("--json applies to --dry-run only (a run's results are in results.json; `mmmu-eval report --json`)")
    launch = Launch.from_env()
    try:
        if launch is None:
            with counting_asked() as tally:  # what was sent, not the lines added (copies of shards' answers)
                result = evaluate(**overrides, log_to=log_to)
            asked = tally.asked
        else:  # one rank of torchrun / accelerate launch: rank 0 gets the merged run, the others None
            continued = continued and launch.rank == 0
            ranked = evaluate_ranks(overrides, launch, timeout=args.rank_timeout, log_to=log_to)
            if ranked is None:
                return 0
            result, asked = ranked.result, ranked.asked  # what the ranks sent, not what the merge appended
    except RunInterrupted as exc:
        make_console(stderr=True).print(f"[yellow]{for_rich(str(exc))}[/yellow]", soft_wrap=True)
        return 130
    if continued:
        # Said after evaluate accepted the directory: a refused resume must not first claim to continue.
        from mmmu_eval.cli.wrap import echo

        if asked <= 0:
            echo(f"{out}: finished already: nothing asked")
        else:
            echo(f"continued the run in {out}: {asked} item(s) asked, those that had failed or were missing")
    print_headline(result, console)
    message = result.message()
    if message:
        make_console(stderr=True).print(f"[red]{for_rich(message)}[/red]", soft_wrap=True)
    return result.exit_status


def dry_run(overrides: dict[str, Any], *, as_json: bool) -> int:
    """Print the run's plan; 0, or 1 when the run would be refused before its first request."""
    from mmmu_eval.run.pipeline import plan_run
    from mmmu_eval.run.resolve import resolve_config

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
        if name in ("subjects", "ids"):
            value = tuple(v for group in value for v in group)
        elif name in ("base_urls", "parsers"):
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
        check_extra_body(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--extra-body ")) from None
    return value


def _shard(text: str) -> tuple[int, int]:
    from mmmu_eval.run.resolve import parse_shard

    try:
        return parse_shard(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _comma_list(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())
