"""Published accuracies to place a run among, kept as data (``published.json``) with sources.

Two sources: the MMMU-Pro paper's Table 1 (arXiv:2409.02813; its MMMU (Val) column too) and the
official MMMU repository's README mini-leaderboard. The two disagree on the MMMU validation
Random/Frequent baselines (22.1/26.8 against 26.8/22.1); both are kept, each with its source,
because we cannot tell which is right.

Scores are keyed ``mmmu/<split>`` or ``mmmu-pro/<setting>`` (plus ``mmmu-pro/overall``), in
percent as published.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Source:
    """Where a published figure comes from."""

    key: str
    """Short id used by entries (``mmmu-pro-table1``)."""
    title: str
    url: str
    note: str
    """What the figures mean (e.g. best of direct and CoT)."""


@dataclass(frozen=True, slots=True)
class Published:
    """One published accuracy of one model on one benchmark variant."""

    model: str
    source: str
    """Key of its Source."""
    baseline: bool
    """True for Random Choice / Frequent Choice."""
    percent: float
    """Accuracy in percent, as published."""


def score_key(benchmark: str, split: str | None, setting: str | None) -> str:
    """The published-score key of a run: ``mmmu/validation`` or ``mmmu-pro/vision``."""
    return f"mmmu-pro/{setting}" if benchmark == "mmmu-pro" else f"mmmu/{split}"


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("mmmu_eval.report").joinpath("published.json").read_text(encoding="utf-8")
    return json.loads(text)


def sources() -> dict[str, Source]:
    """Every source, by key."""
    return {k: Source(k, v["title"], v["url"], v["note"]) for k, v in _data()["sources"].items()}


def published_for(key: str) -> list[Published]:
    """Published accuracies for one key, best first; empty when nothing was published (dev).

    >>> [p.model for p in published_for("mmmu/test")][:2]
    ['GPT-4V', 'BLIP-2 FLAN-T5-XXL']
    """
    rows = [
        Published(e["model"], e["source"], bool(e["baseline"]), float(e["scores"][key]))
        for e in _data()["entries"]
        if key in e["scores"]
    ]
    return sorted(rows, key=lambda p: -p.percent)
