"""Join another harness's rows to our dataset's items, by each harness's way of naming items.

Most harnesses keep only what they needed, not what the official parser needs (the options, the
gold answer, the question type), so the items come from our dataset loader (``--data``: the hub
at the pinned revision, a snapshot, or the sample), and each row is matched to one:

- an official id (``validation_Art_3``) as it is, or written another way (``Validation_Art_3``,
  ``validation-Art Theory-3``: case, ``-`` and spaces are not told apart);
- ``position-0``: a number that is the item's 0-based position in the split (lmms-eval's
  ``doc_id``, verifiers' ``example_id``);
- ``position-1``: a number that is the 1-based position among the items of the task's question
  type (Inspect's automatic sample ids in inspect_evals' MMMU tasks);
- ``content``: the question and option texts (VLMEvalKit rows without an id).

What the join refuses, with the reason: a file whose rows belong to two benchmarks or settings;
a file of two MMMU splits unless one is chosen; a file of which no row names an item. What it
never does is drop a row quietly: a row that matches no item, or an item twice, is named in
``unjoined``, and rows of another split than the one scored are counted in ``notes``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from mmmu_eval.dataset.load import Benchmark, load_benchmark
from mmmu_eval.core.errors import ConfigError, DataError, argument, to_caller
from mmmu_eval.core.records import Item, Response
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict
from mmmu_eval.harnesses.readers.foreign import ForeignFile, ForeignRow


@dataclass(frozen=True)
class Joined:
    """The rows that found their item, and what became of the others."""

    dataset: Benchmark
    """The dataset the items came from (its revision and digest go into the manifest)."""
    items: tuple[Item, ...]
    """Items that a row joined, in dataset order."""
    responses: dict[str, Response]
    """Item id -> the row's response (status ``error`` for a failure the harness recorded)."""
    harness: dict[str, HarnessVerdict]
    """Item id -> the harness's verdict, where it recorded one."""
    prompts: dict[str, str]
    """Item id -> the prompt the harness sent, where it recorded it."""
    unjoined: tuple[str, ...]
    """``"<where> (<key>): <why>"`` for every row that matched no item, or an item already taken."""
    notes: tuple[str, ...]
    """Rows set aside on purpose (another split), ids read under another spelling."""
    missing: tuple[str, ...] = ()
    """Ids of the items the file should cover (its split, its task's question type) that no row
    names: a file cut short, or run with a limit. Its accuracy is over the rows it has."""
    expected: int = 0
    """How many items the file should cover (those joined plus ``missing``)."""


def target(foreign: ForeignFile, benchmark: str | None, split: str | None, setting: str | None) -> tuple[str, str | None, str | None]:
    """``(benchmark, split, setting)`` to score: the flags, else what the file and its rows say.

    Raises:
        ConfigError: the rows mix benchmarks or settings, or disagree with the flags, or nothing
            says which benchmark (or MMMU-Pro setting) the file holds.
    """
    rows = foreign.rows
    told = f"its {foreign.format} task {foreign.task!r}" if foreign.task else f"the {foreign.format} file"
    in_rows = {r.split or _split_of(r.key) for r in rows}  # MMMU_DEV_VAL: two splits, either may be asked
    for flag, asked, held in (("benchmark", benchmark, foreign.benchmark), ("setting", setting, foreign.setting),
                              ("split", split, foreign.split)):
        if asked and held and asked != held and not (flag == "split" and asked in in_rows):
            raise ConfigError(f"{foreign.path}: {argument(flag, asked, typed=True)} was asked, but {told} says {held}; "
                              f"drop {argument(flag)} or rescore the file that holds {asked}")
    said = _one(rows, "benchmark", foreign.path)
    chosen = benchmark or foreign.benchmark or said
    if said and chosen != said:
        raise ConfigError(f"{foreign.path}: its rows are {said} but {argument('benchmark', chosen, typed=True)} was asked; "
                          "a run scores the benchmark its responses were asked from")
    if chosen is None:
        raise ConfigError(f"{foreign.path}: neither its name nor its rows say which benchmark it holds; "
                          f"pass {argument('benchmark', 'mmmu', typed=True)} or {argument('benchmark', 'mmmu-pro', typed=True)} (with {argument('setting')})")
    if chosen not in ("mmmu", "mmmu-pro"):
        raise ConfigError(f"{argument('benchmark', chosen)} is not mmmu or mmmu-pro")
    if chosen == "mmmu-pro":
        row_setting = _one(rows, "setting", foreign.path)
        chosen_setting = setting or foreign.setting or row_setting
        if row_setting and chosen_setting != row_setting:
            raise ConfigError(f"{foreign.path}: its rows are MMMU-Pro {row_setting} but {chosen_setting} was asked")
        if chosen_setting is None:
            raise ConfigError(f"{foreign.path}: it does not say which MMMU-Pro setting it holds"
                              + (f" ({foreign.setting_evidence})" if foreign.setting_evidence else "")
                              + f"; pass {argument('setting', 'standard-10', typed=True)}, standard-4 or vision")
        return chosen, None, chosen_setting
    splits = Counter(r.split or _split_of(r.key) for r in rows)
    splits.pop(None, None)
    chosen_split = split or foreign.split
    if chosen_split is None:
        if len(splits) > 1:
            counts = ", ".join(f"{n} {s}" for s, n in splits.most_common())
            raise ConfigError(f"{foreign.path}: its rows mix MMMU splits ({counts}); pass {argument('split')} to score one of them")
        chosen_split = next(iter(splits), None) or "validation"
    return chosen, chosen_split, None


