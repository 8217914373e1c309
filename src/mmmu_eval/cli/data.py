"""``mmmu-eval data``: look at the items and the exact prompts a run would send, or fetch a snapshot.

``data list`` shows a selection's items and counts; ``data show ID`` shows one item and the
request built from it, text verbatim with each image part marked where it goes; ``data
download`` copies the hub files a selection needs into a directory for ``--data DIR``.
Output is plain text (no markup), so the prompt printed is the prompt sent, byte for byte.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from typing import TextIO

from mmmu_eval.cli.flag_defaults import HelpFormatter, Phrase, declare, run_default
from mmmu_eval.core.config import IMAGE_LAYOUTS, MMMU_SPLITS, PRO_SETTINGS, PROMPT_MODES, UNREFERENCED_IMAGES, help_of
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.prompt import EvalProtocol, build_request, prompt_text
from mmmu_eval.prompt.layout import loose_images, question_and_options, token_numbers
from mmmu_eval.core.records import ImagePart, ImageRef, Item, Request

LIST_EXAMPLES = """examples:
  mmmu-eval data list --benchmark mmmu --split dev --data sample
  mmmu-eval data list --benchmark mmmu-pro --setting vision --data sample --subjects art
"""

SHOW_EXAMPLES = """examples:
  mmmu-eval data show validation_Art_2 --data sample
  mmmu-eval data show test_Art_Theory_2 --benchmark mmmu-pro --data sample --image-layout text-then-images
  mmmu-eval data show dev_Accounting_1 --data sample --text > prompt.txt
"""

DOWNLOAD_EXAMPLES = """examples:
  mmmu-eval data download --benchmark mmmu --split validation --subjects acc math --dest mmmu-data
  mmmu-eval data download --benchmark mmmu-pro --setting vision --dest mmmu-data
  (then, offline: mmmu-eval run --benchmark mmmu --data mmmu-data --subjects acc --model random)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "data",
        help="list items, show an item and its exact prompt, download a snapshot",
        description="Look at the items and the exact prompts a run would send, or fetch a snapshot.",
        epilog=LIST_EXAMPLES + SHOW_EXAMPLES.replace("examples:\n", "") + DOWNLOAD_EXAMPLES.replace("examples:\n", ""),
        formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="data_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: _usage(parser))

    p_list = sub.add_parser(
        "list", help="the items of a selection, and counts",
        description="List the items of a benchmark split or setting: id, subject, type, options, images.",
        epilog=LIST_EXAMPLES, formatter_class=HelpFormatter,
    )
    _selection_flags(p_list)
    declare(p_list.add_argument("--limit", type=int, help="list only the first N items (the counts cover all)"),
            run_default("limit"))
    p_list.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p_list.set_defaults(func=run_list)

    p_show = sub.add_parser(
        "show", help="one item and the exact prompt it produces",
        description=(
            "Show one item and the request built from it: text parts verbatim, each image part "
            "marked [image N: WIDTHxHEIGHT FORMAT] where it goes. MMMU items find their split "
            "and subject from the id."
        ),
        epilog=SHOW_EXAMPLES, formatter_class=HelpFormatter,
    )
    p_show.add_argument("id", metavar="ID", help="the item id, e.g. validation_Art_2")
    _selection_flags(p_show)
    p_show.add_argument("--prompt", choices=PROMPT_MODES, default="direct",
                        help="prompt mode: direct, cot, or ocr (mmmu-pro vision only; not official)")
    p_show.add_argument("--image-layout", choices=IMAGE_LAYOUTS, default="interleaved",
                        help="interleaved, images-first, or text-then-images (the official GPT script)")
    p_show.add_argument("--unreferenced-images", choices=UNREFERENCED_IMAGES, default="official",
                        help=help_of("unreferenced_images"))
    declare(p_show.add_argument("--system-prompt", help="a system message to show with the request"), run_default("system_prompt"))
    p_show.add_argument("--text", action="store_true",
                        help="print only the prompt string as the official code builds it (with --model: as the "
                             "model's template renders it), with no newline added")
    declare(p_show.add_argument("--model", metavar="hf:DIR",
                                help="also render the request through this local model's own chat template, as the model "
                                     "receives it, and name the image layout the template gave (loads the processor only)"),
            Phrase("none; the request only"))
    p_show.add_argument("--trust-remote-code", action="store_true", help="with --model: let the checkpoint run its own code")
    p_show.set_defaults(func=run_show)

    p_down = sub.add_parser(
        "download", help="copy the hub files of a selection into a snapshot directory",
        description=(
            "Download the parquet files a selection reads, at the pinned revision (or --revision), "
            "into DEST in the hub's layout, for --data DEST on a machine without network."
        ),
        epilog=DOWNLOAD_EXAMPLES, formatter_class=HelpFormatter,
    )
    _benchmark_flags(p_down)
    declare(p_down.add_argument("--subjects", nargs="+", metavar="SUBJECT", help="subjects to fetch (long or short names)"),
            run_default("subjects"))
    declare(p_down.add_argument("--revision", help="hub revision (commit, tag, branch)"), run_default("revision"))
    p_down.add_argument("--dest", required=True, help="the snapshot directory to fill")
    p_down.set_defaults(func=run_download)


