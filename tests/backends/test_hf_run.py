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
