"""The flags several subcommands share, each declared here once: its spelling, type, metavar,
choices and default; a subcommand adds the words that say what the flag does there.

``--json`` prints a command's result as JSON (``--json FILE`` writes it to a file, for the
commands whose printout is not the result); ``--data`` / ``--revision`` and the selection flags
(``--benchmark``, ``--split``, ``--setting``, ``--subjects``, ``--limit``) say which items;
``--bootstrap`` / ``--bootstrap-seed`` size and seed the intervals; ``--fallback-seed`` seeds the
official random fallback; ``--generation-seed`` the model's sampling; ``--draw-seed`` a harden
step's draws; ``--published`` is the
figure a run is set against. ``tests/cli/test_thin_cli.py`` checks that no other module declares them.

Every seed is named for what it seeds. ``--seed``, the name three of them shared before, still
works for one release on each command that had it, and says which name to use instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mmmu_eval.cli.flag_defaults import Declared, Phrase, declare, run_default
from mmmu_eval.core.config import BENCHMARKS, MMMU_SPLITS, PRO_SETTINGS

__all__ = ["add_benchmark", "add_bootstrap", "add_data", "add_draw_seed", "add_fallback_seed", "add_generation_seed",
           "add_ids", "add_json", "add_json_file", "add_limit", "add_published", "add_revision", "add_setting",
           "add_split", "add_subjects", "published_flag"]

#: Bootstrap resamples of an interval when no flag says (as ``stats.intervals.RESAMPLES``).
BOOTSTRAP = 1000

#: What a flag whose value stays None shows as its default (``flag_defaults.declare``), where the
#: subcommand says nothing else.
NO_FILE = Phrase("none; no JSON file")


def add_json(parser: argparse.ArgumentParser, *, prints: str, dest: str = "json", when: str = "") -> argparse.Action:
    """``--json``: print ``prints`` to stdout as JSON instead of tables (``when``: the flag it needs)."""
    return parser.add_argument("--json", dest=dest, action="store_true", default=False,
                               help=f"{when + ': ' if when else ''}print {prints} as JSON instead of tables")


def add_json_file(parser: argparse.ArgumentParser, *, writes: str, metavar: str = "FILE",
                  dest: str = "json") -> argparse.Action:
    """``--json FILE``: also write ``writes`` as JSON to FILE (the printout stays as it is);
    ``dest``: the API keyword it becomes (``json_file``), so that an error names the flag."""
    return declare(parser.add_argument("--json", dest=dest, metavar=metavar, default=None,
                                       help=f"also write {writes} as JSON to {metavar}"), NO_FILE)


def add_data(parser: argparse.ArgumentParser, *, help: str, default: str | None = "hub", required: bool = False,
             metavar: str = "hub|sample|DIR", shows: Declared = None) -> argparse.Action:
    """``--data``: where the items come from: the hub, the bundled sample, or a snapshot directory
    (``shows``: the default said, where the value stays None)."""
    if required:
        return parser.add_argument("--data", required=True, metavar=metavar, help=help)
    action = parser.add_argument("--data", default=default, metavar=metavar, help=help)
    return declare(action, shows) if shows is not None else action


def add_revision(parser: argparse.ArgumentParser, *, help: str = "hub revision (hub only)") -> argparse.Action:
    """``--revision``: the dataset's hub revision (a commit, tag or branch); the pinned one when left out."""
    return declare(parser.add_argument("--revision", default=None, metavar="REVISION", help=help), run_default("revision"))


def add_benchmark(parser: argparse.ArgumentParser, *, help: str, shows: Declared) -> argparse.Action:
    """``--benchmark``: mmmu or mmmu-pro (``shows``: what applies when it is left out)."""
    return declare(parser.add_argument("--benchmark", choices=BENCHMARKS, default=None, help=help), shows)


def add_split(parser: argparse.ArgumentParser, *, help: str = "MMMU split: dev, validation or test",
              shows: Declared = None) -> argparse.Action:
    """``--split``: an MMMU split (``shows``: what applies when it is left out; RunConfig's default)."""
    action = parser.add_argument("--split", choices=MMMU_SPLITS, default=None, help=help)
    return declare(action, run_default("split") if shows is None else shows)


def add_setting(parser: argparse.ArgumentParser, *, help: str = "MMMU-Pro setting: standard-10, standard-4, vision",
                shows: Declared = None) -> argparse.Action:
    """``--setting``: an MMMU-Pro setting (``shows``: what applies when it is left out; RunConfig's default)."""
    action = parser.add_argument("--setting", choices=PRO_SETTINGS, default=None, help=help)
    return declare(action, run_default("setting") if shows is None else shows)


