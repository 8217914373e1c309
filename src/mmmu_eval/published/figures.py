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
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.numbers import fixed, interval, pct


@dataclass(frozen=True, slots=True)
class Source:
    """Where a published figure comes from."""

    key: str
    """Short id used by entries (``mmmu-pro-table1``)."""
    title: str
    url: str
    note: str
    """What the figures mean (e.g. best of direct and CoT)."""
    protocol: dict = field(default_factory=dict)
    """How the figures were made, as the source says: ``prompts`` (the prompt modes run),
    ``best_of`` (the better of them reported), ``data_revision`` (a build in ``revisions()``, or
    None when not stated), ``max_tokens`` (None when not stated), ``note``."""


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
    snapshot: str | None = None
    """The model version the figure is of, where the source names one (``gpt-4o-2024-05-13``)."""
    details: dict = field(default_factory=dict, compare=False, hash=False)
    """What a leaderboard row says of itself beside its figure: ``date``, ``kind``, ``size``,
    ``link``, ``reported_by`` (who ran it, per benchmark); empty for the papers' rows."""


def score_key(benchmark: str, split: str | None, setting: str | None) -> str:
    """The published-score key of a run: ``mmmu/validation`` or ``mmmu-pro/vision``."""
    return f"mmmu-pro/{setting}" if benchmark == "mmmu-pro" else f"mmmu/{split}"


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("mmmu_eval.published").joinpath("published.json").read_text(encoding="utf-8")
    return json.loads(text)


def sources() -> dict[str, Source]:
    """Every source, by key."""
    return {k: Source(k, v["title"], v["url"], v["note"], dict(v.get("protocol") or {})) for k, v in _data()["sources"].items()}


def published_for(key: str) -> list[Published]:
    """Published accuracies for one key, best first; empty when nothing was published (dev).

    >>> [p.model for p in published_for("mmmu/test")][:2]
    ['GPT-4V', 'BLIP-2 FLAN-T5-XXL']
    """
    rows = [
        Published(e["model"], e["source"], bool(e["baseline"]), float(e["scores"][key]), e.get("snapshot"))
        for e in _data()["entries"]
        if key in e["scores"]
    ]
    return sorted(rows, key=lambda p: -p.percent)


def leaderboard_for(key: str) -> list[Published]:
    """The official MMMU leaderboard's rows for one key (``published.json`` ``leaderboard``), best
    first: today's models by name, each figure as its reporter gave it (source
    ``mmmu-leaderboard-2026``). Kept apart from ``published_for``, the papers' tables the report
    shows.

    >>> [p.model for p in leaderboard_for("mmmu-pro/vision")][:2]
    ['Chance Vision 1.5', 'GPT-4o (0513)']
    """
    block = _data()["leaderboard"]
    rows = [Published(r["model"], block["source"], False, float(r["scores"][key]), None,
                      {k: r[k] for k in ("date", "kind", "size", "link", "reported_by") if r.get(k) not in (None, "", "-")})
            for r in block["rows"] if key in r["scores"]]
    return sorted(rows, key=lambda p: -p.percent)


def leaderboard_source() -> str:
    """The source key of the official MMMU leaderboard's rows (``published.json`` ``leaderboard``)."""
    return str(_data()["leaderboard"]["source"])


def name_key(name: str) -> str:
    """A model name as matched: case, spaces, hyphens and underscores ignored (``Qwen2.5-VL-72B``
    finds the leaderboard's ``Qwen2.5-VL 72B``); dots kept (``llava1.5`` is not ``llava15``).

    >>> name_key("Qwen2.5-VL 72B") == name_key("qwen2.5_vl-72b")
    True
    """
    return re.sub(r"[\s_\-\u2010-\u2014]+", "", name.strip().lower())


