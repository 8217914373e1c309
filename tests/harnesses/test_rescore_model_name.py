"""A rescored run is named after the whole model name its file or folder carries: only a known
ending comes off, never everything after the first dot (``llava1.5_13b`` is not ``llava1``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmmu_eval.harnesses.read import rescore
from mmmu_eval.harnesses.write import file_model_name, write_rescored_run

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "official_mmmu"


def test_the_official_folder_keeps_its_dotted_name(tmp_path):
    """The official repository's own folder of LLaVA-1.5-13B outputs, as it is published."""
    out = write_rescored_run(rescore(HERE / "llava1.5_13b"), tmp_path / "run", html=False)
    manifest = json.loads((out.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["model"] == "official-mmmu:llava1.5_13b"
    assert out.results["run"]["model"] == "official-mmmu:llava1.5_13b"


def test_the_official_eval_only_file_keeps_its_dotted_name(tmp_path, fidelity):
    result = rescore(HERE / "llava1.5_13b_val_design_psychology.json", format="official-mmmu-eval-only",
                     answers=fidelity / "mmmu" / "answer_dict_val.json")
    out = write_rescored_run(result, tmp_path / "run", html=False)
    assert out.manifest["config"]["model"] == "official-mmmu-eval-only:llava1.5_13b_val_design_psychology"


@pytest.mark.parametrize(("name", "model"), [
    ("llava1.5-13b_output.json", "llava1.5-13b_output"),
    ("qwen2.5-vl-7b.jsonl", "qwen2.5-vl-7b"),
    ("gpt-4o-2024-08-06_direct_Standard(10opts).jsonl", "gpt-4o-2024-08-06_direct_Standard(10opts)"),
    ("results_llava1.5.xlsx", "results_llava1.5"),
    ("2024-05-01T12-00-00_mmmu_qwen2.5.eval", "2024-05-01T12-00-00_mmmu_qwen2.5"),
    ("internvl2.5.csv", "internvl2.5"), ("internvl2.5.TSV", "internvl2.5"),
    ("llava1.5.txt", "llava1.5.txt"),  # not a known ending: the name stays as it is
])
def test_only_known_endings_come_off(name, model):
    assert file_model_name(name) == model