class _Words(argparse.Action):
    """One or more words after the flag, each also split at commas, as one flat tuple:
    ``--subjects Art Math``, ``--subjects Art,Math`` and the flag given twice all name both."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None) or ()
        words = tuple(w.strip() for value in values for w in str(value).split(",") if w.strip())
        setattr(namespace, self.dest, tuple(before) + words)


def add_subjects(parser: argparse.ArgumentParser, *, help: str) -> argparse.Action:
    """``--subjects``: subjects by long or short name (a flat tuple; None when not given: all 30)."""
    return declare(parser.add_argument("--subjects", nargs="+", action=_Words, default=None, metavar="SUBJECT", help=help),
                   run_default("subjects"))


def add_ids(parser: argparse.ArgumentParser, *, help: str) -> argparse.Action:
    """``--ids``: item ids (a flat tuple; None when not given: every item)."""
    return declare(parser.add_argument("--ids", nargs="+", action=_Words, default=None, metavar="ID", help=help),
                   run_default("ids"))


def add_limit(parser: argparse.ArgumentParser, *, help: str) -> argparse.Action:
    """``--limit N``: the first N items (every item when left out)."""
    return declare(parser.add_argument("--limit", type=int, default=None, metavar="N", help=help), run_default("limit"))


class _Renamed(argparse.Action):
    """A flag's old name, kept for one release: it sets the new flag's value and says to use it."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stderr.write(f"warning: {option_string} is deprecated and goes in the next release: use {self.new}\n")
        setattr(namespace, self.dest, values)


def _seed(parser: argparse.ArgumentParser, flag: str, *, default: int | None, help: str,
          old_seed: bool, shows: Declared = None) -> argparse.Action:
    dest = flag.removeprefix("--").replace("-", "_")
    action = parser.add_argument(flag, dest=dest, type=int, default=default, metavar="N", help=help)
    if shows is not None:
        declare(action, shows)
    if old_seed:
        parser.add_argument("--seed", dest=dest, type=int, action=_Renamed, new=flag)
    return action


def add_bootstrap(parser: argparse.ArgumentParser, *, what: str, old_seed: bool = True) -> None:
    """``--bootstrap N`` (resamples) and ``--bootstrap-seed N`` of ``what`` intervals;
    ``old_seed``: also the deprecated ``--seed`` the command had for the latter."""
    parser.add_argument("--bootstrap", type=int, default=BOOTSTRAP, metavar="N", help=f"bootstrap resamples of {what}")
    _seed(parser, "--bootstrap-seed", default=0, help=f"seed of the bootstrap of {what}", old_seed=old_seed)


def add_fallback_seed(parser: argparse.ArgumentParser, *, default: int | None, help: str, shows: Declared = None,
                      old_seed: bool = True) -> argparse.Action:
    """``--fallback-seed N``: the seed of the official random letter given to an unparseable
    multiple-choice answer; ``old_seed``: also the deprecated ``--seed`` the command had for it."""
    return _seed(parser, "--fallback-seed", default=default, help=help, old_seed=old_seed, shows=shows)


def add_generation_seed(parser: argparse.ArgumentParser, *, help: str) -> argparse.Action:
    """``--generation-seed N``: the model's sampling seed (RunConfig ``generation_seed``), and the
    deprecated ``--seed`` that ``run`` and ``suite`` had for it."""
    return _seed(parser, "--generation-seed", default=None, help=help, old_seed=True,
                 shows=run_default("generation_seed"))


def add_draw_seed(parser: argparse.ArgumentParser, *, help: str) -> argparse.Action:
    """``--draw-seed N``: every random draw of a harden step, and the deprecated ``--seed`` it had."""
    return _seed(parser, "--draw-seed", default=0, help=help, old_seed=True)


def published_flag(text: str) -> str:
    """``--published``'s value as the API takes it: a number a user types is a percent
    (``58.6`` is ``"58.6%"``); a model name stays as it is."""
    body = text.strip()
    try:
        float(body.rstrip("%"))
    except ValueError:
        return text
    return body if body.endswith("%") else body + "%"


def add_published(parser: argparse.ArgumentParser, *, help: str, shows: Declared) -> argparse.Action:
    """``--published VALUE|MODEL``: a published accuracy in percent (58.6) or a model's name
    (``shows``: what the run is set against when it is left out)."""
    return declare(parser.add_argument("--published", type=published_flag, default=None, metavar="VALUE|MODEL",
                                       help=help), shows)
