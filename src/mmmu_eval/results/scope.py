"""What a figure was computed on: the full split, a subset, a shard, a partial rescore, the sample.

A percentage means little without its scope. 25.0% on the four Art items of ``--subjects art``
is not a figure to set beside the human experts' 88.6% on all 900 validation items, and 10.0%
on the bundled 40-item synthetic sample is not MMMU at all. So every printer of a headline (the
terminal, ``results.json``, ``report.html``, the suite's ``suite.json`` and pages, ``doctor``)
takes the scope from here: one record, computed in one place from the run's manifest and the
number of items it evaluated, carried in ``results.json`` (key ``scope``).

Kinds, from the most to the least comparable:

- ``full``: every item of the split or setting (900 MMMU validation items, 1,730 per MMMU-Pro
  setting). The only scope that stands beside a published full-split figure by itself.
- ``sampled``: ``run --sample K``, a seeded random sample of K of the N items (the text says
  ``sampled K of N``): its figure is an estimate of the full set's score, with the interval
  ``stats.sampled`` prints, never the full figure itself.
- ``subset``: ``--subjects``, ``--limit``, ``--ids``, or a data folder that holds fewer items
  than the split; the text says which and how many items of how many.
- ``shard``: one ``--shard K/N`` of a run; ``merge`` the shards for the full figure.
- ``partial``: a rescore of another harness's file that covers part of the split (the rescore
  readers decide ``partial``; this module only words it).
- ``sample``: the bundled synthetic sample. Never placed beside published models or the
  human experts: its items are made up for testing.

>>> scope_of({"config": {"subjects": ["Art"], "data": "hub", "benchmark": "mmmu",
...           "split": "validation"}}, items=30).text
'subset: 30 of 900 items (subjects Art)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mmmu_eval.core.manifest import Manifest

__all__ = ["FULL_SIZE", "KINDS", "Scope", "combined_scope", "scope_of", "scope_of_results"]

#: Items in the full evaluated set, by published-score key (the official datasets).
FULL_SIZE = {"mmmu/dev": 150, "mmmu/validation": 900, "mmmu/test": 10500,
             "mmmu-pro/standard-10": 1730, "mmmu-pro/standard-4": 1730, "mmmu-pro/vision": 1730}

#: MMMU's splits; items of another (an unrecorded split) are never a full figure.
MMMU_SPLITS = ("dev", "validation", "test")

#: Every kind of scope, the one comparable with published full-split figures first.
KINDS = ("full", "sampled", "subset", "shard", "partial", "sample")


@dataclass(frozen=True)
class Scope:
    """The items a figure stands for, and how they were chosen."""

    kind: str
    """One of ``KINDS``."""
    items: int
    """Items evaluated (the denominator before errors and missing items drop out)."""
    of: int | None
    """Items in the full split or setting; None when unknown (a local data folder of another size)."""
    chosen_by: tuple[str, ...] = ()
    """How a subset was chosen, in words (``subjects Art``, ``--limit 10``, ``--ids (3)``); empty otherwise."""
    split: str = ""
    """What the full set is called: ``validation split``, ``standard-10 setting``."""
    population: int | None = None
    """``sampled`` only: the items the sample was drawn from (the split, or what ``--subjects`` and
    ``--ids`` left of it)."""

    @property
    def full(self) -> bool:
        """True only for every item of the real split: a figure to set beside published ones."""
        return self.kind == "full"

    @property
    def text(self) -> str:
        """One phrase for a headline: ``full validation split (900 items)``, ``subset: 4 of 900 items (subjects Art)``."""
        of = f" of {self.of:,}" if self.of else ""
        how = f" ({'; '.join(self.chosen_by)})" if self.chosen_by else ""
        if self.kind == "full":
            return f"full {self.split} ({self.items:,} items)"
        if self.kind == "sample":
            return f"bundled sample: {self.items:,} synthetic items{how}, not the benchmark"
        if self.kind == "sampled":
            whole = (f"the full {self.split}" if self.population == self.of
                     else f"those {self.population:,} items" + (f" of the {self.of:,} in the {self.split}" if self.of else ""))
            return (f"sampled {self.items:,} of {self.population or 0:,} items{how}: "
                    f"an estimate of the score on {whole}, not the full figure")
        if self.kind == "shard":
            return f"{self.chosen_by[0]}: {self.items:,}{of} items" + (
                f" ({'; '.join(self.chosen_by[1:])})" if len(self.chosen_by) > 1 else "")
        if self.kind == "partial":
            return f"partial rescore: {self.items:,}{of} items"
        return f"subset: {self.items:,}{of} items{how}"

    @property
    def caveat(self) -> str | None:
        """Why a published or expert figure is not set beside this one; None for the full split."""
        if self.kind == "full":
            return None
        if self.kind == "sample":
            return "the bundled sample is synthetic: no published model or expert figure applies"
        if self.kind == "sampled":
            return f"{self.text} (see its interval); published figures are on the full {self.split}"
        return f"{self.text}; published figures are on the full {self.split}"

    def to_json(self) -> dict[str, Any]:
        """The ``scope`` block of results.json (docs/results-schema.md)."""
        out = {"kind": self.kind, "items": self.items, "of": self.of, "chosen_by": list(self.chosen_by),
               "split": self.split, "text": self.text}
        if self.population is not None:
            out["population"] = self.population
        return out

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Scope:
        return cls(kind=str(value.get("kind", "full")), items=int(value.get("items", 0)),
                   of=value.get("of"), chosen_by=tuple(value.get("chosen_by") or ()),
                   split=str(value.get("split", "")),
                   population=None if value.get("population") is None else int(value["population"]))


def _split_name(benchmark: str, split: str | None, setting: str | None) -> tuple[str, str]:
    if benchmark == "mmmu-pro":
        return f"mmmu-pro/{setting}", f"{setting} setting"
    return f"mmmu/{split}", f"{split} split"


def scope_of(
    manifest: Manifest | Mapping[str, Any],
    *,
    items: int,
    benchmark: str | None = None,
    split: str | None = None,
    setting: str | None = None,
    partial: bool | None = None,
) -> Scope:
    """The scope of a run evaluated on ``items`` items, as its manifest says they were chosen.

    Args:
        manifest: the run's manifest.json.
        items: how many items the run evaluated.
        benchmark, split, setting: override the manifest's (the loaded items are the truth).
        partial: a rescore that covers part of the split (decided by the rescore readers); None:
            a rescored run with fewer items than the split is partial.
    """
    record = Manifest.of(manifest)
    config = record.config
    dataset = record.dataset
    benchmark = benchmark or str(config.get("benchmark") or dataset.get("benchmark") or "mmmu")
    split = split or config.get("split") or dataset.get("split") or ("test" if benchmark == "mmmu-pro" else "validation")
    setting = setting or config.get("setting") or dataset.get("setting")
    key, name = _split_name(benchmark, split, setting)
    full = FULL_SIZE.get(key)
    chosen: list[str] = []
    if config.get("subjects"):
        chosen.append("subjects " + ", ".join(str(s) for s in config["subjects"]))
    if config.get("ids"):
        chosen.append(f"--ids ({len(config['ids'])} asked)")
    if config.get("limit"):
        chosen.append(f"--limit {config['limit']}")
    sample = record.sample if isinstance(record.sample, Mapping) else None
    synthetic = config.get("data") == "sample" or dataset.get("source") == "sample"
    if sample is not None and not (synthetic or config.get("shard") or config.get("limit")):
        return Scope("sampled", items, full, (*chosen, f"seed {sample.get('seed', 0)}"), name,
                     population=int(sample.get("population") or items))
    if sample is not None:  # of the bundled sample, or a shard or the first --limit items of a sample
        chosen.insert(0, f"sampled {int(sample.get('drawn') or 0):,} of {int(sample.get('population') or 0):,}, "
                         f"seed {sample.get('seed', 0)}")
    if synthetic:
        return Scope("sample", items, None, tuple(chosen), name)
    if config.get("shard"):
        k, n = config["shard"]
        return Scope("shard", items, full, (f"shard {k}/{n}", *chosen), name)
    rescored = record.rescored_from
    if partial is None and isinstance(rescored, Mapping):
        partial = bool(rescored.get("partial")) or (full is not None and items < full)
    if partial:
        return Scope("partial", items, full, (), name)
    if benchmark == "mmmu" and split not in MMMU_SPLITS:
        # rows that name no split of MMMU (the official first era's, keyed by "No"): a figure over
        # these items, never the full figure of a split
        chosen.append(f"split {split}: the rows name none of MMMU's")
    if chosen or (full is not None and items < full):
        if not chosen:
            chosen.append("the data holds only these")
        return Scope("subset", items, full, tuple(chosen), name)
    return Scope("full", items, full, (), name)


def scope_of_results(results: Mapping[str, Any], manifest: Manifest | Mapping[str, Any] | None = None) -> Scope:
    """The scope a results.json records; for an older file without one, worked out again (``manifest``)."""
    recorded = results.get("scope")
    if isinstance(recorded, Mapping):
        return Scope.from_json(recorded)
    items = int((results.get("coverage") or {}).get("items", 0))
    return scope_of(manifest or {}, items=items, benchmark=results.get("benchmark"), split=results.get("split"),
                    setting=results.get("setting"))


def combined_scope(scopes: Mapping[str, Scope]) -> dict[str, Any]:
    """The scope of a figure made of several runs (a suite's Table 1 row): the least comparable run's.

    Returns:
        ``{"kind", "text", "runs"}``: ``kind`` the least comparable of the runs' kinds (``KINDS``
        order), ``text`` one phrase for the headline, ``runs`` each run's scope (``Scope.to_json``).
    """
    runs = {name: scope.to_json() for name, scope in scopes.items()}
    if not scopes:
        return {"kind": "full", "text": "no runs", "runs": runs}
    kind = max((s.kind for s in scopes.values()), key=KINDS.index)
    if kind == "full":
        text = "full splits: every item of each setting"
    elif kind == "sample":
        sizes = sorted({s.items for s in scopes.values()})
        many = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
        text = f"bundled sample: {many} synthetic items per run, not the benchmark"
    else:
        text = "not the full splits: " + "; ".join(f"{name} on a {s.text}" for name, s in scopes.items() if not s.full)
    return {"kind": kind, "text": text, "runs": runs}
