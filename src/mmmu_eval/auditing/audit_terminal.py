"""The audit in the terminal: the runs, the agreement against chance, the first suspects, the rest counted.

Tables go through ``rendering.fit`` (laid out for the console's width) and every percentage through
``core.numbers.pct``, as every other table of the project.
"""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table

from mmmu_eval.auditing import Audit
from mmmu_eval.rendering.fit import print_fitted
from mmmu_eval.core.numbers import fixed, pct
from mmmu_eval.results.caveats import NO_SCORE
from mmmu_eval.core.untrusted import for_rich


def print_audit(result: Audit, console: Console, *, top: int = 20) -> None:
    """Print the audit: runs, agreement, the first ``top`` suspects and added options, problems, items."""
    runs = Table(title=f"Runs read ({len(result.runs)})", title_justify="left")
    for name, right in (("run", False), ("model", False), ("setting", False), ("items", True), ("acc %", True),
                        ("stronger", False)):
        runs.add_column(name, justify="right" if right else "left", overflow="fold", no_wrap=right)
    for r in result.runs:
        runs.add_row(for_rich(r.name), for_rich(r.model), r.setting, str(len(r.answers)), pct(r.accuracy, none=NO_SCORE),
                     "yes" if result.strong[r.name] else "no")
    print_fitted(console, runs)
    console.print("accuracy: official parser, against each run's own gold; a random fallback counts as no choice "
                  "in the votes below")
    console.print()
    for a in result.agreement:
        console.print(f"[bold]{', '.join(a.settings)}[/bold]: {a.flagged} of {a.groups} items flagged ({for_rich(a.rule)}); "
                      f"at most {fixed(a.expected_by_chance)} expected by chance (wrong answers spread evenly)")
    _suspects(result, console, top)
    _added(result, console, top)
    _structural(result, console)
    _items(result, console)
    diffs = result.revisions["differences"]
    read = sorted({str(v) for v in result.revisions["read"].values()})
    console.print(f"data revisions read: {for_rich(', '.join(read))}; {len(diffs)} item(s) differ between runs")
    console.print("Suspects are evidence for a person to check, never a verdict; no official figure is changed.")


#: Each list's title and what its consensus column holds (``forms.py``).
LISTS = {
    "gold": ("Gold suspects: the runs agree on an original option, against the gold", "consensus"),
    "augmentation": ("Augmentation suspects: the runs agree on an option the ten-option augmentation added "
                     "(the fix is to that option, not the gold)", "added option"),
    "unknown": ("Suspects whose four-option form was not read (gold or augmentation: not known)", "consensus"),
}


def _suspects(result: Audit, console: Console, top: int) -> None:
    for kind, (title, column) in LISTS.items():
        listed = result.suspects_of(kind)
        if not listed:
            continue
        shown = listed[:top]
        flagged = sum(s.flagged for s in listed)
        table = Table(title=f"{title}: first {len(shown)} of {len(listed)} ({flagged} flagged), strongest evidence first",
                      title_justify="left")
        widest = max((len(s.id) for s in shown), default=2) + len(" (not flagged)") * any(not s.flagged for s in shown)
        for name, right in (("#", True), ("id", False), ("gold", False), (column, False), ("agree", True),
                            ("stronger", True), ("gold votes", True), ("4-option gold", True), ("score", True),
                            ("chance", True)):
            table.add_column(name, justify="right" if right else "left", overflow="fold", no_wrap=right,
                             min_width=min(widest, 48) if name == "id" else None)
        for rank, s in enumerate(shown, 1):
            four = s.four_option
            table.add_row(str(rank), for_rich(s.id) + ("" if s.flagged else " (not flagged)"), for_rich(_short(s.gold)),
                          for_rich(_short(s.consensus)), f"{s.agree}/{s.answered}", f"{s.strong_agree}/{s.strong_runs}",
                          str(s.gold_votes), "-" if four is None else f"{four.gold}/{four.answered}", fixed(s.score),
                          f"{s.chance:.1e}")
        print_fitted(console, table)
    console.print("agree: runs choosing the consensus of those that chose an option; stronger: the same among the "
                  "stronger runs holding the item; 4-option gold: the four-option runs choosing the gold (- : none "
                  "holds the item); score: log10 odds that the consensus, not the gold, is right; chance: probability "
                  "of that agreement with wrong answers spread evenly")


def _added(result: Audit, console: Console, top: int) -> None:
    if not result.added:
        return
    table = Table(title=f"Added options that draw the ten-option runs where four options are answered right: "
                        f"first {min(top, len(result.added))} of {len(result.added)}", title_justify="left")
    for name, right in (("id", False), ("gold", False), ("added option", False), ("votes", True), ("4-option right", True)):
        table.add_column(name, justify="right" if right else "left", overflow="fold", no_wrap=right)
    for a in result.added[:top]:
        table.add_row(for_rich(a.id), for_rich(_short(a.gold)), for_rich(_short(a.option)), f"{a.votes}/{a.answered}",
                      f"{a.four_right}/{a.four_answered}")
    print_fitted(console, table)


def _structural(result: Audit, console: Console) -> None:
    kinds = Counter(p.kind for p in result.structural)
    items = {k: len({p.id for p in result.structural if p.kind == k}) for k in kinds}
    if not kinds:
        console.print("structural problems: none found")
        return
    table = Table(title="Structural problems", title_justify="left")
    table.add_column("kind")
    table.add_column("items", justify="right", no_wrap=True)
    table.add_column("first", overflow="fold")
    for kind in sorted(kinds):
        first = next(p for p in result.structural if p.kind == kind)
        table.add_row(kind, str(items[kind]), for_rich(f"{first.id}: {first.detail}"))
    print_fitted(console, table)


def _items(result: Audit, console: Console) -> None:
    doc = result.stats.to_json()
    console.print(f"items: {len(doc['per_item'])} across {doc['runs']} runs; {len(doc['none_right'])} no run gets "
                  f"right, {len(doc['all_right'])} every run gets right, {len(doc['negative_discrimination'])} "
                  f"with negative point-biserial discrimination; {for_rich(doc['irt'])}")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