def find_published(name: str, key: str, *, exact: bool = False) -> Published:
    """A model's published row for one key, by name: matched exactly (``name_key``), else as a
    unique part of a published name (not with ``exact``); first in the papers' tables, then in
    the official MMMU leaderboard's rows (today's models, as their reporters gave them).

    >>> row = find_published("claude opus 4.5", "mmmu-pro/overall")
    >>> row.model, row.percent, row.source, row.details["reported_by"]
    ('Claude Opus 4.5', 73.9, 'mmmu-leaderboard-2026', {'mmmu/validation': 'author', 'mmmu-pro': 'author'})

    Raises:
        ConfigError: no model of that name (or several) is published for ``key``.
    """
    wanted = name_key(name)
    for rows in (published_for(key), leaderboard_for(key)):
        same = [r for r in rows if name_key(r.model) == wanted]
        found = same or ([] if exact else [r for r in rows if wanted and wanted in name_key(r.model)])
        if len({r.model for r in found}) > 1 and not same:
            raise ConfigError(f"--published {name!r} matches several models published for {key}: "
                              + ", ".join(sorted({r.model for r in found})))
        if found:
            return found[0]
    elsewhere = sorted({k for e in (*_data()["entries"], *_data()["leaderboard"]["rows"])
                        if name_key(e["model"]) == wanted for k in e["scores"]})
    if elsewhere:
        raise ConfigError(f"--published {name!r} has no published figure for {key}; it has one for "
                          + ", ".join(elsewhere))
    known = ", ".join(r.model for r in published_for(key)) or "none"
    others = len(leaderboard_for(key))
    raise ConfigError(f"--published {name!r}: no model of that name is published for {key} (published: {known}"
                      + (f"; and {others} rows of the MMMU leaderboard, none of that name)" if others else ")"))


def per_prompt(model: str) -> dict | None:
    """A model's official MMMU-Pro counts per prompt (``{"model", "table1", "counts": {setting:
    {"direct": k, "cot": k}}, "n", "source"}``), matched by the model's file name or its Table 1
    name (case-insensitive); None when the official summary has no such model.

    >>> per_prompt("InternVL2-Llama3-76B")["counts"]["standard-10"]
    {'direct': 653, 'cot': 730}
    """
    block = _data()["per_prompt"]
    name = model.strip().lower()
    for row in block["models"]:
        if name in (row["model"].lower(), row["table1"].lower()):
            return {**row, "n": block["n"], "source": block["source"]}
    return None


def revisions() -> dict:
    """The MMMU-Pro data builds, told apart by digests of the items that changed between them
    (``{"note", "settings", "builds": {build: {item id: digest}}}``)."""
    return _data()["revisions"]


# -- the MMMU human experts -------------------------------------------------------------------

#: What ``expert_levels`` says of each level: the whole interval at or above it, wholly below, or neither.
REACHES = ("yes", "no", "within interval")
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class ExpertLevel:
    """One tier of the MMMU human experts on the validation set."""

    name: str
    """``Human Expert (Low)``, as the leaderboard names it."""
    level: str
    """``low``, ``medium`` or ``high``."""
    percent: float
    """Validation accuracy in percent, as published."""


def experts() -> tuple[ExpertLevel, ...]:
    """The three expert tiers, lowest first (published.json ``experts``)."""
    return tuple(ExpertLevel(e["name"], e["level"], float(e["percent"])) for e in _data()["experts"]["levels"])


def experts_source() -> Source:
    """Where the expert figures come from (the MMMU leaderboard, 2024-01-31)."""
    return sources()[_data()["experts"]["source"]]