def join(
    foreign: ForeignFile,
    reader: ModuleType | None,
    *,
    benchmark: str | None = None,
    split: str | None = None,
    setting: str | None = None,
    data: str | Path = "hub",
    revision: str | None = None,
) -> Joined:
    """Load the dataset the file was evaluated on and match every row to its item.

    Raises:
        ConfigError: see ``target``.
        DataError: no row matches an item (the error shows a key and what was expected).
    """
    chosen, chosen_split, chosen_setting = target(foreign, benchmark, split, setting)
    dataset = load_benchmark(chosen, split=chosen_split if chosen == "mmmu" else None,
                           setting=chosen_setting, data=data, revision=revision)
    matcher = _Matcher(dataset.items, foreign)
    taken: dict[str, ForeignRow] = {}
    unjoined: list[str] = []
    disagree: list[str] = []
    aside = checked = 0
    for row in foreign.rows:
        row_split = row.split or _split_of(row.key)
        if chosen == "mmmu" and row_split and row_split != chosen_split:
            aside += 1
            continue
        item, why = matcher.find(row)
        if item is not None and row.content and matcher.scheme.startswith("position"):
            if _normal(row.content) != _normal([str(o) for o in item.options]):
                disagree.append(f"{row.where} (position {row.key}): the file's options {list(row.content)[:4]}..., "
                                f"{item.id} in {to_caller(cli='--data', python='the data')} has {[str(o) for o in item.options][:4]}...")
                continue
            checked += 1
        if item is None:
            unjoined.append(f"{row.where} ({row.key}): {why}")
        elif item.id in taken:
            unjoined.append(f"{row.where} ({row.key}): a second row for {item.id} (the first, {taken[item.id].where}, is scored)")
        else:
            taken[item.id] = row
    if disagree:
        raise DataError(
            f"{foreign.path}: its rows name no item, only a position in the split, and at {len(disagree)} of "
            f"{len(disagree) + checked} positions {to_caller(cli='--data', python='the data')} holds an item with other options than the row, so no "
            f"position can be trusted; nothing scored. First: {disagree[0]}. Rescore it against the data the "
            "harness loaded (--data DIR at its revision)")
    if not taken:
        example = foreign.rows[0]
        raise DataError(
            f"{foreign.path}: no row matches an item of {dataset!r}: {example.where} has key {example.key!r}, "
            f"expected {matcher.expected()}" + (f" ({len(unjoined)} rows unmatched)" if unjoined else "")
        )
    items = tuple(it for it in dataset.items if it.id in taken)
    refine = getattr(reader, "refine", None)
    responses: dict[str, Response] = {}
    harness: dict[str, HarnessVerdict] = {}
    prompts: dict[str, str] = {}
    for item in items:
        row = taken[item.id]
        if row.error is not None or row.response is None:
            responses[item.id] = Response(item.id, "error", error=row.error or "the harness recorded no response")
        else:
            responses[item.id] = Response(item.id, "ok", text=row.response)
        if row.harness is not None:
            harness[item.id] = refine(row.harness, item, row.response) if refine else row.harness
        if row.prompt:
            prompts[item.id] = row.prompt
    notes = list(matcher.notes())
    if checked:
        notes.append(f"{checked} row(s) name no item, only a position in the split: each was checked against "
                     f"{to_caller(cli='--data', python='the data')} (its options are those of the item at its position)")
    if aside:
        notes.append(f"{aside} row(s) of another split than {chosen_split} set aside (pass {argument('split')} to score them)")
    missing = _missing(foreign, matcher.typed, taken)
    return Joined(dataset, items, responses, harness, prompts, tuple(unjoined), tuple(notes),
                  missing=missing, expected=len(items) + len(missing))


