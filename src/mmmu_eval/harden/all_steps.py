"""``all``: filter, augment and render with one command, into one directory, with one report.

Each step reads the directory the previous one wrote and extends it in place (``outdir.py``),
so the result is the same as running the three commands one after the other with
``--data OUT --out OUT``, and running ``all`` again resumes whichever step had not finished.
A step that ends incomplete (trials or proposals not yet asked) stops the chain there.

For example (the augment step asks a server, so this is a sketch, not a doctest)::

    result = harden_all("sample", "hard", filter=FilterSettings(models="frequent,frequent,frequent,random"),
                        augment=AugmentSettings(model="openai:gpt-4o"))
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console

from mmmu_eval.core.renamed import renamed_keywords
from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.harden.augment import harden_augment_async
from mmmu_eval.harden.filter import harden_filter_async
from mmmu_eval.harden.outdir import StepResult, one_writer
from mmmu_eval.harden.render import harden_render_async
from mmmu_eval.harden.step_settings import AugmentSettings, FilterSettings, RenderSettings, SourceSettings
from mmmu_eval.run.progress import Display
from mmmu_eval.run.resolve import RunConfigArgs

__all__ = ["harden_all", "harden_all_async"]


@one_writer("all")
@renamed_keywords(seed="draw_seed")
async def harden_all_async(
    data: str | Path,
    out: str | Path,
    *,
    filter: FilterSettings,
    augment: AugmentSettings,
    render: RenderSettings | None = None,
    draw_seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
    console: Console | None = None,
) -> StepResult:
    """The three steps in order, each with its own settings (``settings.py``).

    ``draw_seed`` is every step's and ``run_settings`` every model request's (filter and augment);
    ``source`` says which questions of ``data`` the filter reads (the later steps read its
    output). Augment's model asks the filter's ``base_urls`` when its own ``base_urls`` is None.

    Returns:
        The StepResult of the last step that ran, as step ``all``, with every step's problems
        and messages.
    """
    results: list[StepResult] = []
    first = await harden_filter_async(data, out, filter, draw_seed=draw_seed, run_settings=run_settings, source=source, display=display)
    results.append(first)
    if first.status == "complete":
        asking = augment if augment.base_urls else dataclasses.replace(augment, base_urls=filter.base_urls)
        if asking.check.base_urls is None:  # the check's models are the filter's: their credentials come from its URLs
            given = (*(filter.base_urls or ()), *(asking.base_urls or ()))
            asking = dataclasses.replace(asking, check=dataclasses.replace(asking.check, base_urls=given))
        second = await harden_augment_async(first.out, first.out, asking, draw_seed=draw_seed, run_settings=run_settings, display=display)
        results.append(second)
        if second.status == "complete":
            results.append(await harden_render_async(second.out, second.out, render, draw_seed=draw_seed, console=console))
    last = results[-1]
    problems = tuple(p for r in results for p in r.problems)
    unique = tuple(dict.fromkeys(problems))
    messages = tuple(m for r in results for m in r.messages)
    return StepResult(last.out, last.record, "all", last.status if len(results) == 3 else "incomplete", unique, messages)


@renamed_keywords(seed="draw_seed")
def harden_all(
    data: str | Path,
    out: str | Path,
    *,
    filter: FilterSettings,
    augment: AugmentSettings,
    render: RenderSettings | None = None,
    draw_seed: int = 0,
    run_settings: RunConfigArgs | None = None,
    source: SourceSettings | None = None,
    display: Display | None = None,
    console: Console | None = None,
) -> StepResult:
    """``harden_all_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_all_async(
        data, out, filter=filter, augment=augment, render=render, draw_seed=draw_seed, run_settings=run_settings, source=source,
        display=display, console=console,
    ))
