"""Every flag's default, declared once: argparse's own, or the one that applies when it is left out.

Most of a run's flags keep None when not given, and must: None is "not given", so a resumed
run, a suite or the backend decides, and ``--temperature 0`` still overrides (``config.py``).
argparse's ``default=`` can then not hold what a user gets. Such a flag declares it instead
(``declare``); ``--help`` ends the flag's line with it (``HelpFormatter``) and
``scripts/cli_reference.py`` prints it in the reference's default column, so no default lives
only in a help sentence.

A declared default is a value (``64``), a ``Phrase`` where no single value is it ("all 30",
"the run's"), or a function returning either, called only when help is printed, so that a
backend's module, which owns the figure, is imported then and not on every command.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="x", formatter_class=HelpFormatter)
>>> action = declare(parser.add_argument("--concurrency", type=int, help="requests in flight"), lambda: 64)
>>> default_of(action), parser.parse_args([]).concurrency
(64, None)
>>> "requests in flight (default: 64)" in parser.format_help()
True
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Union

from mmmu_eval.core.config import FALLBACK_POLICIES, SAMPLE_SEED, RunConfig

__all__ = ["REQUIRED", "Declared", "HelpFormatter", "Phrase", "declare", "default_of", "default_text", "run_default"]


class Phrase(str):
    """A default said in words, where no single value is it: ``all 30``, ``the run's``, ``none``."""

    __slots__ = ()


#: What a required flag or a positional argument shows in the default column.
REQUIRED = Phrase("required")

Declared = Union[object, Callable[[], object]]

_ATTRIBUTE = "declared_default"


def declare(action: argparse.Action, default: Declared) -> argparse.Action:
    """Give ``action`` the default that applies when its flag is left out; its value stays as argparse has it."""
    setattr(action, _ATTRIBUTE, default)
    return action


def default_of(action: argparse.Action) -> object | None:
    """The flag's default as a user meets it: the declared one, else argparse's; ``REQUIRED``
    for a required flag or a positional; None for a switch or help (nothing to say)."""
    if action.required or (not action.option_strings and action.nargs not in ("?", "*")):
        return REQUIRED
    declared = getattr(action, _ATTRIBUTE, None)
    if declared is not None:
        return declared() if callable(declared) else declared
    if action.nargs == 0 or action.default is None or action.default is argparse.SUPPRESS or action.default in ("", []):
        return None
    return action.default


def default_text(action: argparse.Action) -> str | None:
    """The default as ``--help`` prints it (a list joined by commas, ``2.5`` not ``2.5000``)."""
    value = default_of(action)
    if value is None or value is REQUIRED:
        return None
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The command's description and epilog as written; each flag's help ends with its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        default = default_text(action)
        if text and text != argparse.SUPPRESS and default is not None:
            text += " (default: " + default.replace("%", "%%") + ")"  # argparse expands % in help
        return text


# -- the run's flags: RunConfig's fields ----------------------------------------------------

def run_default(name: str) -> Declared:
    """What applies when the flag of RunConfig field ``name`` is left out: the field's own
    default, or, where the field is None ("not given"), what the stage that reads it then does,
    read from the module that decides it (imported only when help is printed)."""
    if name in _RUN_DEFAULTS:
        return _RUN_DEFAULTS[name]
    default = next(f.default for f in fields(RunConfig) if f.name == name)
    if isinstance(default, bool):
        return Phrase("on" if default else "off")
    if default is None or default is MISSING:
        raise KeyError(f"RunConfig.{name} is None by default: say what then applies in cli.flag_defaults._RUN_DEFAULTS")
    return default


def _owned(module: str, name: str, words: str = "{}") -> Callable[[], object]:
    """The default ``module`` holds as ``name`` (as ``words`` say it, if given), read when help is printed."""
    def read() -> object:
        value = getattr(importlib.import_module(module), name)
        return value if words == "{}" else Phrase(words.format(value))
    return read


def _batch_size_default() -> Phrase:
    hf = _owned("mmmu_eval.backends.hf_transformers", "DEFAULT_BATCH_SIZE")()
    vllm = _owned("mmmu_eval.backends.vllm_offline", "DEFAULT_CHUNK")()
    return Phrase(f"{hf} for hf:, {vllm} for vllm:")


#: RunConfig fields that are None when not given, and what then applies (``run_default``); the
#: fields' docstrings say the same (tests/docs/test_field_docs.py holds them together).
_RUN_DEFAULTS: dict[str, Declared] = {
    "model": None,  # required
    "resume": Phrase("off; an --out that holds a run is continued"),
    "split": lambda: RunConfig(model="random").resolved_split,
    "setting": lambda: RunConfig(model="random", benchmark="mmmu-pro").resolved_setting,
    "revision": Phrase("the pinned commit"),
    "subjects": Phrase("all 30"),
    "limit": Phrase("every item"),
    "ids": Phrase("every item"),
    "sample": Phrase("every item"),
    "sample_seed": SAMPLE_SEED,
    "sample_audit": Phrase("a uniform sample"),
    "shard": Phrase("the whole selection"),
    "out": Phrase("runs/<benchmark>-<split or setting>-<model>-<time>"),
    "max_tokens": lambda: Phrase(f"{_owned('mmmu_eval.prompt.protocol', 'PRO_MAX_TOKENS')()} for mmmu-pro; for mmmu the "
                                 f"server's own, {_owned('mmmu_eval.backends.local_chat', 'DEFAULT_MAX_TOKENS')()} for hf: and vllm:"),
    "temperature": Phrase("the server's own; 0 (greedy) for hf: and vllm:"),
    "top_p": Phrase("the server's or engine's own"),
    "seed": _owned("mmmu_eval.backends.baselines", "DEFAULT_SEED", "none sent; {} for random"),
    "extra_body": Phrase("none"),
    "system_prompt": Phrase("none"),
    "base_urls": _owned("mmmu_eval.backends.openai_servers", "DEFAULT_BASE_URL", "$OPENAI_BASE_URL, else {}"),
    "api_key_env": _owned("mmmu_eval.backends.openai_servers", "DEFAULT_KEY_ENV"),
    "concurrency": _owned("mmmu_eval.backends.openai_api", "DEFAULT_CONCURRENCY"),
    "max_attempts": _owned("mmmu_eval.backends.openai_api", "DEFAULT_MAX_ATTEMPTS"),
    "request_timeout": _owned("mmmu_eval.backends.openai_api", "DEFAULT_REQUEST_TIMEOUT"),
    "probe_timeout": _owned("mmmu_eval.backends.openai_preflight", "DEFAULT_PROBE_TIMEOUT"),
    "max_response_bytes": _owned("mmmu_eval.backends.openai_wire", "DEFAULT_MAX_RESPONSE_BYTES"),
    "max_image_pixels": Phrase("never scaled"),
    "batch_size": _batch_size_default,
    "dtype": "auto",
    "device": "auto",
    "tensor_parallel_size": 1,
    "pipeline_parallel_size": 1,
    "data_parallel_size": 1,
    "parsers": Phrase("official (boxed, official for --prompt boxed)"),
    "fallback": lambda: FALLBACK_POLICIES[0],
    "fallback_seed": _owned("mmmu_eval.scoring.scorer", "OFFICIAL_SEED"),
    "answers": Phrase("none; the test split is not scored"),
    "price_input": Phrase("none; no cost is reported"),
    "price_output": Phrase("none; no cost is reported"),
}
