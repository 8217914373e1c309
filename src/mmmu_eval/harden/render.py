"""Step 3, ``render``: each question with its options and images as one screenshot: ``vision``.

MMMU-Pro (arXiv:2409.02813, section 2.2) showed each question, options included, as a
screenshot or photo, across varied backgrounds, font styles and font sizes. Here every question
of the input (the 10-option config after ``augment``, else the 4-option one) becomes a page
(``page.py``) in a style drawn from the seed, captured by headless Chromium (``browser.py``,
which checks each capture and redraws a wrong one), and for a share of them made a photo of a
screen (``photo.py``). The pages are kept under ``OUT/work/render`` as they finish, so a rerun
renders only what is missing; then ``OUT/vision`` is written with the hub's columns plus each
page's style (``writer.RENDER_COLUMNS``), which ``harden.json`` records in full. Items per
second are printed and recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console

from mmmu_eval.core.aio import run_coroutine
from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.core.errors import ConfigError, DataError, StoreError
from mmmu_eval.core.jsonfile import read_json
from mmmu_eval.screenshots.browser import Screenshotter
from mmmu_eval.harden.outdir import StepResult, config_entry, one_writer, open_out, settle_later_steps
from mmmu_eval.screenshots.item_page import BACKGROUNDS, Style, choose_style, installed_fonts, page_html
from mmmu_eval.screenshots.photo import photograph
from mmmu_eval.harden.problems import Problem
from mmmu_eval.harden.record import json_digest, versions
from mmmu_eval.harden.step_settings import RenderSettings, SourceSettings
from mmmu_eval.harden.harden_report import write_report
from mmmu_eval.harden.source import content_digest, has_config, read_source
from mmmu_eval.harden.writer import copy_config, standard_row, vision_row, write_config
from mmmu_eval.core.records import Item
from mmmu_eval.rendering.page import data_url
from mmmu_eval.core.untrusted import make_console

__all__ = ["harden_render", "harden_render_async", "render_item"]

log = logging.getLogger(__name__)


@one_writer("render")
async def harden_render_async(
    data: str | Path,
    out: str | Path,
    settings: RenderSettings | None = None,
    *,
    seed: int = 0,
    source: SourceSettings | None = None,
    console: Console | None = None,
) -> StepResult:
    """Render ``data``'s questions into ``out/vision``; see the module doc.

    Args:
        settings: workers, fonts, sizes, widths, backgrounds and the photo share (``RenderSettings``;
            default its defaults).
        seed: draws each page's style (``page.choose_style``).
        source: which questions of ``data`` are read (default all).

    For example, on the output of an augment step (headless Chromium; a sketch, not a doctest)::

        result = harden_render("hard", "hard", RenderSettings(photo_share=0.0))
    """
    settings = settings or RenderSettings()
    workers, fonts, font_sizes, page_widths = settings.workers, settings.fonts, settings.font_sizes, settings.page_widths
    backgrounds, photo_share, read = settings.backgrounds, settings.photo_share, source or SourceSettings()
    chosen_fonts = tuple(fonts) if fonts else installed_fonts()
    if not chosen_fonts:
        raise ConfigError("render found none of its fonts; install them: apt-get install fonts-dejavu-core fonts-liberation fonts-freefont-ttf (or `make browser`)")
    missing = [f for f in chosen_fonts if fonts and f not in installed_fonts()]
    if missing:
        raise ConfigError(f"--fonts: {', '.join(missing)} not installed (fontconfig knows: {', '.join(installed_fonts()) or 'none of ours'})")
    chosen_backgrounds = tuple(backgrounds) if backgrounds else tuple(BACKGROUNDS)
    unknown = [b for b in chosen_backgrounds if b not in BACKGROUNDS]
    if unknown:
        raise ConfigError(f"--backgrounds: unknown {', '.join(unknown)} (known: {', '.join(BACKGROUNDS)})")
    if not 0.0 <= photo_share <= 1.0:
        raise ConfigError(f"--photo-share must be between 0 and 1, not {photo_share}")
    for name, (low, high) in (("--font-sizes", font_sizes), ("--page-widths", page_widths)):
        if not 1 <= low <= high:
            raise ConfigError(f"{name} must be LOW-HIGH with 1 <= LOW <= HIGH, not {low}-{high}")

    probe = Path(str(data))
    setting = "standard-10" if probe.is_dir() and has_config(probe, "standard-10") else None
    source = read_source(data, setting=setting, split=read.split, subjects=read.subjects, limit=read.limit,
                         default_subject=read.default_subject)
    out, record = open_out(out, source, "render")
    problems = list(source.problems)
    if source.kind in ("harden", "mmmu-pro") and source.path is not None:
        for config in ("standard-4", "standard-10"):
            copy_config(source.path, out, config)
    else:
        written4 = write_config(out, "standard-4", source.items, standard_row, step="input")
        problems += written4.problems
        record.set_left_out("input", [*source.problems, *written4.problems])
        record.data["configs"]["standard (4 options)"] = config_entry(written4.ids, content_digest(source.items), step="input")

    styles = {it.id: choose_style(seed, it.id, chosen_fonts, font_sizes=font_sizes, page_widths=page_widths, backgrounds=chosen_backgrounds,
                                  options=it.options, photo_share=photo_share) for it in source.items}
    work = out / "work" / "render"
    work.mkdir(parents=True, exist_ok=True)
    previous = record.step("render") or {}
    section: dict[str, Any] = {
        "status": "running", "input": source.describe(), "options_from": source.setting or "the input's options",
        "seed": seed, "workers": workers, "fonts": list(chosen_fonts), "font_sizes": list(font_sizes),
        "page_widths": list(page_widths), "backgrounds": list(chosen_backgrounds), "photo_share": photo_share,
        "versions": versions("playwright", "latex2mathml"),
        "browser": previous.get("browser", "not started: every page was already rendered"),
    }
    record.set_step("render", section)
    record.save(out)

    todo = [it for it in source.items if not _cached(work, it, styles[it.id])]
    failures: list[Problem] = []
    started = time.monotonic()
    console = console or make_console(stderr=True)
    if todo:
        async with Screenshotter(workers=workers) as shots:
            started = time.monotonic()  # items per second count rendering, not the browser's start
            section["browser"] = f"Chromium {shots.version} (headless, {shots.executable})"
            done = 0
            ahead = asyncio.Semaphore(2 * workers)  # images of only a few items in memory at once

            async def one(item: Item) -> None:
                nonlocal done
                try:
                    async with ahead:
                        png = await render_item(shots, item, item.options, styles[item.id])
                except DataError as exc:
                    failures.append(Problem.from_error(exc, "render", "render", where=item.id))
                    return
                _store(work, item, styles[item.id], png, shots.redrawn.get(item.id, []))
                done += 1
                if done % 50 == 0:
                    console.print(f"rendered {done}/{len(todo)} · {done / (time.monotonic() - started):.1f} items/s")

            await asyncio.gather(*(one(it) for it in todo))
    elapsed = time.monotonic() - started
    rate = (len(todo) - len(failures)) / elapsed if todo and elapsed > 0 else None
    console.print(
        f"rendered {len(todo) - len(failures)} page(s) in {elapsed:.1f} s"
        + (f" ({rate:.1f} items/s, {workers} pages)" if rate else "")
        + (f"; {len(source.items) - len(todo)} already rendered" if len(todo) < len(source.items) else "")
    )
    failed_ids = {p.where for p in failures}
    rendered = [it for it in source.items if it.id not in failed_ids]
    written = write_config(out, "vision", rendered, lambda it: vision_row(it, _png_path(work, it).read_bytes(), it.options, str(it.answer), styles[it.id].to_json()), step="render")
    redrawn = 0
    for item in rendered:
        png = _png_path(work, item).read_bytes()
        record.item(item.id).update(subject=item.subject)
        entry = {**styles[item.id].to_json(), "sha256": hashlib.sha256(png).hexdigest(), "bytes": len(png)}
        faults = _meta(work, item).get("redrawn") or []
        if faults:
            entry["redrawn"] = faults  # what was wrong with each capture before the one kept
            redrawn += 1
        record.item(item.id)["render"] = entry
    digest = json_digest([[i, record.item(i)["render"]["sha256"]] for i in written.ids])
    settle_later_steps(out, record, "render", digest)
    section.update(
        status="complete", elapsed_s=round(elapsed, 3), items_per_s=round(rate, 2) if rate else None,
        counts={"input": len(source.items), "rendered": len(written.ids), "failed": len(failures), "reused": len(source.items) - len(todo),
                "redrawn": redrawn},
    )
    record.data["configs"]["vision"] = config_entry(written.ids, digest, step="render")
    record.set_left_out("render", [*failures, *written.problems])
    record.save(out)
    write_report(out, record)
    return StepResult(out, record, "render", "complete", tuple(problems + failures + list(written.problems)))


async def render_item(shots: Screenshotter, item: Item, options: Sequence[str], style: Style) -> bytes:
    """The page of one item in one style, a screenshot or its photo (DataError naming it when an image cannot be read).

    The page embeds each image as every page does (``rendering.page.data_url``): the stored bytes,
    or a PNG of a format Chromium may not show; the dataset's own image columns keep the stored bytes.
    """
    images = {}
    for ref in item.images:
        data = await asyncio.to_thread(ref.load)
        try:
            images[ref.field] = await asyncio.to_thread(data_url, data)
        except Exception as exc:  # bytes of no format a browser shows, which PIL cannot read either
            raise DataError(f"{ref.field}: cannot be shown on the page ({type(exc).__name__}: {exc})") from None
    png = await shots.capture(page_html(item, options, style, images), width=style.page_width, label=item.id)
    if style.medium == "photo" and style.photo is not None:
        return await asyncio.to_thread(photograph, png, style.photo, item.id)
    return png


def _png_path(work: Path, item: Item) -> Path:
    return work / f"{hashlib.sha256(item.id.encode()).hexdigest()[:24]}.png"


def _key(item: Item, style: Style) -> str:
    """What a cached screenshot was made from: the item's content and its style."""
    return json_digest([content_digest([item]), style.to_json()])


