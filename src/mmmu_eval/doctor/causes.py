"""The causes that could move a run's figure, each counted from the run itself.

A cause names the scored items it concerns and the most points (of the headline accuracy, in
percentage points) it can account for. For a cause that touches scored items, that is the share
of them the headline judged wrong: had the cause not been there, at most those could have been
right (``points``); and the share judged right is the most it could have cost the other way
(``points_down``). Errors and coverage concern items that were never scored: their bound is how
far the figure moves if every one of them had been right (or wrong).

Nothing here guesses: each number is a count over the run's responses, verdicts and manifest.
The report's doctor section (``html_causes.py``) and ``mmmu-eval doctor`` both read them here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mmmu_eval.core.records import Item, Response, is_refusal
from mmmu_eval.core.numbers import fixed, pct, percent, points, rounded
from mmmu_eval.results.scope import FULL_SIZE
from mmmu_eval.scoring.scorer import Scoring
from mmmu_eval.scoring.boxed import last_boxed
from mmmu_eval.scoring.strict import has_answer_line
from mmmu_eval.core.manifest import Manifest

#: How many item ids a cause shows.
EXAMPLES = 5

#: The generation settings the official scripts pass (official-protocol.md); None: left to the
#: server's default. MMMU's reference (LLaVA, beam search over 128 new tokens) has no API
#: equivalent, so only values a run sets itself are compared there.
OFFICIAL_GENERATION: dict[str, dict[str, Any]] = {
    "mmmu": {"max_tokens": None, "temperature": None, "top_p": None, "seed": None},
    "mmmu-pro": {"max_tokens": 4096, "temperature": None, "top_p": None, "seed": None},
}

#: Harness causes (``scoring.explain.CAUSES``) grouped as the doctor names them.
_JUDGE_CAUSES = ("judge",)


@dataclass(frozen=True)
class Cause:
    """One cause, with the scored items it concerns and its bounds in percentage points."""

    cause: str
    """Its name: ``truncated``, ``unparsed``, ``refusal``, ``sampling``, ``prompt``, ``images``,
    ``errors``, ``coverage``, ``judge`` or ``parser`` (docs/doctor.md, "Causes")."""
    items: int
    """Items it concerns."""
    points: float
    """The most it can have cost the figure, in percentage points: a bound, the worst case."""
    detail: dict[str, Any]
    """Its counts, by cause (docs/doctor.md lists each one's keys)."""
    examples: list[str]
    """The first few item ids it concerns (at most ``EXAMPLES``)."""
    points_down: float = 0.0
    """The most it can have added to the figure, in percentage points (the other way)."""
    wrong: frozenset[str] = field(default=frozenset(), repr=False)
    """Scored items concerned that the headline judged wrong (``points`` counts them)."""
    right: frozenset[str] = field(default=frozenset(), repr=False)
    """Scored items concerned that the headline judged right (``points_down`` counts them).
    Both are empty for causes whose bound is not over scored items (errors, coverage, judge)."""

    def to_json(self) -> dict[str, Any]:
        detail = dict(self.detail)
        detail["points_down"] = rounded(self.points_down, 4)
        return {"cause": self.cause, "items": self.items, "points": rounded(self.points, 4),
                "detail": detail, "examples": list(self.examples)}


@dataclass(frozen=True)
class _Context:
    """What every cause reads: the run, its items in order, its graded verdicts."""

    results: Mapping[str, Any]
    manifest: Manifest
    scoring: Scoring
    items: Sequence[Item]
    responses: Mapping[str, Response]
    correct: Mapping[str, bool]
    """Graded, scored items -> headline verdict."""

    @property
    def n(self) -> int:
        return len(self.correct)

    def cause(self, name: str, ids: Sequence[str], detail: dict[str, Any]) -> Cause:
        """A cause over scored items ``ids`` (dataset order kept)."""
        wrong = frozenset(i for i in ids if self.correct.get(i) is False)
        right = frozenset(i for i in ids if self.correct.get(i) is True)
        n = self.n or 1
        return Cause(name, len(ids), 100.0 * len(wrong) / n, detail, list(ids[:EXAMPLES]),
                     100.0 * len(right) / n, wrong, right)


def _generation(manifest: Manifest) -> dict[str, Any]:
    protocol = manifest.protocol
    generation = protocol.get("generation") if isinstance(protocol.get("generation"), Mapping) else {}
    config = manifest.config
    return {key: generation.get(key, config.get(key)) for key in ("max_tokens", "temperature", "top_p", "seed")}


def _unclosed_think(text: str) -> bool:
    return "<think>" in text and "</think>" not in text.rpartition("<think>")[2]


def truncated(ctx: _Context) -> Cause | None:
    limit = _generation(ctx.manifest)["max_tokens"]
    by_length, unclosed, ids = 0, 0, []
    used_all = 0
    for item in ctx.items:
        r = ctx.responses.get(item.id)
        if r is None or r.status == "error":
            continue
        cut = r.status == "truncated" or r.finish_reason == "length"
        think = _unclosed_think(r.text) or _unclosed_think(r.reasoning or "")
        if not (cut or think):
            continue
        ids.append(item.id)
        by_length += cut
        unclosed += think and not cut
        if isinstance(limit, int) and r.completion_tokens is not None and r.completion_tokens >= limit:
            used_all += 1
    if not ids:
        return None
    return ctx.cause("truncated", ids, {
        "finish_length": by_length, "unclosed_think": unclosed, "limit": limit,
        "used_all_tokens": used_all if isinstance(limit, int) else None,
        "wrong": sum(1 for i in ids if ctx.correct.get(i) is False),
    })


def unparsed(ctx: _Context) -> Cause | None:
    scoring = ctx.scoring
    headline = scoring.parsers[0]
    verdicts = scoring.verdicts[headline]
    ids = [it.id for it in ctx.items if it.id in ctx.correct and verdicts[it.id].fallback]
    texts = [ctx.responses[i].text for i in ctx.correct if i in ctx.responses]
    others = _other_parsers(ctx)
    figure = 100.0 * sum(ctx.correct.values()) / ctx.n if ctx.n else 0.0
    expected = sum(1.0 / verdicts[i].n_choices for i in ids if verdicts[i].n_choices)
    detail = {
        "parser": headline,
        "fallbacks": len(ids),
        "fallback_hits": sum(1 for i in ids if ctx.correct[i]),
        "expected_correct": rounded(expected, 4),
        "expected_points": rounded(100.0 * expected / ctx.n, 4) if ctx.n else 0.0,
        "parsers": {name: {"accuracy": rounded(acc, 4), "moves": rounded(points(acc, figure), 4)} for name, acc in others.items()},
        "boxed_share": rounded(Fraction(sum(1 for t in texts if last_boxed(t) is not None), len(texts)), 4) if texts else 0.0,
        "answer_line_share": rounded(Fraction(sum(1 for t in texts if has_answer_line(t)), len(texts)), 4) if texts else 0.0,
    }
    if not ids and all(abs(v["moves"]) < 1e-9 for v in detail["parsers"].values()):
        return None
    return ctx.cause("unparsed", ids, detail)


def _other_parsers(ctx: _Context) -> dict[str, float]:
    """The accuracy (percent) of the boxed and strict parsers, and official, on the same responses."""
    from mmmu_eval.scoring.spec import ScoringSpec

    spec = ScoringSpec.from_manifest(ctx.manifest)
    names = [p for p in ("official", "boxed", "strict") if p != spec.parsers[0]]
    scoring = spec.replace(parsers=(spec.parsers[0], *names)).score(ctx.items, ctx.responses)
    return {name: 100.0 * scoring.aggregates[name].overall.accuracy for name in names}


def refusal(ctx: _Context) -> Cause | None:
    """Scored answers that were refusals (``message.refusal``, or a content filter's stop): the
    model declined, so its letter, if any, is the fallback's, not an answer to the question."""
    scoring = ctx.scoring
    verdicts = scoring.verdicts[scoring.parsers[0]]
    ids = [it.id for it in ctx.items if it.id in ctx.correct and is_refusal(ctx.responses[it.id])]
    if not ids:
        return None
    filtered = sum(1 for i in ids if ctx.responses[i].finish_reason == "content_filter")
    return ctx.cause("refusal", ids, {
        "refused": len(ids) - filtered, "content_filter": filtered,
        "fallbacks": sum(1 for i in ids if verdicts[i].fallback),
        "wrong": sum(1 for i in ids if ctx.correct.get(i) is False),
    })


def sampling(ctx: _Context) -> Cause | None:
    benchmark = str(ctx.results.get("benchmark") or "mmmu")
    official = OFFICIAL_GENERATION.get(benchmark, OFFICIAL_GENERATION["mmmu"])
    if ctx.manifest.get("rescored_from"):
        return None  # the harness's settings are not recorded
    used = _generation(ctx.manifest)
    differs = {}
    for key, value in used.items():
        if value is None or value == official[key]:
            continue
        differs[key] = {"run": value, "official": official[key]}
    if not differs:
        return None
    ids = [it.id for it in ctx.items if it.id in ctx.correct]
    return ctx.cause("sampling", ids, {"differs": differs, "run": used, "official": official,
                                       "source": "official-protocol.md (the official scripts' generation settings)"})


def prompt(ctx: _Context) -> Cause | None:
    protocol = ctx.manifest.protocol
    if protocol.get("official") is not False:
        return None
    ids = [it.id for it in ctx.items if it.id in ctx.correct]
    return ctx.cause("prompt", ids, {
        "mode": protocol.get("mode"), "image_layout": protocol.get("image_layout"),
        "system": protocol.get("system"), "fingerprint": protocol.get("fingerprint"),
        "notes": list(protocol.get("notes") or ()),
    })


def images(ctx: _Context) -> Cause | None:
    unref = ctx.manifest.get("unreferenced_images") or {}
    sent = [i for i in unref.get("ids") or () if unref.get("sent")]
    scaled: dict[str, list[str]] = {}
    for item in ctx.items:
        r = ctx.responses.get(item.id)
        notes = [n for n in (r.notes if r else ()) if n.startswith("down-scaled ")]
        if notes:
            scaled[item.id] = notes
    if not sent and not scaled:
        return None
    order = {it.id: k for k, it in enumerate(ctx.items)}
    ids = sorted(set(sent) | set(scaled), key=lambda i: order.get(i, len(order)))
    sizes = sorted({n.split(" to ", 1)[1].split(" ", 1)[0] for notes in scaled.values() for n in notes})
    return ctx.cause("images", ids, {
        "unreferenced_rule": unref.get("rule"), "unreferenced_sent": len(sent),
        "downscaled_items": len(scaled), "downscaled_images": sum(len(v) for v in scaled.values()),
        "downscaled_to": sizes, "max_image_pixels": ctx.manifest.config.get("max_image_pixels"),
    })


def _unscored_bound(ctx: _Context, missing: int) -> tuple[float, float]:
    """How far the figure moves, up and down, if ``missing`` more items had all been right (or wrong)."""
    n, right = ctx.n, sum(ctx.correct.values())
    if not missing or not n:
        return 0.0, 0.0
    now = right / n
    return 100.0 * ((right + missing) / (n + missing) - now), 100.0 * (now - right / (n + missing))


def errors(ctx: _Context) -> Cause | None:
    coverage = ctx.results["coverage"]
    ids = list(coverage["error_ids"]) + list(coverage["missing_ids"])
    if not ids:
        return None
    up, down = _unscored_bound(ctx, len(ids))
    first = [str(ctx.responses[i].error) for i in coverage["error_ids"][:EXAMPLES] if i in ctx.responses]
    return Cause("errors", len(ids), up, {"errors": coverage["errors"], "missing": coverage["missing"],
                                          "first_errors": first}, ids[:EXAMPLES], points_down=down)


def coverage(ctx: _Context) -> Cause | None:
    results, config = ctx.results, ctx.manifest.config
    from mmmu_eval.published.figures import score_key

    key = score_key(results["benchmark"], results.get("split"), results.get("setting"))
    full = FULL_SIZE.get(key)
    asked = results["coverage"]["items"]
    subset = {k: config.get(k) for k in ("subjects", "sample", "limit", "ids", "shard") if config.get(k)}
    if config.get("data") == "sample":
        subset["data"] = "sample"
    if not subset and (full is None or asked >= full):
        return None
    left = max((full or asked) - asked, 0)
    up, down = _unscored_bound(ctx, left)
    return Cause("coverage", left, up, {"evaluated": asked, "full_set": full, "subset": subset},
                 [], points_down=down)


def harness(ctx: _Context) -> list[Cause]:
    """``judge`` and ``parser``: a rescored run's items where the harness's verdict differs from ours."""
    section = ctx.results.get("harness")
    if not isinstance(section, Mapping) or not section.get("items"):
        return []
    out = []
    for name, wanted in (("judge", lambda c: c in _JUDGE_CAUSES), ("parser", lambda c: c not in _JUDGE_CAUSES)):
        rows = [row for row in section["items"] if wanted(row["cause"])]
        if not rows:
            continue
        by: dict[str, int] = {}
        for row in rows:
            by[row["cause"]] = by.get(row["cause"], 0) + 1
        n = section["n"] or 1
        harness_right = sum(1 for row in rows if row["harness"]["correct"])
        official_right = sum(1 for row in rows if row["official"]["correct"])
        # each differing item moves the harness's figure from ours by one item, either way
        out.append(Cause(name, len(rows), 100.0 * len(rows) / n, {
            "harness": section["name"], "by_cause": by, "harness_only_right": harness_right,
            "official_only_right": official_right,
            "net_points": percent(Fraction(harness_right - official_right, n), 4),
        }, [row["id"] for row in rows[:EXAMPLES]], 100.0 * len(rows) / n))
    return out


def find_causes(
    results: Mapping[str, Any],
    manifest: Mapping[str, Any],
    items: Sequence[Item],
    responses: Mapping[str, Response],
    scoring: Scoring,
) -> list[Cause]:
    """Every cause a run shows, largest ``points`` first (ties: the order of this module).

    Takes what ``report`` has in hand (``results.finished_run.load_run(..., details=True)``, or the
    pieces ``report.html`` is given), so the page and the command say the same.
    """
    verdicts = scoring.verdicts[scoring.parsers[0]]
    correct = {it.id: bool(verdicts[it.id].correct) for it in items
               if it.id in verdicts and it.answer is not None and it.id in responses
               and responses[it.id].status != "error"}
    ctx = _Context(results, Manifest.of(manifest), scoring, items, responses, correct)
    found = [c for c in (truncated(ctx), unparsed(ctx), refusal(ctx), sampling(ctx), prompt(ctx), images(ctx),
                         errors(ctx), coverage(ctx)) if c is not None]
    found.extend(harness(ctx))
    return sorted(found, key=lambda c: -c.points)


def cause_line(c: Cause) -> str:
    """One cause in words, every figure from its detail (the terminal line and the report row)."""
    d = c.detail
    if c.cause == "truncated":
        limit = "no token limit recorded" if d["limit"] is None else f"limit {d['limit']} tokens"
        used = "" if d["used_all_tokens"] is None else f", {d['used_all_tokens']} used it all"
        return f"cut at the limit ({d['finish_length']}) or <think> never closed ({d['unclosed_think']}); {limit}{used}"
    if c.cause == "unparsed":
        moves = "; ".join(f"{k} {fixed(v['accuracy'], 2)}% ({fixed(v['moves'], 2, signed=True)})" for k, v in d["parsers"].items())
        return (f"{d['fallbacks']} {d['parser']} fallbacks ({d['fallback_hits']} lucky, worth {fixed(d['expected_points'], 2)} "
                f"points at expected value); {moves}; \\boxed{{}} in {pct(d['boxed_share'])}%, "
                f"Answer: line in {pct(d['answer_line_share'])}%")
    if c.cause == "refusal":
        return (f"the model refused {d['refused']}, a content filter stopped {d['content_filter']}; scored as their "
                f"text reads ({d['fallbacks']} by the random fallback), {d['wrong']} wrong")
    if c.cause == "sampling":
        return "; ".join(f"{k} {v['run']} (official {v['official'] if v['official'] is not None else 'unset'})"
                         for k, v in d["differs"].items())
    if c.cause == "prompt":
        return f"not the official protocol: mode {d['mode']}, layout {d['image_layout']}" + (
            f"; {'; '.join(d['notes'])}" if d["notes"] else "")
    if c.cause == "images":
        return (f"unreferenced images sent ({d['unreferenced_sent']} items, rule {d['unreferenced_rule']}); "
                f"{d['downscaled_images']} images down-scaled in {d['downscaled_items']} items"
                + (f" to {', '.join(d['downscaled_to'])}" if d["downscaled_to"] else ""))
    if c.cause == "errors":
        return f"{d['errors']} failed, {d['missing']} never answered (not scored)"
    if c.cause == "coverage":
        full = "" if d["full_set"] is None else f" of {d['full_set']}"
        return f"{d['evaluated']}{full} items evaluated" + (
            f"; subset {', '.join(f'{k}={_short(v)}' for k, v in d['subset'].items())}" if d["subset"] else "")
    if c.cause in ("judge", "parser"):
        causes = ", ".join(f"{k} {v}" for k, v in d["by_cause"].items())
        return (f"{d['harness']} differs ({causes}): harness only right {d['harness_only_right']}, "
                f"official only right {d['official_only_right']} ({fixed(d['net_points'], 2, signed=True)} net)")
    return ""


def _short(value: object) -> str:
    return f"{len(value)} listed" if isinstance(value, (list, tuple)) and len(value) > 3 else str(value)