def _missing(foreign: ForeignFile, typed: Sequence[Item], taken: dict[str, ForeignRow]) -> tuple[str, ...]:
    """The items the file should cover and does not: those the harness lists as evaluated when
    it lists them (numeric ids cannot be told apart from positions, so only names count),
    else every item of its question type and subjects."""
    if foreign.expected_ids and not all(i.strip().lstrip("-").isdigit() for i in foreign.expected_ids):
        return tuple(i for i in foreign.expected_ids if i not in taken)
    wanted = {_spelling(s) for s in foreign.subjects} if foreign.subjects else None
    return tuple(it.id for it in typed if it.id not in taken
                 and (wanted is None or _spelling(it.subject) in wanted))


class _Matcher:
    """Row key -> item, under the file's index scheme."""

    def __init__(self, items: Sequence[Item], foreign: ForeignFile) -> None:
        self.items = tuple(items)
        self.scheme = foreign.index_scheme
        self.by_id = {it.id: it for it in self.items}
        self.by_spelling = {_spelling(it.id): it for it in self.items}
        self.typed = tuple(it for it in self.items if foreign.question_type in (None, it.question_type))
        self.respelled = 0
        self.by_content: dict[tuple[str, ...], list[Item]] = {}
        if self.scheme == "content":
            for it in self.items:
                for key in _content_keys(it):
                    self.by_content.setdefault(key, []).append(it)

    def find(self, row: ForeignRow) -> tuple[Item | None, str]:
        key = row.key
        if isinstance(key, str) and key.strip().lstrip("-").isdigit() and self.scheme.startswith("position"):
            key = int(key)
        if isinstance(key, str):
            if key in self.by_id:
                return self.by_id[key], ""
            item = self.by_spelling.get(_spelling(key))
            if item is not None:
                self.respelled += 1
                return item, ""
            return None, f"no item has this id among {len(self.items)} ({self.expected()})"
        if isinstance(key, int):
            if self.scheme == "position-0":
                return (self.items[key], "") if 0 <= key < len(self.items) else (None, f"position {key} is outside 0..{len(self.items) - 1}")
            if self.scheme == "position-1":
                pool = self.typed
                return (pool[key - 1], "") if 1 <= key <= len(pool) else (None, f"sample {key} is outside 1..{len(pool)}")
            if self.scheme == "content":
                return self._by_content(row)
        return None, f"its key cannot be matched ({self.expected()})"

    def _by_content(self, row: ForeignRow) -> tuple[Item | None, str]:
        if not row.content:
            return None, "no id column and no question or option texts to match it by"
        for key in (_normal(row.content), _normal(row.content[1:])):
            found = self.by_content.get(key, [])
            if len(found) == 1:
                return found[0], ""
            if len(found) > 1:
                return None, f"its question and options fit {len(found)} items ({', '.join(i.id for i in found[:3])})"
        return None, "no item has this question and these options (another dataset revision?)"

    def expected(self) -> str:
        sample = self.items[0].id if self.items else "validation_Art_1"
        return {
            "position-0": f"an id such as {sample} or a position 0..{len(self.items) - 1}",
            "position-1": f"an id such as {sample} or a sample number 1..{len(self.typed)}",
            "content": f"an id such as {sample}, or the item's question and options",
        }.get(self.scheme, f"an id such as {sample}")

    def notes(self) -> list[str]:
        if not self.respelled:
            return []
        return [f"{self.respelled} id(s) written another way (case, '-' or spaces) were read as our ids"]


def _one(rows: Sequence[ForeignRow], field: str, path: str) -> str | None:
    """The one value rows give for ``field``; ConfigError when they give several."""
    counts = Counter(getattr(r, field) for r in rows if getattr(r, field))
    if len(counts) > 1:
        shown = ", ".join(f"{n} row(s) {v}" for v, n in counts.most_common())
        raise ConfigError(f"{path}: the file mixes {field}s ({shown}); a run scores one {field}: "
                          "split the file and rescore each part")
    return next(iter(counts), None)


_SPLIT_PREFIX = re.compile(r"^(dev|validation|test)_", re.I)


def _split_of(key: object) -> str | None:
    match = _SPLIT_PREFIX.match(key) if isinstance(key, str) else None
    return match[1].lower() if match else None


def _spelling(item_id: str) -> str:
    return re.sub(r"[\s\-]+", "_", item_id.strip()).lower()


def _normal(texts: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(str(t).split()) for t in texts)


def _content_keys(item: Item) -> list[tuple[str, ...]]:
    options = [o if isinstance(o, str) else str(o) for o in item.options]
    keys = [_normal(options)]
    if item.question:
        keys.insert(0, _normal([item.question, *options]))
    return keys
