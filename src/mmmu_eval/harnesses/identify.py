"""What an official-format file holds (benchmark, split, MMMU-Pro setting), from its content.

A file's name is a hint at most: ``llava-onevision-...`` names hold "vision" whatever the
setting, and a renamed file names nothing. So the evidence is, strongest first:

1. the rows' own ``type`` column (the 2024-09 MMMU-Pro outputs; the reader sets it on the items);
2. the flags the user gave (``--benchmark``, ``--split``, ``--setting``);
3. a setting token in the file name (``_Vision``, ``standard(10 options)``, ``Standard(4opts)``);
4. the option counts: MMMU-Pro's ten-option sets have nine or more options on most items
   (83% of the 1,730), the original four-option set on almost none (0.2%).

A flag that contradicts the content is refused, naming both. The option counts are a
plausibility guard over whatever named the setting: a ten-option setting whose items have the
original 2 to 9 options was read from the wrong columns (the misread of issue 27), and is
refused rather than scored; so is a name that contradicts the option counts.

A sketch, with the items an official file's rows give::

    settle(items, path=Path("x.jsonl"), format="official-mmmu-pro",
           benchmark=None, split=None, setting="vision").notes
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Item

#: Fewer rows than this say too little about option counts to judge a setting by them.
SHAPE_MIN_ROWS = 20
#: Share of items with nine or more options above which a file holds a ten-option set ...
TEN_SHARE = 0.5
#: ... and below which it holds the original options (standard-4).
FOUR_SHARE = 0.05

_NAME_SETTINGS = (
    (re.compile(r"(?:^|[_\-\s.(])vision(?:$|[_\-\s.)])", re.I), "vision"),
    (re.compile(r"(?<!\d)4[\s_]*opt", re.I), "standard-4"),
    (re.compile(r"(?<!\d)10[\s_]*opt|(?:^|[_\-\s.(])standard(?:$|[_\-\s.)])", re.I), "standard-10"),
)


@dataclass(frozen=True)
class Settled:
    """The items to score, with their setting decided, and what was decided."""

    items: tuple[Item, ...]
    notes: tuple[str, ...] = ()


def setting_in_name(name: str) -> str | None:
    """The MMMU-Pro setting a file name names as a token, or None (``onevision`` is not one)."""
    stem = name.rsplit(".", 1)[0]
    for pattern, setting in _NAME_SETTINGS:
        if pattern.search(stem):
            return setting
    return None


def option_shape(items: Sequence[Item]) -> str | None:
    """``ten`` or ``four`` when the items' option counts say which option set they hold; else None."""
    return shape_of_counts([len(it.options) for it in items if it.question_type == "multiple-choice" and it.options])


def shape_of_counts(counted: Sequence[int]) -> str | None:
    """``ten`` or ``four`` when these option counts say which option set they come from; else None."""
    if len(counted) < SHAPE_MIN_ROWS:
        return None
    share = sum(n >= 9 for n in counted) / len(counted)
    if share >= TEN_SHARE:
        return "ten"
    if share <= FOUR_SHARE:
        return "four"
    return None


def settle(
    items: Sequence[Item],
    *,
    path: Path,
    format: str,
    benchmark: str | None,
    split: str | None,
    setting: str | None,
) -> Settled:
    """Decide what an official-format file holds; refuse what contradicts its content.

    Raises:
        ConfigError: a flag that contradicts the content (both named), a file that mixes MMMU-Pro
            settings without ``--setting`` choosing one, a setting whose items have the wrong
            number of options.
    """
    benchmark_in_rows = "mmmu-pro" if format == "official-mmmu-pro" else "mmmu"
    if benchmark and benchmark != benchmark_in_rows:
        raise ConfigError(f"{path}: --benchmark {benchmark} was asked, but the file is an {format} file, "
                          f"which holds {benchmark_in_rows}; drop --benchmark or name the right --format")
    if benchmark_in_rows == "mmmu":
        return _settle_mmmu(items, path=path, split=split, setting=setting)
    return _settle_pro(items, path=path, split=split, setting=setting)


def _settle_mmmu(items: Sequence[Item], *, path: Path, split: str | None, setting: str | None) -> Settled:
    if setting:
        raise ConfigError(f"{path}: --setting {setting} was asked, but the file holds MMMU, which has no settings")
    splits = Counter(it.split for it in items)
    if split and set(splits) != {split}:
        said = ", ".join(f"{n} {s}" for s, n in splits.most_common())
        raise ConfigError(f"{path}: --split {split} was asked, but its ids say {said}; "
                          "drop --split or rescore the file of that split")
    return Settled(tuple(items))


def _settle_pro(items: Sequence[Item], *, path: Path, split: str | None, setting: str | None) -> Settled:
    if split and split != "test":
        raise ConfigError(f"{path}: --split {split} was asked, but the file holds MMMU-Pro, whose one split is "
                          "test (its ids keep the MMMU split they came from); drop --split")
    notes: list[str] = []
    typed = Counter(it.setting for it in items if it.setting)
    if len(typed) > 1:  # the reader keeps one type (read_official's setting); never two here
        raise ConfigError(f"{path}: its rows mix MMMU-Pro settings ({dict(typed)}); pass --setting to choose one")
    shape = option_shape(items)
    named = setting_in_name(path.name)
    if typed:
        (content,) = typed
        if setting and setting != content:
            raise ConfigError(f"{path}: --setting {setting} was asked, but its rows' type column says {content}")
        how = "its rows' type column"
    elif setting:
        content, how = setting, "--setting"
    elif named:
        content, how = named, "its file name"
    elif shape == "four":
        content, how = "standard-4", "its items' option counts (the original options)"
    else:
        content, how = None, ""
    _check_shape(path, content, how, shape, items)
    if content:
        notes.append(f"holds MMMU-Pro {content}, as {how} says")
    if named and content and named != content:
        notes.append(f"its file name suggests {named}, but {how} says {content}: scored as {content}")
    if content is None:
        notes.append("neither its rows nor its name say which MMMU-Pro setting it holds"
                     + (" (its items have ten options: standard-10 or vision)" if shape == "ten" else "")
                     + "; pass --setting to record it")
    settled = tuple(it if it.setting == content else replace(it, setting=content) for it in items)
    return Settled(settled, tuple(notes))


def _check_shape(path: Path, setting: str | None, how: str, shape: str | None, items: Sequence[Item]) -> None:
    """Refuse a setting whose items plainly have the other option set's counts."""
    if setting is None or shape is None:
        return
    counted = [len(it.options) for it in items if it.options]
    nine = sum(n >= 9 for n in counted)
    if setting == "standard-4" and shape == "ten":
        raise ConfigError(f"{path}: {_says(how, setting)}, but {nine} of its {len(counted)} items have 9 or more "
                          "options (the ten-option set); the options were read from the wrong column or the "
                          "setting is wrong: pass --setting standard-10 or vision")
    if setting in ("standard-10", "vision") and shape == "four":
        raise ConfigError(f"{path}: {_says(how, setting)}, but only {nine} of its {len(counted)} items have 9 or more "
                          "options (MMMU-Pro's ten-option sets have them on most items): these are the original "
                          "2-9 options, read from the wrong column or the wrong setting; pass --setting standard-4 "
                          "if that is what it holds")


def _says(how: str, setting: str) -> str:
    return f"--setting {setting} was asked" if how == "--setting" else f"{how} says {setting}"
