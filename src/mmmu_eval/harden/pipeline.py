"""``all``: filter, augment and render with one command, into one directory, with one report.

Each step reads the directory the previous one wrote and extends it in place (``outdir.py``),
so the result is the same as running the three commands one after the other with
``--data OUT --out OUT``, and running ``all`` again resumes whichever step had not finished.
A step that ends incomplete (trials or proposals not yet asked) stops the chain there.

For example (the augment step asks a server, so this is a sketch, not a doctest)::

    result = harden_all("sample", "hard", models="frequent,frequent,frequent,random", augment_model="openai:gpt-4o")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rich.console import Console

from mmmu_eval.aio import run_coroutine
from mmmu_eval.harden.augment import harden_augment_async
from mmmu_eval.harden.filter import PER_SUBJECT, harden_filter_async
from mmmu_eval.harden.outdir import StepResult, one_writer
from mmmu_eval.harden.render import WORKERS, harden_render_async
from mmmu_eval.run.progress import Display

__all__ = ["harden_all", "harden_all_async"]


@one_writer("all")
async def harden_all_async(
    data: str | Path,
    out: str | Path,
    *,
    models: str | Sequence[str],
    augment_model: str,
    trials: int = 10,
    min_models: int | None = None,
    per_subject: int | None = PER_SUBJECT,
    seed: int = 0,
    temperature: float | None = None,
    base_urls: Sequence[str] | None = None,
    run_settings: dict[str, Any] | None = None,
    options: int = 10,
    attempts: int = 3,
    augment_temperature: float | None = 0.7,
    augment_max_tokens: int | None = 1024,
    augment_base_urls: Sequence[str] | None = None,
    position_dependent: str = "keep",
    check_trials: int | None = None,
    workers: int = WORKERS,
    render_options: dict[str, Any] | None = None,
    split: str | None = None,
    subjects: Sequence[str] | None = None,
    limit: int | None = None,
    default_subject: str | None = None,
    display: Display | None = None,
    console: Console | None = None,
) -> StepResult:
    """The three steps in order; the arguments are theirs (``augment_*`` are augment's).

    Returns:
        The StepResult of the last step that ran, as step ``all``, with every step's problems
        and messages.
    """
    results: list[StepResult] = []
    first = await harden_filter_async(
        data, out, models=models, trials=trials, min_models=min_models, per_subject=per_subject, seed=seed,
        temperature=temperature, base_urls=base_urls, run_settings=run_settings, split=split, subjects=subjects,
        limit=limit, default_subject=default_subject, display=display,
    )
    results.append(first)
    if first.status == "complete":
        second = await harden_augment_async(
            first.out, first.out, model=augment_model, options=options, attempts=attempts, seed=seed,
            temperature=augment_temperature, max_tokens=augment_max_tokens, base_urls=augment_base_urls or base_urls,
            run_settings=run_settings, position_dependent=position_dependent, check_trials=check_trials, display=display,
        )
        results.append(second)
        if second.status == "complete":
            results.append(await harden_render_async(second.out, second.out, seed=seed, workers=workers, console=console, **(render_options or {})))
    last = results[-1]
    problems = tuple(p for r in results for p in r.problems)
    unique = tuple(dict.fromkeys(problems))
    messages = tuple(m for r in results for m in r.messages)
    return StepResult(last.out, last.record, "all", last.status if len(results) == 3 else "incomplete", unique, messages)


def harden_all(data: str | Path, out: str | Path, **options: Any) -> StepResult:
    """``harden_all_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_all_async(data, out, **options))
