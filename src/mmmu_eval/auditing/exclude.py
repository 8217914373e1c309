"""``report --exclude-suspects FILE``: a run's accuracy with the flagged items set aside, beside the official one.

FILE is an audit's ``--json`` document (its flagged suspects are set aside) or a text file of item
ids, one per line (``#`` starts a comment). The audited figure is computed from the run's own
headline verdicts (``results.json``), over the items it scored less those set aside; it is
printed after the official figure, never instead of it, with the count set aside and the list's
path. An item is set aside by its id, whatever the setting the audit found it in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.core.numbers import pct


@dataclass(frozen=True)
class SetAside:
    """The ids to set aside and where they came from."""

    ids: frozenset[str]
    path: str
    what: str
    """``flagged suspects of an audit`` or ``ids listed``."""


@dataclass(frozen=True)
class Excluded:
    """One run's figure with the suspects set aside, beside its official figure."""

    official_correct: int
    official_n: int
    correct: int
    n: int
    set_aside: int
    """Items of this run set aside (listed ids the run did not score are not counted)."""
    listed: int
    path: str
    what: str

    def line(self) -> str:
        """The printed line: the official figure first, the audited one beside it."""
        official = pct(self.official_correct / self.official_n) if self.official_n else "–"
        audited = pct(self.correct / self.n) if self.n else "–"
        return (f"official {official}% ({self.official_correct}/{self.official_n}) · with {self.set_aside} "
                f"{self.what} set aside: {audited}% ({self.correct}/{self.n}); the official figure stands "
                f"(list: {self.path}, {self.listed} ids)")

    def to_json(self) -> dict:
        return {
            "official": {"correct": self.official_correct, "n": self.official_n,
                         "accuracy": self.official_correct / self.official_n if self.official_n else None},
            "excluding_suspects": {"correct": self.correct, "n": self.n,
                                   "accuracy": self.correct / self.n if self.n else None},
            "set_aside": self.set_aside, "listed": self.listed, "list": self.path, "what": self.what,
        }


def read_set_aside(path: str | Path) -> SetAside:
    """The ids in an audit's JSON (its flagged suspects) or in a text list.

    Raises:
        ConfigError: the file cannot be read, or is JSON that is not an audit.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--exclude-suspects {path}: cannot read it ({exc})") from None
    if text.lstrip().startswith("{"):
        try:
            doc = loads(text)
        except ValueError as exc:
            raise ConfigError(f"--exclude-suspects {path}: not valid JSON ({exc})") from None
        suspects = doc.get("suspects") if isinstance(doc, dict) else None
        if not isinstance(suspects, list) or not all(isinstance(s, dict) and isinstance(s.get("id"), str)
                                                     for s in suspects):
            raise ConfigError(f"--exclude-suspects {path}: JSON without an audit's 'suspects' list "
                              "(write one with mmmu-eval audit --json, or list ids one per line)")
        return SetAside(frozenset(s["id"] for s in suspects if s.get("flagged")), str(path), "flagged suspects")
    ids = {line.split("#", 1)[0].strip() for line in text.splitlines()}
    return SetAside(frozenset(i for i in ids if i), str(path), "listed items")


def excluding(results: Mapping, aside: SetAside) -> Excluded | None:
    """The run's figure without the items set aside; None when the run has no gold (test split)."""
    if not results.get("gold_available"):
        return None
    verdicts = results.get("verdicts") or {}
    overall = results["overall"]
    kept = [v for item_id, v in verdicts.items() if item_id not in aside.ids]
    return Excluded(
        official_correct=int(overall["correct"]), official_n=int(overall["n"]),
        correct=sum(1 for v in kept if v.get("correct")), n=len(kept),
        set_aside=len(verdicts) - len(kept), listed=len(aside.ids), path=aside.path, what=aside.what,
    )
