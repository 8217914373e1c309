"""Terminal tables for a results.json: the headline, the official MMMU table, the breakdowns.

The official table reproduces the layout of the MMMU repository's ``print_results.py``
(official-protocol.md 5.8): rows ``Overall-<discipline>`` each followed by its subjects,
``Overall`` last, columns ``Subject | Data Num | Acc``, accuracy rounded to 3 places. Printing
the same rows in the same order lets a reader hold our output next to a paper's table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.table import Table

from mmmu_eval.dataset.subjects import DISCIPLINES
from mmmu_eval.rendering.fit import fit_table, print_fitted
from mmmu_eval.results.caveats import NO_SCORE, fallback_warning, how_to_score, ungraded, unparsed, void, void_reason
from mmmu_eval.core.numbers import interval, mean, pct
from mmmu_eval.published.figures import expert_line
from mmmu_eval.results.results_json import Results, Row
from mmmu_eval.results.scope import scope_of_results
from mmmu_eval.stats.sampled import sample_lines
from mmmu_eval.results.usage import usage_rows
from mmmu_eval.scoring.headline import HEADLINE_SETTINGS
from mmmu_eval.core.untrusted import for_rich


def official_rows(results: Results) -> list[tuple[str, int, float]]:
    """The official table's rows: (name, data num, acc rounded to 3 places).

    >>> from mmmu_eval import evaluate
    >>> from mmmu_eval.results.results_json import read_results
    >>> _ = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/a")
    >>> official_rows(read_results("runs/a"))[:2]
    [('Overall-Art and Design', 8, 0.0), ('Art', 4, 0.0)]
    """
    subjects_by_discipline: dict[str, list[str]] = {}
    for subject in results["by_subject"]:
        for discipline, members in DISCIPLINES.items():
            if subject in members:
                subjects_by_discipline.setdefault(discipline, []).append(subject)
                break
        else:
            subjects_by_discipline.setdefault("", []).append(subject)
    rows: list[tuple[str, int, float]] = []
    for discipline, row in results["by_discipline"].items():
        rows.append((f"Overall-{discipline}", row["n"], round(row["accuracy"], 3)))
        for subject in subjects_by_discipline.get(discipline, []):
            sub = results["by_subject"][subject]
            rows.append((subject, sub["n"], round(sub["accuracy"], 3)))
    overall = results["overall"]
    rows.append(("Overall", overall["n"], round(overall["accuracy"], 3)))
    return rows


def official_table_text(results: Results) -> str:
    """The official table as plain org-mode text, as ``print_results.py`` prints it."""
    rows = [(name, str(n), f"{acc:g}") for name, n, acc in official_rows(results)]
    header = ("Subject", "Data Num", "Acc")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]

    def line(cells: tuple[str, str, str], numeric: bool) -> str:
        padded = [
            cells[0].ljust(widths[0]),
            cells[1].rjust(widths[1]) if numeric else cells[1].ljust(widths[1]),
            cells[2].rjust(widths[2]) if numeric else cells[2].ljust(widths[2]),
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "+".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header, False), rule, *(line(r, True) for r in rows)])


def headline_text(results: Results) -> str:
    """The headline in plain words: benchmark, model, figure with its interval, and its scope.

    Without gold answers there is no figure: ``MMMU test · gpt-4o: no gold answers (40
    predictions, 16 of them unparsed) · full test split (10,500 items)``.
    """
    what = ("MMMU-Pro" if results["benchmark"] == "mmmu-pro" else "MMMU") + (f" {results['setting']}" if results["setting"] else "")
    what += f" {results['split']}"
    model = results["run"]["model"] or "unknown model"
    scope = scope_of_results(results).text
    if ungraded(results):
        cov = results["coverage"]
        return (f"{what} · {model}: no gold answers ({cov['ungraded']} predictions, {unparsed(results)} of them "
                f"unparsed) · {scope}")
    if void(results):
        return f"{what} · {model}: {NO_SCORE} ({void_reason(results)}) · {scope}"
    overall = results["overall"]
    return (f"{what} · {model}: {pct(overall['accuracy'])}% (95% CI {interval(overall['ci95'])}, "
            f"{overall['correct']}/{overall['n']}) · {scope}")


def caveat_lines(results: Results) -> list[tuple[str, str]]:
    """(style, text) lines under the headline: void, luck of the fallback, protocol."""
    lines = []
    if ungraded(results):
        lines.append(("yellow", f"No gold answers: no accuracy can be computed; {how_to_score(results)}."))
    elif void(results):
        lines.append(("yellow", f"No accuracy can be computed: {void_reason(results)}; {how_to_score(results)}."))
    warning = fallback_warning(results)
    if warning:
        lines.append(("bold yellow", f"Warning: {warning}."))
    if results["run"]["official"] is False:
        lines.append(("yellow", "This run did not follow the official protocol; compare with care."))
    return lines


def boxed_lines(results: Results) -> list[str]:
    """Under ``--prompt boxed``: the deterministic official accuracy beside the boxed headline.

    The official figure in the tables draws a seeded random letter for an answer it cannot
    parse; the deterministic one counts it wrong, and is what a verifiers run reports as the
    mean ``official_correct`` on the same responses (the boxed headline is its mean reward).
    """
    parsers = results.get("parsers") or {}
    boxed, official = parsers.get("boxed"), parsers.get("official")
    if results.get("run", {}).get("prompt_mode") != "boxed" or not boxed or not official:
        return []
    if "deterministic_correct" not in official or not official["n"]:
        return []
    n = official["n"]
    fixed = official["deterministic_correct"]
    return [
        f"boxed {pct(boxed['accuracy'])}% ({boxed['correct']}/{boxed['n']}) · official, fallbacks "
        f"wrong {pct(fixed / n)}% ({fixed}/{n})",
        f"  (verifiers' boxed_correct and official_correct; with the seeded random fallback "
        f"official is {pct(official['accuracy'])}%)",
    ]


def _percent(fraction: float | None) -> str:
    """``51.9%``; ``no score`` for a figure with no scored item (never 0.0%)."""
    return NO_SCORE if fraction is None else f"{pct(fraction)}%"


def _breakdown(title: str, rows: Mapping[str, Row]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(title.split(" by ")[-1], overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("correct", justify="right", no_wrap=True)
    table.add_column("acc %", justify="right", no_wrap=True)
    for key, row in rows.items():
        table.add_row(for_rich(key), str(row["n"]), str(row["correct"]), pct(row["accuracy"], none=NO_SCORE))
    return table


def official_table(results: Results) -> Table:
    """The official layout as a rich table (discipline rows bold, 95% intervals alongside)."""
    table = Table(title="Official MMMU layout", title_justify="left")
    table.add_column("Subject", overflow="fold")
    table.add_column("Data Num", justify="right", no_wrap=True)
    table.add_column("Acc", justify="right", no_wrap=True)
    table.add_column("95% CI", justify="right", style="dim", no_wrap=True)
    for name, n, acc in official_rows(results):
        if name == "Overall":
            low, high = results["overall"]["ci95"]
            table.add_section()
            table.add_row("[bold]Overall[/bold]", str(n), f"[bold]{acc:.3f}[/bold]", for_rich(interval((low, high), 3, as_is=True)))
        elif name.startswith("Overall-"):
            low, high = results["by_discipline"][name.removeprefix("Overall-")]["ci95"]
            table.add_row(f"[bold]{for_rich(name)}[/bold]", str(n), f"[bold]{acc:.3f}[/bold]", for_rich(interval((low, high), 3, as_is=True)))
        else:
            low, high = results["by_subject"][name]["ci95"]
            table.add_row(f"  {for_rich(name)}", str(n), f"{acc:.3f}", for_rich(interval((low, high), 3, as_is=True)))
    return table


def _parse_table(results: Results) -> Table:
    parse = results["parse"]
    cov = results["coverage"]
    table = Table(title="Parsing and coverage", title_justify="left", show_header=False)
    table.add_column("what", overflow="fold")
    table.add_column("value", justify="right", no_wrap=True)
    table.add_row("items / scored", f"{cov['items']} / {cov['scored']}")
    table.add_row("errors (not scored)", str(cov["errors"]))
    table.add_row("missing (no response)", str(cov["missing"]))
    if cov["truncated"] is not None:
        table.add_row("truncated (scored)", str(cov["truncated"]))
    if cov["ungraded"]:
        table.add_row("ungraded (no gold answer)", str(cov["ungraded"]))
    if cov["problems"]:
        table.add_row("inputs the official code would crash on (scored wrong)", str(len(cov["problems"])))
    rate = parse.get("fallback_rate")
    table.add_row(
        f"random fallbacks ({for_rich(parse['fallback_policy'])}, seed {parse['fallback_seed']})",
        f"{parse['fallbacks']}" + ("" if rate is None or void(results) else f" ({pct(rate)}%)"),
    )
    if void(results):  # older files hold 0.0 here: no scored item is no figure whatever the file says
        table.add_row("accuracy, fallbacks counted wrong", NO_SCORE)
        table.add_row("accuracy, fallbacks at expected value", NO_SCORE)
    else:
        table.add_row("accuracy, fallbacks counted wrong", _percent(parse["deterministic_accuracy"]))
        table.add_row("accuracy, fallbacks at expected value", _percent(parse["expected_accuracy"]))
    for name, score in list(results["parsers"].items())[1:]:
        table.add_row(f"parser {for_rich(name)}", f"{_percent(score['accuracy'] if score['n'] else None)} "
                                                f"({score['correct']}/{score['n']})")
    if len(results["parsers"]) > 1:
        table.add_row("items where parsers disagree", str(results["disagreements"]))
    return table


def expert_text(results: Results) -> str | None:
    """The human-expert line for an MMMU validation run with gold answers; None for any other run.

    The experts' tiers are on all 900 validation items: a subset's line names its scope beside
    them, and the synthetic sample gets none.
    """
    if results["benchmark"] != "mmmu" or results["split"] != "validation" or void(results):
        return None
    scope = scope_of_results(results)
    if scope.kind == "sample":
        return None
    overall = results["overall"]
    line = expert_line(overall["accuracy"], (overall["ci95"][0], overall["ci95"][1]))
    return line if scope.full else f"{line} Not like for like: {scope.caveat}."


def usage_table(results: Results) -> Table | None:
    """Requests, retries, tokens, latency and cost (results.json ``usage``); None for older files."""
    usage = results.get("usage")  # type: ignore[misc]
    if not usage:
        return None
    table = Table(title="Cost and usage", title_justify="left", show_header=False)
    table.add_column("what", overflow="fold")
    table.add_column("value", justify="right", no_wrap=True)
    for name, value in usage_rows(usage):
        table.add_row(name, for_rich(value))
    return table


def print_results(results: Results, console: Console) -> None:
    """Print the headline, the official table, the breakdowns and the parse statistics.

    >>> from mmmu_eval import evaluate
    >>> from mmmu_eval.results.results_json import read_results
    >>> _ = evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out="runs/a")
    >>> import io
    >>> out = io.StringIO()
    >>> print_results(read_results("runs/a"), Console(file=out, width=140))
    >>> out.getvalue().splitlines()[0]
    'MMMU validation · random: 10.0% (95% CI [2.5, 17.5], 4/40) · bundled sample: 40 synthetic items, not the benchmark'
    """
    console.print(f"[bold]{for_rich(headline_text(results))}[/bold]")
    for style, line in caveat_lines(results):
        console.print(f"[{style}]{for_rich(line)}[/{style}]")
    sample = results.get("sample")
    for line in sample_lines(sample) if sample else ():
        console.print(for_rich(line))
    for line in boxed_lines(results):
        console.print(for_rich(line))
    experts = expert_text(results)
    if experts:
        console.print(for_rich(experts))
    if void(results):
        # Every table but parsing and coverage would be rows of 0/0: left out, not drawn empty.
        print_fitted(console, _parse_table(results))
        return
    print_fitted(console, official_table(results))
    tables = [
        _breakdown(title, results[key])  # type: ignore[literal-required]
        for title, key in (
            ("Accuracy by question type", "by_question_type"),
            ("Accuracy by option count", "by_option_count"),
            ("Accuracy by topic difficulty", "by_topic_difficulty"),
            ("Accuracy by img_type", "by_img_type"),
        )
        if results[key]  # type: ignore[literal-required]
    ]
    console.print(Columns([fit_table(t, console) for t in tables]))
    print_fitted(console, _parse_table(results))
    usage = None if results["run"].get("rescored_from") else usage_table(results)  # the harness sent those requests
    if usage is not None:
        print_fitted(console, usage)


def print_pro_headline(headline: Mapping[str, Any], console: Console) -> None:
    """Print the cross-run MMMU-Pro headline computed by ``scoring.headline.pro_headline``."""
    value = headline.get("headline")
    if value is None:
        missing = ", ".join(headline.get("missing", [])) or "a headline setting"
        console.print(f"[bold]MMMU-Pro headline:[/bold] needs a run of {for_rich(missing)}")
    else:
        # Made from the settings' exact accuracies and rounded once, as the suite's Table 1 overall.
        settings = headline.get("settings", {})
        if all(s in settings for s in HEADLINE_SETTINGS):
            value = mean(settings[s]["accuracy"] for s in HEADLINE_SETTINGS)
        console.print(f"[bold]MMMU-Pro headline: {pct(value)}%[/bold] ({for_rich(str(headline.get('rule', '')))})")
    table = Table(title="MMMU-Pro settings", title_justify="left")
    for col in ("setting", "used", "mode used", "direct", "cot"):
        table.add_column(col, justify="left" if col in ("setting", "mode used") else "right",
                         no_wrap=col not in ("setting", "mode used"))
    for setting, row in headline.get("settings", {}).items():
        runs = row.get("runs", {})
        table.add_row(
            for_rich(setting),
            f"{pct(row['accuracy'])}%",
            for_rich(str(row.get("mode", ""))),
            *(f"{pct(runs[m])}%" if m in runs else "–" for m in ("direct", "cot")),
        )
    print_fitted(console, table)