def _meta(work: Path, item: Item) -> dict[str, Any]:
    """What a finished screenshot was made from, and any captures redrawn; {} when none is kept."""
    try:
        meta = read_json(_png_path(work, item).with_suffix(".json"))
    except (OSError, ValueError, StoreError):  # StoreError: a link, never followed out of the output
        return {}
    return meta if isinstance(meta, dict) else {}


def _cached(work: Path, item: Item, style: Style) -> bool:
    return _meta(work, item).get("key") == _key(item, style) and _png_path(work, item).exists()


def _store(work: Path, item: Item, style: Style, png: bytes, redrawn: Sequence[str]) -> None:
    path = _png_path(work, item)
    meta = path.with_suffix(".json")
    meta.unlink(missing_ok=True)  # a PNG without its metadata is never taken as finished
    write_atomically(path, png)
    write_atomically(meta, json.dumps({"id": item.id, "key": _key(item, style), "redrawn": list(redrawn)}))


def harden_render(
    data: str | Path,
    out: str | Path,
    settings: RenderSettings | None = None,
    *,
    seed: int = 0,
    source: SourceSettings | None = None,
    console: Console | None = None,
) -> StepResult:
    """``harden_render_async`` for scripts and the CLI (see it for the arguments)."""
    return run_coroutine(harden_render_async(data, out, settings, seed=seed, source=source, console=console))