def _benchmark_flags(parser: argparse.ArgumentParser) -> None:
    """Which benchmark, split and setting: the same three flags for list, show and download."""
    declare(parser.add_argument("--benchmark", choices=("mmmu", "mmmu-pro"), default=None, help="mmmu or mmmu-pro"),
            Phrase("mmmu; mmmu-pro when --setting is given"))
    declare(parser.add_argument("--split", choices=MMMU_SPLITS, help="MMMU split: dev, validation or test"),
            run_default("split"))
    declare(parser.add_argument("--setting", choices=PRO_SETTINGS, help="MMMU-Pro setting: standard-10, standard-4, vision"),
            run_default("setting"))


def _selection_flags(parser: argparse.ArgumentParser) -> None:
    _benchmark_flags(parser)
    parser.add_argument("--data", default="hub", help="hub, sample (bundled), or a snapshot directory")
    declare(parser.add_argument("--revision", help="hub revision (hub only)"), run_default("revision"))
    declare(parser.add_argument("--subjects", nargs="+", metavar="SUBJECT", help="subjects to keep (long or short names)"),
            run_default("subjects"))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _benchmark(args: argparse.Namespace) -> str:
    return args.benchmark or ("mmmu-pro" if args.setting else "mmmu")


# --- data list -------------------------------------------------------------------------------


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from mmmu_eval.dataset.load import load_dataset

    out = out or sys.stdout
    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    ds = load_dataset(_benchmark(args), split=args.split, setting=args.setting, data=args.data,
                      revision=args.revision, subjects=args.subjects)
    shown = ds.items[: args.limit] if args.limit else ds.items
    counts = _counts(ds.items)
    if args.json:
        record = {
            "benchmark": ds.benchmark, "split": ds.split, "setting": ds.setting, "source": ds.source,
            "revision": ds.revision, "digest": ds.digest, "counts": counts,
            "items": [_row(item) for item in shown],
            "problems": [str(p) for p in ds.problems],
        }
        out.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return 0
    where = ds.setting or ds.split
    out.write(f"{ds.benchmark} {where} from {ds.source} (revision {ds.revision})\n")
    rows = [("id", "subject", "type", "options", "images", "tokens")]
    for item in shown:
        r = _row(item)
        rows.append((r["id"], r["subject"], r["type"], str(r["options"]), str(r["images"]),
                     ",".join(map(str, r["tokens"])) or "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n")
    if len(shown) < len(ds.items):
        out.write(f"... {len(ds.items) - len(shown)} more (--limit {args.limit})\n")
    out.write(_counts_line(counts) + "\n")
    for problem in ds.problems:
        out.write(f"skipped: {problem}\n")
    return 0


def _row(item: Item) -> dict[str, object]:
    return {
        "id": item.id,
        "subject": item.subject,
        "type": item.question_type,
        "options": len(item.options),
        "images": len(item.images),
        # A vision item's prompt has no tokens: its one screenshot is the whole question.
        "tokens": [] if item.setting == "vision" else token_numbers(question_and_options(item)),
    }


def _counts(items: tuple[Item, ...]) -> dict[str, object]:
    by_type = Counter(i.question_type for i in items)
    by_options = Counter(len(i.options) for i in items if i.question_type == "multiple-choice")
    return {
        "items": len(items),
        "multiple_choice": by_type.get("multiple-choice", 0),
        "open": by_type.get("open", 0),
        "images": sum(len(i.images) for i in items),
        "subjects": len({i.subject for i in items}),
        "option_counts": {str(k): by_options[k] for k in sorted(by_options)},
    }


def _counts_line(c: dict[str, object]) -> str:
    options = " ".join(f"{k}:{v}" for k, v in c["option_counts"].items()) or "-"  # type: ignore[union-attr]
    return (
        f"{c['items']} items ({c['multiple_choice']} multiple-choice, {c['open']} open) in "
        f"{c['subjects']} subjects; {c['images']} images; options per question {options}"
    )


# --- data show -------------------------------------------------------------------------------


def run_show(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from mmmu_eval.dataset.load import find_item, load_dataset

    out = out or sys.stdout
    benchmark = _benchmark(args)
    split, subjects = args.split, args.subjects
    if benchmark == "mmmu":
        split, subjects = _narrow_by_id(args.id, split, subjects)
    protocol = EvalProtocol(
        benchmark, (args.setting or "standard-10") if benchmark == "mmmu-pro" else None,
        args.prompt, image_layout=args.image_layout, system=args.system_prompt,
        unreferenced_images=args.unreferenced_images,
    )
    ds = load_dataset(benchmark, split=split, setting=args.setting, data=args.data,
                      revision=args.revision, subjects=subjects)
    item = find_item(ds, args.id)
    model = _template_model(args)
    if args.text and model is None:
        out.write(prompt_text(item, protocol))
        return 0
    if args.text:
        out.write(model.render(build_request(item, protocol)))
        return 0
    _show_item(item, ds.source, ds.revision, out, appended=protocol.appends_loose_images)
    out.write("\n")
    try:
        request = build_request(item, protocol)
    except DataError as exc:
        out.write(f"prompt: cannot be built: {exc}\n")
        return 1
    _show_request(request, protocol, out)
    if model is not None:
        _show_rendered(request, protocol, model, out)
    return 0


def _template_model(args: argparse.Namespace):  # -> HFBackend | None (torch is imported only when asked)
    """The ``--model`` whose chat template renders the prompt; only a local ``hf:`` model has one here."""
    spec = getattr(args, "model", None)
    if not spec:
        return None
    if not spec.startswith("hf:") or not spec[3:]:
        raise ConfigError(
            f"--model {spec}: data show renders prompts through a local model's own chat template; give hf:DIR "
            "(a server applies its template out of sight; `mmmu-eval run --dry-run` shows what is sent to it)"
        )
    from mmmu_eval.backends.hf_transformers import HFBackend

    return HFBackend(spec[3:], trust_remote_code=args.trust_remote_code)


def _show_rendered(request: Request, protocol: EvalProtocol, model, out: TextIO) -> None:
    """The request as the model's template renders it, and the layout that gave."""
    rendered = model.render(request)
    layout = model.layout_of(request, rendered)
    if layout is None:
        seen = "no images"
    elif layout == "as-asked":
        seen = f"layout {protocol.image_layout}, as asked"
    else:
        seen = f"layout {layout}: the template moved the images (asked {protocol.image_layout})"
    out.write(f"\nrendered    by {model.spec}'s chat template, as the model receives it; {seen}\n")
    out.write("(each image placeholder becomes the model's image tokens in the processor)\n")
    for added in model.template_adds(request, rendered):
        out.write(f"the template adds, not ours: {added!r}\n")
    if model.writes_date():
        out.write("the template writes today's date (strftime_now): this prompt differs from day to day\n")
    out.write("-" * 72 + "\n")
    out.write(rendered + "\n")
    out.write("-" * 72 + "\n")


def _narrow_by_id(item_id: str, split: str | None, subjects: list[str] | None) -> tuple[str | None, list[str] | None]:
    """An MMMU id names its split and subject: read only that file (and catch a contradicting --split)."""
    from mmmu_eval.dataset.subjects import SUBJECTS, subject_from_id

    prefix = item_id.split("_", 1)[0]
    if prefix in MMMU_SPLITS:
        if split is not None and split != prefix:
            raise ConfigError(f"{item_id} is a {prefix} item; drop --split or use --split {prefix}")
        split = prefix
    if subjects is None and subject_from_id(item_id) in SUBJECTS:
        subjects = [subject_from_id(item_id)]
    return split, subjects


def _show_item(item: Item, source: str, revision: str, out: TextIO, *, appended: bool = False) -> None:
    where = f"{item.benchmark} {item.setting or item.split}"
    out.write(f"{item.id}  ({where}, {source} @ {revision})\n")
    fields = [
        ("subject", f"{item.subject} ({item.discipline})"),
        ("type", item.question_type + (f", {len(item.options)} options" if item.options else "")),
        ("answer", _answer(item.answer)),
        ("img_type", ", ".join(item.img_type) or "-"),
        ("difficulty", item.topic_difficulty or "-"),
        ("subfield", item.subfield or "-"),
    ]
    for name, value in fields:
        out.write(f"{name:<11} {value}\n")
    if item.question:
        out.write(f"question    {_indent(item.question)}\n")
    if item.options:
        out.write("options\n")
        labels = item.choices or tuple(str(i + 1) for i in range(len(item.options)))
        for label, option in zip(labels, item.options):
            out.write(f"  {label}  {_indent(option, 5)}\n")
    out.write("images\n" if item.images else "images      none\n")
    loose = {ref.field for ref in loose_images(item)}
    if appended:
        loose_remark = "  (no token refers to it: sent after the referenced images; --unreferenced-images append, not official)"
    else:
        loose_remark = "  (no token refers to it: not sent, as the official scripts do; --unreferenced-images append sends it)"
    for ref in item.images:
        remark = loose_remark if ref.field in loose else ""
        out.write(f"  {ref.field:<8} {_describe_image(ref)}{remark}\n")
    for note in item.notes:
        out.write(f"note        {note}\n")


def _show_request(request: Request, protocol: EvalProtocol, out: TextIO) -> None:
    described = protocol.describe()
    official = "official" if protocol.official else "NOT official"
    what = protocol.benchmark + (f" {protocol.setting}" if protocol.setting else "")
    out.write(
        f"prompt      {what}, {protocol.mode}, layout {protocol.image_layout}, {official}, "
        f"fingerprint {str(described['fingerprint'])[:12]}\n"
    )
    out.write(f"choices     {' '.join(request.choices) or '- (open question)'}\n")
    if request.system is not None:
        out.write(f"system      {_indent(request.system)}\n")
    out.write("(text parts verbatim; each [image ...] mark is one image part, placed where it is sent)\n")
    out.write("-" * 72 + "\n")
    out.write(_render(request, protocol.image_layout) + "\n")
    out.write("-" * 72 + "\n")


def _render(request: Request, layout: str) -> str:
    """Text parts verbatim; image parts as marks, inline for interleaved, one per line otherwise."""
    if layout == "interleaved":
        return "".join(p.text if not isinstance(p, ImagePart) else _mark(p.image) for p in request.parts)
    return "\n".join(p.text if not isinstance(p, ImagePart) else _mark(p.image) for p in request.parts)


def _mark(ref: ImageRef) -> str:
    label = f"image {ref.number}" if "_" in ref.field else "image"
    return f"[{label}: {_describe_image(ref)}]"


def _describe_image(ref: ImageRef) -> str:
    """``800x600 PNG``, read from the bytes; the CLI may load images, prompt building may not."""
    try:
        data = ref.load()
    except DataError as exc:
        return f"unreadable ({exc})"
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as img:
            return f"{img.width}x{img.height} {img.format}"
    except Exception as exc:  # any decoder failure is shown, not raised: this is a viewer
        return f"undecodable ({type(exc).__name__}: {exc}), {len(data)} bytes"


def _answer(answer: str | tuple[str, ...] | None) -> str:
    if answer is None:
        return "- (withheld)"
    if isinstance(answer, tuple):
        return " | ".join(answer)
    return answer


def _indent(text: str, width: int = 12) -> str:
    return text.replace("\n", "\n" + " " * width)


# --- data download ---------------------------------------------------------------------------


def run_download(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from mmmu_eval.dataset import hub

    out = out or sys.stdout
    benchmark = _benchmark(args)
    base = hub.download(benchmark, split=args.split, setting=args.setting, subjects=args.subjects,
                        revision=args.revision, dest=args.dest)
    out.write(f"snapshot written to {base}; read it with --data {args.dest}\n")
    return 0
