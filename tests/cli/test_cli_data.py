"""``mmmu-eval data list|show|download`` on the bundled sample and on tiny snapshots."""

from __future__ import annotations

import io
import json
import shlex

import pytest
from PIL import Image

from fakes.parquet_rows import LocalHub, image_cell, mmmu_row, png, write_mmmu
from mmmu_eval.cli import data as data_cli
from mmmu_eval.cli.main import main
from mmmu_eval.dataset import hub
from mmmu_eval.dataset.load import DEFAULT_REVISIONS, load_benchmark
from mmmu_eval.dataset.sample import SAMPLE_ROOT
from mmmu_eval.prompt import EvalProtocol, build_request, prompt_text

SELECTIONS = [
    ("mmmu", "dev", None),
    ("mmmu", "validation", None),
    ("mmmu-pro", None, "standard-10"),
    ("mmmu-pro", None, "standard-4"),
    ("mmmu-pro", None, "vision"),
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def sample_items():
    for benchmark, split, setting in SELECTIONS:
        for item in load_benchmark(benchmark, split=split, setting=setting, data="sample").items:
            yield pytest.param(benchmark, setting, item.id, id=f"{setting or split}-{item.id}")


def test_list_shows_every_item_and_counts_that_add_up(capsys):
    items = load_benchmark("mmmu", split="dev", data="sample").items
    code, out, _ = run(capsys, "data", "list", "--benchmark", "mmmu", "--split", "dev", "--data", "sample")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "mmmu dev from sample (revision bundled-0.1.0)"
    assert lines[1].split() == ["id", "subject", "type", "options", "images", "tokens"]
    assert [line.split()[0] for line in lines[2 : 2 + len(items)]] == [i.id for i in items]
    mc = sum(i.question_type == "multiple-choice" for i in items)
    assert lines[2 + len(items)].startswith(
        f"{len(items)} items ({mc} multiple-choice, {len(items) - mc} open) in "
        f"{len({i.subject for i in items})} subjects; {sum(len(i.images) for i in items)} images"
    )


def test_list_shows_token_order_with_repeats(capsys):
    """dev_History_2 in the sample refers to its images out of order and repeatedly."""
    item = next(i for i in load_benchmark("mmmu", split="dev", data="sample").items if i.id == "dev_History_2")
    code, out, _ = run(capsys, "data", "list", "--split", "dev", "--data", "sample", "--subjects", "his")
    row = next(line for line in out.splitlines() if line.startswith("dev_History_2"))
    assert row.split()[-1] == ",".join(str(n) for n in data_cli.token_numbers("\n".join((item.question, *item.options))))
    assert row.split()[-1] == "2,1,2,1,2"


def test_list_json_with_limit_keeps_counts_of_everything(capsys):
    code, out, _ = run(capsys, "data", "list", "--setting", "vision", "--data", "sample", "--json", "--limit", "2")
    record = json.loads(out)
    total = len(load_benchmark("mmmu-pro", setting="vision", data="sample").items)
    assert (code, record["benchmark"], record["setting"]) == (0, "mmmu-pro", "vision")
    assert len(record["items"]) == 2 and record["counts"]["items"] == total
    assert all(row["tokens"] == [] and row["images"] == 1 for row in record["items"])


@pytest.mark.parametrize(("benchmark", "setting", "item_id"), list(sample_items()))
def test_show_text_prints_the_official_prompt_for_every_sample_item(capsys, benchmark, setting, item_id):
    argv = ["data", "show", item_id, "--benchmark", benchmark, "--data", "sample", "--text"]
    if setting:
        argv += ["--setting", setting]
    code, out, _ = run(capsys, *argv)
    ds = load_benchmark(benchmark, split=item_id.split("_")[0] if benchmark == "mmmu" else None, setting=setting, data="sample")
    item = next(i for i in ds.items if i.id == item_id)
    assert code == 0
    assert out == prompt_text(item, EvalProtocol(benchmark, setting, "direct"))


def test_show_marks_each_image_where_it_goes(capsys):
    code, out, _ = run(capsys, "data", "show", "validation_Art_2", "--data", "sample")
    item = next(i for i in load_benchmark("mmmu", split="validation", data="sample").items if i.id == "validation_Art_2")
    sizes = [Image.open(io.BytesIO(ref.load())).size for ref in item.images]
    marks = [f"[image {n}: {w}x{h} PNG]" for n, (w, h) in enumerate(sizes, 1)]
    expected = (
        f"{item.question}\n"
        + "".join(f"({letter}) {mark}\n" for letter, mark in zip("ABCDE", marks))
        + "\nAnswer with the option's letter from the given choices directly."
    )
    assert code == 0
    block = out.split("-" * 72 + "\n")[1]
    assert block == expected + "\n"
    assert "prompt      mmmu, direct, layout interleaved, official, fingerprint " in out
    assert "choices     A B C D E" in out


def test_show_text_then_images_lists_images_after_the_official_text(capsys):
    code, out, _ = run(capsys, "data", "show", "test_Art_Theory_2", "--benchmark", "mmmu-pro", "--data", "sample",
                       "--image-layout", "text-then-images")
    item = next(i for i in load_benchmark("mmmu-pro", data="sample").items if i.id == "test_Art_Theory_2")
    protocol = EvalProtocol("mmmu-pro", "standard-10", "direct", image_layout="text-then-images")
    request = build_request(item, protocol)
    block = out.split("-" * 72 + "\n")[1].splitlines()
    text_lines = prompt_text(item, protocol).splitlines()
    assert code == 0
    assert block[: len(text_lines)] == text_lines
    assert [line.split(":")[0] for line in block[len(text_lines):]] == [f"[image {ref.number}" for ref in request.images]


def test_show_vision_ocr_says_it_is_not_official(capsys):
    code, out, _ = run(capsys, "data", "show", "test_Art_Theory_2", "--setting", "vision", "--data", "sample", "--prompt", "ocr")
    assert code == 0
    assert "mmmu-pro vision, ocr, layout interleaved, NOT official" in out


def test_show_unknown_id_suggests_close_ones(capsys):
    code, _, err = run(capsys, "data", "show", "validation_Art_22", "--data", "sample")
    assert code == 1
    assert "validation_Art_22: no item with this id" in err and "validation_Art_2" in err


def test_show_refuses_a_split_the_id_contradicts(capsys):
    code, _, err = run(capsys, "data", "show", "dev_Art_2", "--split", "validation", "--data", "sample")
    assert code == 2 and "dev_Art_2 is a dev item; drop --split or use --split dev" in err


def test_show_item_with_a_missing_image_prints_the_item_and_the_error(capsys, tmp_path):
    root = tmp_path / "snap"
    write_mmmu(root, "Accounting", "validation", [
        mmmu_row("validation_Accounting_1", question="Compare <image 1> and <image 3>.",
                 image_2=image_cell(png(size=(5, 4)), "b.png")),
    ])
    code, out, _ = run(capsys, "data", "show", "validation_Accounting_1", "--data", str(root))
    assert code == 1
    assert "  image_1  8x6 PNG\n  image_2  5x4 PNG  (no token refers to it: not sent, as the official scripts do; --unreferenced-images append sends it)\n" in out
    assert out.endswith(
        "prompt: cannot be built: validation_Accounting_1: the question refers to <image 3> but the item has 2 images\n"
    )


def test_show_sends_only_the_images_tokens_refer_to_and_append_adds_the_others(capsys, tmp_path):
    root = tmp_path / "snap"
    write_mmmu(root, "Accounting", "validation", [
        mmmu_row("validation_Accounting_1", question="Compare <image 2> with <image 1>.",
                 image_2=image_cell(png(size=(5, 4)), "b.png"), image_3=image_cell(png(size=(3, 2)), "c.png")),
    ])
    code, out, _ = run(capsys, "data", "show", "validation_Accounting_1", "--data", str(root))
    assert code == 0
    assert "  image_3  3x2 PNG  (no token refers to it: not sent, as the official scripts do; " in out
    assert "Compare [image 2: 5x4 PNG] with [image 1: 8x6 PNG].\n(A) red" in out
    assert "[image 3" not in out and ", official, fingerprint" in out

    code, out, _ = run(capsys, "data", "show", "validation_Accounting_1", "--data", str(root),
                       "--unreferenced-images", "append")
    assert code == 0
    assert "  image_3  3x2 PNG  (no token refers to it: sent after the referenced images; --unreferenced-images append, not official)" in out
    assert out.rstrip().endswith("directly.[image 3: 3x2 PNG]\n" + "-" * 72)
    assert "NOT official" in out


@pytest.fixture
def local_hub(tmp_path):
    """The bundled sample served as if it were the hub, at the pinned MMMU revision."""
    root = tmp_path / "hub"
    (root / "MMMU").mkdir(parents=True)
    (root / "MMMU" / "MMMU").symlink_to(SAMPLE_ROOT / "MMMU")
    (root / "MMMU" / "MMMU_Pro").symlink_to(SAMPLE_ROOT / "MMMU_Pro")
    fake = LocalHub(root, tmp_path / "cache", commit=DEFAULT_REVISIONS["mmmu"],
                    branches=("main", DEFAULT_REVISIONS["mmmu-pro"]))
    previous = hub.set_client(fake)
    yield fake
    hub.set_client(previous)


def test_download_fills_a_snapshot_that_data_list_then_reads(capsys, tmp_path, local_hub):
    dest = tmp_path / "snap"
    code, out, _ = run(capsys, "data", "download", "--split", "dev", "--subjects", "acc", "math",
                       "--revision", "main", "--dest", str(dest))
    assert code == 0 and out == f"snapshot written to {dest / 'MMMU'}; read it with --data {dest}\n"
    assert sorted(local_hub.fetched) == ["Accounting/dev-00000-of-00001.parquet", "Math/dev-00000-of-00001.parquet"]
    code, out, _ = run(capsys, "data", "list", "--split", "dev", "--data", str(dest), "--subjects", "acc", "math", "--json")
    record = json.loads(out)
    assert record["revision"] == DEFAULT_REVISIONS["mmmu"]
    assert [row["subject"] for row in record["items"]] == ["Accounting"] * 2 + ["Math"] * 2


@pytest.mark.parametrize(
    "example",
    [line.strip() for line in (data_cli.LIST_EXAMPLES + data_cli.SHOW_EXAMPLES + data_cli.DOWNLOAD_EXAMPLES).splitlines()
     if line.strip().startswith("mmmu-eval data ")],
)
def test_help_examples_work_as_typed(capsys, tmp_path, monkeypatch, local_hub, example):
    """Every example in the help runs; downloads go to the sample served as a local hub."""
    monkeypatch.chdir(tmp_path)
    words = shlex.split(example)
    if ">" in words:
        words = words[: words.index(">")]
    code, out, err = run(capsys, *words[1:])
    assert code == 0, err
    command = words[2]
    if command == "list":
        assert out.splitlines()[0].startswith(f"{words[words.index('--benchmark') + 1]} "), out[:200]
        assert " from sample (revision bundled-" in out.splitlines()[0]
    elif "--text" in words:  # the prompt alone, as sent
        assert out.endswith(("directly.", "single word or phrase.")), out[-200:]
    elif command == "show":
        assert out.startswith(f"{words[3]}  ("), out[:200]
    else:
        assert out.startswith("snapshot written to "), out


def test_help_shows_the_examples(capsys):
    with pytest.raises(SystemExit):
        main(["data", "show", "--help"])
    assert "mmmu-eval data show validation_Art_2 --data sample" in capsys.readouterr().out
