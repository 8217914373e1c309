"""`mmmu-eval run --model hf:DIR` on the bundled sample, end to end, offline on CPU."""

import json

import pytest
from fakes.tiny_models import build_tiny_llava

from mmmu_eval.cli.main import main
from mmmu_eval.store.rundir import RunStore

# torch and transformers: a skip locally, a failure under CI (tests/conftest.py hf_extra).
pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]


def test_run_command_evaluates_the_sample_with_a_local_model(tmp_path, capsys):
    model_dir = build_tiny_llava(tmp_path / "llava")
    out = tmp_path / "run"
    status = main(["run", "--model", f"hf:{model_dir}", "--data", "sample", "--benchmark", "mmmu",
                   "--split", "dev", "--max-tokens", "4", "--batch-size", "4", "--device", "cpu",
                   "--out", str(out), "--no-html"])
    assert status == 0, capsys.readouterr().err
    store = RunStore.read(out)
    manifest = store.manifest()
    responses = store.responses()
    assert set(responses) == set(manifest["item_ids"]) and len(responses) == 20
    assert all(r.status in ("ok", "truncated") and r.prompt_tokens for r in responses.values())
    assert manifest["backend"]["backend"] == "hf" and manifest["backend"]["batch_size"] == 4
    assert manifest["backend"]["model_class"] == "LlavaForConditionalGeneration"
    results = json.loads((out / "results.json").read_text())
    assert results["overall"]["n"] == 20


def test_the_run_records_the_layout_llava_15s_template_gave_and_warns_once(tmp_path, capsys, caplog):
    """llava-hf's template writes every image first: 15 of the 20 dev items ask for text before an
    image and see images first; the 5 that open with their image see what was asked."""
    import logging

    model_dir = build_tiny_llava(tmp_path / "llava")
    out = tmp_path / "run"
    with caplog.at_level(logging.WARNING):
        status = main(["run", "--model", f"hf:{model_dir}", "--data", "sample", "--benchmark", "mmmu",
                       "--split", "dev", "--max-tokens", "2", "--device", "cpu", "--out", str(out), "--no-html"])
    assert status == 0, capsys.readouterr().err
    assert RunStore.read(out).manifest_record().effective_layout == {"images-first": 15, "interleaved": 5}
    warned = [r.getMessage() for r in caplog.records if "does not keep --image-layout" in r.getMessage()]
    assert len(warned) == 1
    assert "the model saw 15 items images-first, 5 items interleaved" in warned[0]
    assert f"data show dev_Accounting_2 --model hf:{model_dir}" in warned[0]


def test_data_show_prints_the_prompt_as_the_models_template_renders_it(tmp_path, capsys):
    model_dir = build_tiny_llava(tmp_path / "llava")
    assert main(["data", "show", "dev_Accounting_2", "--data", "sample", "--model", f"hf:{model_dir}"]) == 0
    shown = capsys.readouterr().out
    rendered = shown.split("as the model receives it; ")[1]
    assert rendered.startswith("layout images-first: the template moved the images (asked interleaved)")
    body = rendered.split("-" * 72 + "\n")[1]
    assert body.startswith("USER: <image>\n") and body.endswith(" ASSISTANT:\n")

    assert main(["data", "show", "dev_Accounting_2", "--data", "sample", "--model", f"hf:{model_dir}", "--text"]) == 0
    assert capsys.readouterr().out == body.removesuffix("\n")


def test_data_show_renders_only_through_a_local_model(capsys):
    assert main(["data", "show", "dev_Accounting_2", "--data", "sample", "--model", "openai:gpt-4o"]) != 0
    assert "give hf:DIR" in capsys.readouterr().err