def expert_levels(accuracy: float, ci95: tuple[float, float] | None) -> list[dict]:
    """Place an MMMU validation accuracy against the three human-expert tiers.

    A tier is reached ("yes") only when the whole 95% interval is at or above it, and missed
    ("no") only when the whole interval is below it; otherwise the data cannot tell
    ("within interval"). Without an interval the point estimate decides.

    Args:
        accuracy: the model's MMMU validation accuracy as a fraction in [0, 1] (as results.json).
        ci95: its 95% interval ``(low, high)`` as fractions, or None.

    Returns:
        One dict per tier, lowest first: ``name``, ``level``, ``percent`` (published, in %),
        ``score`` (the same as a fraction), ``reaches`` (one of ``REACHES``).

    Raises:
        ValueError: a value outside [0, 1] (a percentage passed by mistake), or no accuracy at all
            (None: a run with no scored item has no place among the experts, not the bottom one).

    >>> [x["reaches"] for x in expert_levels(0.80, (0.77, 0.83))]
    ['yes', 'within interval', 'no']
    """
    if accuracy is None:
        raise ValueError("expert_levels needs an accuracy; a run with no scored item has none (results.caveats.void)")
    low, high = (accuracy, accuracy) if ci95 is None else (float(ci95[0]), float(ci95[1]))
    for value in (accuracy, low, high):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"expert_levels takes fractions in [0, 1], not {value!r} (a percentage?)")
    out = []
    for tier in experts():
        score = tier.percent / 100
        if low >= score - _EPSILON:  # so that 381/500 = 0.762 reaches 76.2 despite float rounding
            reaches = "yes"
        elif high < score - _EPSILON:
            reaches = "no"
        else:
            reaches = "within interval"
        out.append({"name": tier.name, "level": tier.level, "percent": tier.percent, "score": round(score, 6), "reaches": reaches})
    return out


def expert_line(accuracy: float, ci95: tuple[float, float] | None) -> str:
    """One plain sentence: which expert tiers the model reaches, misses, or cannot be told from.

    >>> expert_line(0.80, (0.77, 0.83))
    'MMMU validation 80.0% (95% CI [77.0, 83.0]) against human experts (Low 76.2%, Medium 82.6%, High 88.6%; MMMU leaderboard, 2024-01-31): reaches Low; Medium lies within the interval (undecided); below High.'
    """
    levels = expert_levels(accuracy, ci95)
    where = f"{pct(accuracy)}%"
    if ci95 is not None:
        where += f" (95% CI {interval(ci95)})"
    tiers = ", ".join(f"{x['level'].capitalize()} {fixed(x['percent'])}%" for x in levels)
    by = {r: [x["level"].capitalize() for x in levels if x["reaches"] == r] for r in REACHES}
    if len(by["yes"]) == len(levels):
        verdict = "reaches all three tiers"
    elif len(by["no"]) == len(levels):
        verdict = "below all three tiers"
    else:
        parts = []
        if by["yes"]:
            parts.append("reaches " + _and(by["yes"]))
        if by["within interval"]:
            inside = by["within interval"]
            verb = "lies" if len(inside) == 1 else "lie"
            parts.append(f"{_and(inside)} {verb} within the interval (undecided)")
        if by["no"]:
            parts.append("below " + _and(by["no"]))
        verdict = "; ".join(parts)
    return f"MMMU validation {where} against human experts ({tiers}; MMMU leaderboard, 2024-01-31): {verdict}."


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


#: Table 1's published columns: suite key -> published-score key.
TABLE1_KEYS = {
    "standard_4": "mmmu-pro/standard-4",
    "standard_10": "mmmu-pro/standard-10",
    "vision": "mmmu-pro/vision",
    "overall": "mmmu-pro/overall",
    "mmmu_val": "mmmu/validation",
}


@dataclass(frozen=True, slots=True)
class Table1Row:
    """One model's row of the MMMU-Pro paper's Table 1, as published (percent)."""

    model: str
    source: str
    baseline: bool
    scores: dict[str, float]
    """Suite key (``standard_4`` ... ``mmmu_val``) -> percent."""


def table1_rows() -> list[Table1Row]:
    """The rows of the MMMU-Pro paper's Table 1 in the paper's order (Random, Frequent, then models).

    >>> [r.model for r in table1_rows()][:3]
    ['Random Choice', 'Frequent Choice', 'GPT-4o (0513)']
    """
    return [
        Table1Row(e["model"], e["source"], bool(e["baseline"]),
                  {key: float(e["scores"][where]) for key, where in TABLE1_KEYS.items() if where in e["scores"]})
        for e in _data()["entries"]
        if "mmmu-pro/overall" in e["scores"]
    ]
