"""Generate the bundled sample: a small synthetic MMMU and MMMU-Pro in the hub's parquet layout.

    python scripts/make_sample.py            # rewrites src/mmmu_eval/sample_data/
    python scripts/make_sample.py --out DIR  # writes elsewhere (the reproducibility test does)

Everything is drawn with PIL (bar charts, shapes, tables, screenshots) using PIL's built-in
bitmap font, and every random choice comes from a generator seeded by the item id, so two runs
write the same files. The questions have right answers: the chart's tallest bar, the table's
total, the number of circles. The sample exercises what the real data does: 2 to 10 options
(12 once in MMMU-Pro standard-10), open numeric and text answers, a list answer written in a
string, images inside options, <image N> tokens out of order and repeated, vision screenshots,
and the malformed nested options of validation_Accounting_29.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFont

from mmmu_eval.dataset.file_layout import PRO_CONFIGS
from mmmu_eval.dataset.schema import MMMU_COLUMNS, PRO_STANDARD_COLUMNS, PRO_VISION_COLUMNS, arrow_schema

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "src" / "mmmu_eval" / "sample_data"
FONT = ImageFont.load_default_imagefont()  # bitmap, bundled with Pillow: same pixels everywhere
PALETTE = [(214, 69, 65), (65, 131, 215), (46, 160, 67), (240, 173, 78), (142, 68, 173),
           (26, 188, 156), (127, 140, 141), (211, 84, 0), (52, 73, 94), (241, 196, 15)]
COLOR_NAMES = ["red", "blue", "green", "orange", "purple", "teal", "grey", "brown", "navy", "yellow"]
WORDS = ["alder", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "inlet", "juniper",
         "kestrel", "larch", "maple", "nectar", "oriole", "pine", "quartz", "raven"]


# ---------------------------------------------------------------- drawing

def png(img: Image.Image, scale: int = 2) -> bytes:
    """Upscale (the bitmap font is tiny) and encode as PNG."""
    if scale != 1:
        img = img.resize((img.width * scale, img.height * scale), Image.NEAREST)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (w, h), (255, 255, 255))
    return img, ImageDraw.Draw(img)


def bar_chart(labels: list[str], values: list[int], title: str) -> Image.Image:
    n = len(labels)
    w, h = max(160, 28 * n + 30), 130
    img, d = canvas(w, h)
    d.text((6, 3), title, fill=(0, 0, 0), font=FONT)
    top, base = 22, h - 18
    unit = (base - top - 12) / max(values)
    d.line([(18, top), (18, base), (w - 6, base)], fill=(0, 0, 0))
    for i, (lab, val) in enumerate(zip(labels, values)):
        x0 = 24 + 28 * i
        y0 = base - round(val * unit)
        d.rectangle([x0, y0, x0 + 18, base - 1], fill=PALETTE[i % len(PALETTE)])
        d.text((x0 + 3, y0 - 11), str(val), fill=(0, 0, 0), font=FONT)
        d.text((x0, base + 3), lab[:4], fill=(0, 0, 0), font=FONT)
    return img


def shapes(rng: random.Random, circles: int, squares: int, triangles: int = 0) -> Image.Image:
    img, d = canvas(160, 110)
    cells = [(c, r) for c in range(6) for r in range(4)]
    rng.shuffle(cells)
    kinds = ["circle"] * circles + ["square"] * squares + ["triangle"] * triangles
    for kind, (c, r) in zip(kinds, cells):
        x, y = 8 + 25 * c, 8 + 25 * r
        color = PALETTE[rng.randrange(len(PALETTE))]
        draw_shape(d, kind, (x, y, x + 18, y + 18), color)
    return img


def draw_shape(d: ImageDraw.ImageDraw, kind: str, box: tuple[int, int, int, int], color) -> None:
    x0, y0, x1, y1 = box
    if kind == "circle":
        d.ellipse(box, fill=color, outline=(0, 0, 0))
    elif kind == "square":
        d.rectangle(box, fill=color, outline=(0, 0, 0))
    else:
        d.polygon([((x0 + x1) // 2, y0), (x1, y1), (x0, y1)], fill=color, outline=(0, 0, 0))


def one_shape(kind: str, color_index: int) -> Image.Image:
    img, d = canvas(40, 40)
    draw_shape(d, kind, (6, 6, 33, 33), PALETTE[color_index])
    return img


def table(header: list[str], rows: list[list[str]], title: str = "") -> Image.Image:
    widths = [max(len(str(r[i])) for r in [header, *rows]) * 6 + 10 for i in range(len(header))]
    top = 16 if title else 2
    w, h = sum(widths) + 5, top + 15 * (len(rows) + 1) + 4
    img, d = canvas(w, h)
    if title:
        d.text((3, 2), title, fill=(0, 0, 0), font=FONT)
    for r, cells in enumerate([header, *rows]):
        y = top + 15 * r
        if r == 0:
            d.rectangle([2, y, w - 3, y + 15], fill=(225, 232, 240))
        x = 2
        for i, cell in enumerate(cells):
            d.rectangle([x, y, x + widths[i], y + 15], outline=(0, 0, 0))
            d.text((x + 5, y + 2), str(cell), fill=(0, 0, 0), font=FONT)
            x += widths[i]
    return img


def dots(rng: random.Random, n: int, color_index: int) -> Image.Image:
    img, d = canvas(90, 60)
    spots = [(c, r) for c in range(7) for r in range(4)]
    rng.shuffle(spots)
    for c, r in spots[:n]:
        x, y = 6 + 12 * c, 6 + 13 * r
        d.ellipse([x, y, x + 8, y + 8], fill=PALETTE[color_index])
    return img


def screenshot(question: str, options: list[str], images: dict[int, bytes], seed: str) -> Image.Image:
    """A vision item: question and lettered options rendered as text, images pasted in place."""
    rng = random.Random(seed)
    pics = {n: Image.open(io.BytesIO(b)).convert("RGB") for n, b in images.items()}
    pics = {n: p.resize((p.width // 2, p.height // 2), Image.NEAREST) for n, p in pics.items()}
    lines: list[tuple[str, int | None]] = []
    for chunk in _wrap(_figures(question), 60):
        lines.append((chunk, None))
    for n in sorted({int(t) for t in _tokens(question)}):
        lines.append((f"Fig. {n}", None))
        lines.append(("", n))
    for i, opt in enumerate(options):
        lines.append((f"{chr(65 + i)}. {_figures(opt)}", None))
        for t in _tokens(opt):
            if int(t) not in {int(q) for q in _tokens(question)}:
                lines.append(("", int(t)))
    height = 10 + sum(pics[n].height + 4 if n else 13 for _, n in lines)
    img, d = canvas(380, height + 8)
    y = 8
    for text, n in lines:
        if n:
            img.paste(pics[n], (14, y))
            y += pics[n].height + 4
        else:
            d.text((8, y), text, fill=(20, 20, 20), font=FONT)
            y += 13
    # A faint frame and a tilt-free "window" bar make it look like a captured page.
    shade = 200 + rng.randrange(30)
    d.rectangle([0, 0, img.width - 1, 4], fill=(shade, shade, 235))
    d.rectangle([0, 0, img.width - 1, img.height - 1], outline=(160, 160, 160))
    return img


def _tokens(text: str) -> list[str]:
    return re.findall(r"<image (\d+)>", text)


def _figures(text: str) -> str:
    """A screenshot shows pictures, not tokens: ``<image 2>`` reads as ``Fig. 2``."""
    return re.sub(r"<image (\d+)>", r"Fig. \1", text).strip()


def _wrap(text: str, width: int) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if len(line) + len(word) + 1 > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return out + ([line] if line else [])


# ---------------------------------------------------------------- questions

@dataclass
class Q:
    """One generated question, before it becomes a row."""

    question: str
    options: list[str]
    answer: str | list[str]
    images: dict[int, bytes]
    img_type: list[str]
    qtype: str = "multiple-choice"
    difficulty: str = "Easy"
    subfield: str = ""
    explanation: str = ""
    extra: dict = field(default_factory=dict)


def letter(i: int) -> str:
    return chr(ord("A") + i)


def q_tallest(rng: random.Random, n: int, topic: str) -> Q:
    labels = rng.sample(WORDS, n)
    values = rng.sample(range(2, 30), n)
    best = values.index(max(values))
    chart = png(bar_chart(labels, values, topic))
    return Q(f"<image 1> The chart shows {topic.lower()}. Which category has the highest value?",
             labels, letter(best), {1: chart}, ["Plots and Charts"], subfield="Charts",
             explanation=f"{labels[best]} has the tallest bar ({max(values)}).")


def q_bar_value(rng: random.Random, topic: str) -> Q:
    labels = rng.sample(WORDS, 4)
    values = rng.sample(range(3, 25), 4)
    k = rng.randrange(4)
    chart = png(bar_chart(labels, values, topic))
    return Q(f"What value does the chart in <image 1> give for {labels[k][:4]}?", [], str(values[k]),
             {1: chart}, ["Plots and Charts"], qtype="open", subfield="Charts")


def q_count_circles(rng: random.Random, n_options: int) -> Q:
    circles, squares = rng.randrange(2, 8), rng.randrange(1, 6)
    start = max(0, circles - rng.randrange(n_options))
    options = [str(start + i) for i in range(n_options)]
    return Q("How many circles are there in <image 1>?", options, letter(options.index(str(circles))),
             {1: png(shapes(rng, circles, squares))}, ["Geometric Shapes"], subfield="Counting")


def q_table_total(rng: random.Random, title: str) -> Q:
    names = rng.sample(WORDS, 4)
    amounts = [rng.randrange(5, 60) for _ in names]
    img = table(["Account", "Amount"], [[n, str(a)] for n, a in zip(names, amounts)], title)
    return Q(f"<image 1> What is the total of the Amount column in the table?", [], str(sum(amounts)),
             {1: png(img)}, ["Tables"], qtype="open", difficulty="Medium", subfield="Tables")


def q_table_lookup(rng: random.Random, title: str, n_options: int) -> Q:
    names = rng.sample(WORDS, n_options)
    amounts = rng.sample(range(5, 90), n_options)
    k = rng.randrange(n_options)
    img = table(["Item", "Cost"], [[n, str(a)] for n, a in zip(names, amounts)], title)
    return Q(f"According to <image 1>, which item costs {amounts[k]}?", names, letter(k), {1: png(img)},
             ["Tables"], subfield="Tables")


def q_shape_name(rng: random.Random) -> Q:
    kind = rng.choice(["circle", "square", "triangle"])
    return Q("Name the shape drawn in <image 1>.", [], kind, {1: png(one_shape(kind, rng.randrange(10)))},
             ["Geometric Shapes"], qtype="open", subfield="Shapes")


def q_fraction_list(rng: random.Random) -> Q:
    circles = rng.choice([1, 2, 3])
    img = shapes(rng, circles, 4 - circles)
    frac = {1: ("1/4", "0.25"), 2: ("1/2", "0.5"), 3: ("3/4", "0.75")}[circles]
    return Q("What fraction of the shapes in <image 1> are circles?", [], str(list(frac)), {1: png(img)},
             ["Geometric Shapes"], qtype="open", difficulty="Medium", subfield="Fractions")


def q_image_options(rng: random.Random, n_options: int) -> Q:
    """The options are pictures: <image 1> ... <image n>, one of them a red square."""
    kinds = ["circle", "square", "triangle"]
    right = rng.randrange(n_options)
    images, options = {}, []
    for i in range(n_options):
        if i == right:
            kind, color = "square", 0
        else:
            kind, color = rng.choice([(k, c) for k in kinds for c in range(10) if (k, c) != ("square", 0)])
        images[i + 1] = png(one_shape(kind, color), scale=1)
        options.append(f"<image {i + 1}>")
    return Q("Which option shows a red square?", options, letter(right), images, ["Geometric Shapes"],
             subfield="Shapes")


def q_compare_dots(rng: random.Random) -> Q:
    """Tokens out of order and repeated: <image 2> comes first and appears twice."""
    a, b = rng.sample(range(3, 15), 2)
    images = {1: png(dots(rng, a, 1)), 2: png(dots(rng, b, 3))}
    options = ["<image 1> has more dots", "<image 2> has more dots", "They have the same number"]
    return Q("Look at <image 2>, then at <image 1>. Count the dots in <image 2> again. Which is true?",
             options, "A" if a > b else "B", images, ["Diagrams"], difficulty="Medium", subfield="Counting")


# ---------------------------------------------------------------- MMMU

#: subject -> (dev builders, validation builders); option counts chosen so 2..10 all occur.
def mmmu_plan() -> dict[str, tuple[list, list]]:
    return {
        "Accounting": (
            [lambda r: q_table_total(r, "Ledger"), lambda r: q_table_lookup(r, "Price list", 4)],
            [lambda r: q_table_total(r, "Trial balance"), lambda r: q_table_lookup(r, "Invoice", 5),
             lambda r: q_tallest(r, 3, "Revenue by branch"), lambda r: q_bar_value(r, "Costs")],
        ),
        "Art": (
            [q_shape_name, lambda r: q_image_options(r, 4)],
            [lambda r: q_image_options(r, 3), lambda r: q_image_options(r, 5), q_shape_name,
             lambda r: q_count_circles(r, 2)],
        ),
        "Computer_Science": (
            [lambda r: q_table_lookup(r, "Latency (ms)", 3), lambda r: q_bar_value(r, "Cache hits")],
            [lambda r: q_tallest(r, 6, "Jobs per queue"), lambda r: q_table_total(r, "Packets"),
             lambda r: q_count_circles(r, 4), q_compare_dots],
        ),
        "Design": (
            [lambda r: q_image_options(r, 2), q_shape_name],
            [lambda r: q_image_options(r, 6), lambda r: q_count_circles(r, 5), q_compare_dots,
             q_fraction_list],
        ),
        "Economics": (
            [lambda r: q_tallest(r, 4, "Output by sector"), lambda r: q_bar_value(r, "Exports")],
            [lambda r: q_tallest(r, 7, "Prices by region"), lambda r: q_bar_value(r, "Demand"),
             lambda r: q_table_lookup(r, "Goods", 4), lambda r: q_tallest(r, 2, "Supply")],
        ),
        "Energy_and_Power": (
            [lambda r: q_bar_value(r, "Output (MW)"), lambda r: q_tallest(r, 3, "Load")],
            [lambda r: q_tallest(r, 8, "Generation by plant"), lambda r: q_table_total(r, "Meter readings"),
             lambda r: q_count_circles(r, 3), lambda r: q_bar_value(r, "Losses")],
        ),
        "History": (
            [lambda r: q_table_lookup(r, "Treaties", 4), q_compare_dots],
            [lambda r: q_table_lookup(r, "Dynasties", 9), lambda r: q_tallest(r, 4, "Battles by decade"),
             q_shape_name, lambda r: q_table_lookup(r, "Archives", 2)],
        ),
        "Math": (
            [q_fraction_list, lambda r: q_count_circles(r, 4)],
            [q_fraction_list, lambda r: q_count_circles(r, 10), q_compare_dots, lambda r: q_bar_value(r, "Values")],
        ),
        "Psychology": (
            [lambda r: q_tallest(r, 5, "Responses"), lambda r: q_bar_value(r, "Scores")],
            [lambda r: q_tallest(r, 4, "Reaction time"), lambda r: q_table_total(r, "Trials"),
             lambda r: q_image_options(r, 4), lambda r: q_count_circles(r, 3)],
        ),
        "Public_Health": (
            [lambda r: q_bar_value(r, "Cases"), lambda r: q_table_total(r, "Clinic visits")],
            [lambda r: q_tallest(r, 5, "Cases by district"), lambda r: q_table_lookup(r, "Vaccines", 3),
             lambda r: q_bar_value(r, "Admissions"), q_fraction_list],
        ),
    }


def mmmu_row(item_id: str, q: Q) -> dict:
    row = {
        "id": item_id,
        "question": q.question,
        "options": str(q.options),
        "explanation": q.explanation,
        "img_type": str(q.img_type),
        "answer": q.answer if isinstance(q.answer, str) else str(q.answer),
        "topic_difficulty": q.difficulty,
        "question_type": q.qtype,
        "subfield": q.subfield,
    }
    for n in range(1, 8):
        data = q.images.get(n)
        row[f"image_{n}"] = {"bytes": data, "path": f"{item_id}_{n}.png"} if data else None
    return row


def build_mmmu(out: Path) -> list[Path]:
    written = []
    for subject, (dev, val) in mmmu_plan().items():
        for split, builders in (("dev", dev), ("validation", val)):
            rows = []
            for n, build in enumerate(builders, start=1):
                item_id = f"{split}_{subject}_{n}"
                rows.append(mmmu_row(item_id, build(random.Random(item_id))))
            written.append(write(out / "MMMU" / subject / f"{split}-00000-of-00001.parquet", rows, MMMU_COLUMNS))
    return written


# ---------------------------------------------------------------- MMMU-Pro

def pro_base() -> list[tuple[str, Q]]:
    """(id, question) pairs shared by the three settings, in the order every setting lists them."""
    specs = [
        ("test_Accounting_3", lambda r: q_table_lookup(r, "Payables", 4)),
        ("validation_Accounting_29", None),  # the nested-options row, built below
        ("test_Art_7", lambda r: q_image_options(r, 4)),
        ("test_Art_Theory_2", q_compare_dots),
        ("validation_Biology_4", lambda r: q_count_circles(r, 4)),
        ("test_Chemistry_11", lambda r: q_tallest(r, 4, "Yield by reagent")),
        ("test_Clinical_Medicine_5", lambda r: q_tallest(r, 3, "Admissions")),
        ("test_Computer_Science_61", lambda r: q_tallest(r, 4, "Threads per core")),
        ("validation_Design_19", lambda r: q_image_options(r, 3)),
        ("test_Economics_8", lambda r: q_tallest(r, 4, "GDP growth")),
        ("test_Electronics_14", lambda r: q_table_lookup(r, "Resistors", 4)),
        ("test_Finance_21", lambda r: q_table_lookup(r, "Bonds", 4)),
        ("validation_Geography_9", lambda r: q_tallest(r, 4, "Rainfall")),
        ("test_History_1", lambda r: q_table_lookup(r, "Reigns", 3)),
        ("test_Literature_12", lambda r: q_count_circles(r, 4)),
        ("validation_Manage_3", lambda r: q_tallest(r, 4, "Staff by unit")),
        ("test_Marketing_6", lambda r: q_tallest(r, 5, "Sales by channel")),
        ("test_Materials_17", lambda r: q_count_circles(r, 4)),
        ("validation_Math_2", q_compare_dots),
        ("test_Mechanical_Engineering_9", lambda r: q_table_lookup(r, "Gears", 4)),
        ("test_Music_4", lambda r: q_image_options(r, 4)),
        ("test_Pharmacy_10", lambda r: q_table_lookup(r, "Doses", 4)),
        ("validation_Physics_15", lambda r: q_tallest(r, 4, "Energy by state")),
        ("test_Sociology_30", lambda r: q_count_circles(r, 2)),
    ]
    out = []
    for item_id, build in specs:
        rng = random.Random("pro/" + item_id)
        out.append((item_id, build(rng) if build else accounting_29(rng)))
    return out


def accounting_29(rng: random.Random) -> Q:
    a = [rng.randrange(5, 30) for _ in range(3)]
    b = [x + rng.randrange(1, 9) for x in a]
    img = table(["Line", "A", "B"], [[str(i + 1), str(x), str(y)] for i, (x, y) in enumerate(zip(a, b))])
    return Q("Which column of <image 1> has the larger total?", ["A", "B", "Not enough information"], "B",
             {1: png(img)}, ["Tables"], difficulty="Medium")


def widen(item_id: str, q: Q, n: int) -> tuple[list[str], str, dict[int, bytes]]:
    """Add distractors up to n options and shuffle (as MMMU-Pro did); the answer letter follows."""
    rng = random.Random(f"widen/{n}/{item_id}")
    right = q.options[ord(q.answer) - 65]
    options = list(q.options)
    images = dict(q.images)
    image_options = all(o.startswith("<image ") for o in q.options)
    while len(options) < n:
        if image_options:
            k = len(images) + 1
            if k > 7:
                break
            images[k] = png(one_shape(rng.choice(["circle", "triangle"]), rng.randrange(10)), scale=1)
            options.append(f"<image {k}>")
        else:
            extra = rng.choice([w for w in WORDS + [str(x) for x in range(40)] if w not in options])
            options.append(extra)
    if len(options) > n:  # standard-4: keep the answer and n-1 others
        others = [o for o in options if o != right]
        options = [right] + rng.sample(others, n - 1)
        images = {k: v for k, v in images.items() if f"<image {k}>" in " ".join(options) + q.question}
    rng.shuffle(options)
    return options, letter(options.index(right)), images


def pro_rows(setting: str) -> list[dict]:
    rows = []
    for item_id, q in pro_base():
        subject = "_".join(item_id.split("_")[1:-1])
        if item_id == "validation_Accounting_29":
            options, answer, images = q.options, q.answer, q.images
            options_cell = str([options]) if setting == "standard-10" else str(options)
        else:
            n = {"standard-10": 10, "standard-4": 4, "vision": 10}[setting]
            if item_id == "test_Computer_Science_61" and setting != "standard-4":
                n = 12  # the real data's one 12-option item (A..L)
            if item_id == "test_Marketing_6" and setting == "standard-4":
                n = 5  # "standard (4 options)" is not always 4 (issue #40)
            if item_id == "test_Sociology_30" and setting == "standard-4":
                n = 3
            options, answer, images = widen(item_id, q, n)
            options_cell = str(options)
        if setting == "vision":
            shot = png(screenshot(q.question, options, images, item_id), scale=1)
            rows.append({"id": item_id, "image": {"bytes": shot, "path": f"{item_id}.png"},
                         "options": str(options), "answer": answer, "subject": subject})
            continue
        row = {
            "id": item_id, "question": q.question, "options": options_cell, "explanation": "?",
            "img_type": str(q.img_type), "answer": answer, "topic_difficulty": q.difficulty,
            "subject": subject,
        }
        for k in range(1, 8):
            data = images.get(k)
            row[f"image_{k}"] = {"bytes": data, "path": f"{item_id}_{k}.png"} if data else None
        rows.append(row)
    return rows


def build_pro(out: Path) -> list[Path]:
    written = []
    for setting, config in PRO_CONFIGS.items():
        columns = PRO_VISION_COLUMNS if setting == "vision" else PRO_STANDARD_COLUMNS
        written.append(write(out / "MMMU_Pro" / config / "test-00000-of-00001.parquet", pro_rows(setting), columns))
    return written


# ---------------------------------------------------------------- writing

def write(path: Path, rows: list[dict], columns: tuple[str, ...]) -> Path:
    schema = arrow_schema(columns)
    table_ = pa.Table.from_pydict({c: [r.get(c) for r in rows] for c in columns}, schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table_, path, compression="snappy")
    return path


def build(out: Path) -> list[Path]:
    """Write the whole sample under ``out``; returns the files in a fixed order."""
    files = build_mmmu(out) + build_pro(out)
    manifest = {
        "generator": "scripts/make_sample.py",
        "versions": {"pyarrow": pa.__version__, "pillow": Image.__version__},
        "files": {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files},
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write (default: the package)")
    args = parser.parse_args(argv)
    files = build(args.out)
    total = sum(p.stat().st_size for p in files)
    print(f"wrote {len(files)} parquet files, {total / 1e6:.2f} MB, under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
