"""The official repository's paper-era MMMU-Pro outputs (commit e3be682), read as its evaluate.py read them.

Those files hold both the original ``options`` / ``answer`` and the ten ``shuffled_options`` /
``shuffled_options_answer``; the ``evaluate.py`` of that commit scored ``Standard(4opts)`` rows
against the first and every other ``type`` against the second. The expected figures are the table
of ../shared/fidelity/README.md ("mmmu-pro-2024/"): deterministic correct and random fallbacks
from the official parser, and the official count published in ``results_summary.xlsx`` of the
same commit (an unseeded random letter per fallback, so it lies between the two bounds).
"""

from __future__ import annotations

import shutil

import pytest

from mmmu_eval.harnesses.read import rescore

#: README table: file -> (deterministic correct, random fallbacks, official count).
PRO_2024 = {
    "InternVL2-40B_direct_Standard(10opts).jsonl": (598, 101, 619),
    "InternVL2-40B_direct_Standard(4opts).jsonl": (848, 24, 856),
    "InternVL2-40B_direct_Vision.jsonl": (496, 56, 505),
    "InternVL2-8B_direct_Standard(10opts).jsonl": (560, 0, 560),
    "InternVL2-8B_direct_Standard(4opts).jsonl": (747, 0, 747),
    "InternVL2-8B_direct_Vision.jsonl": (336, 23, 337),
    "InternVL2-Llama3-76B_direct_Standard(10opts).jsonl": (632, 100, 653),
    "InternVL2-Llama3-76B_direct_Standard(4opts).jsonl": (896, 24, 898),
    "InternVL2-Llama3-76B_direct_Vision.jsonl": (451, 20, 454),
    "gemini-1.5-pro-exp-0801_cot_Standard(4opts).jsonl": (1039, 42, 1049),
    "gemini-1.5-pro-exp-0801_direct_Standard(10opts).jsonl": (707, 89, 715),
    "gemini-1.5-pro-exp-0801_direct_Standard(4opts).jsonl": (932, 88, 958),
    "gemini-1.5-pro-exp-0801_direct_Vision.jsonl": (702, 15, 702),
    "gpt-4o-2024-08-06_direct_Standard(10opts).jsonl": (695, 6, 698),
    "gpt-4o-2024-08-06_direct_Standard(4opts).jsonl": (902, 2, 902),
    "gpt-4o-2024-08-06_direct_Vision.jsonl": (725, 47, 734),
    "llava-onevision-qwen2-72b-vo-hf_cot_Standard(10opts).jsonl": (650, 30, 657),
    "llava-onevision-qwen2-72b-vo-hf_cot_Standard(4opts).jsonl": (887, 35, 895),
    "llava-onevision-qwen2-72b-vo-hf_cot_Vision.jsonl": (412, 14, 414),
    "llava-onevision-qwen2-72b-vo-hf_direct_Standard(10opts).jsonl": (660, 7, 662),
    "llava-onevision-qwen2-72b-vo-hf_direct_Standard(4opts).jsonl": (907, 6, 907),
    "llava-onevision-qwen2-72b-vo-hf_direct_Vision.jsonl": (437, 9, 438),
    "llava-onevision-qwen2-7b-vo-hf_cot_Standard(10opts).jsonl": (509, 33, 514),
    "llava-onevision-qwen2-7b-vo-hf_cot_Standard(4opts).jsonl": (730, 32, 737),
    "llava-onevision-qwen2-7b-vo-hf_direct_Standard(10opts).jsonl": (518, 3, 518),
    "llava-onevision-qwen2-7b-vo-hf_direct_Standard(4opts).jsonl": (756, 3, 757),
    "llava-onevision-qwen2-7b-vo-hf_direct_Vision.jsonl": (275, 2, 275),
}
SETTING_OF = {"Standard(4opts)": "standard-4", "Standard(10opts)": "standard-10", "Vision": "vision"}


def _setting(name: str) -> str:
    return SETTING_OF[name.rsplit("_", 1)[1].removesuffix(".jsonl")]


@pytest.mark.parametrize("name", sorted(PRO_2024))
def test_paper_era_file_scores_as_the_official_evaluate_py(fidelity, name):
    deterministic, fallbacks, official = PRO_2024[name]
    result = rescore(fidelity / "mmmu-pro-2024" / name)  # --format auto, as a user runs it
    assert result.format == "official-mmmu-pro"
    scoring = result.scoring
    assert (scoring.deterministic_correct, scoring.fallbacks) == (deterministic, fallbacks)
    assert deterministic <= official <= deterministic + fallbacks
    assert scoring.aggregates["official"].overall.n == 1730
    assert {it.setting for it in result.items} == {_setting(name)}
    assert result.warnings == () and not result.partial  # read right: no guard is raised


def test_the_setting_comes_from_the_type_column_not_the_name(fidelity, tmp_path):
    # llava-onevision's names hold "vo" (vision-only): a name-first guess reads every one as vision.
    source = fidelity / "mmmu-pro-2024" / "llava-onevision-qwen2-7b-vo-hf_direct_Standard(10opts).jsonl"
    renamed = tmp_path / "outputs.jsonl"
    shutil.copyfile(source, renamed)
    result = rescore(renamed, format="official-mmmu-pro")
    assert {it.setting for it in result.items} == {"standard-10"}
    assert (result.scoring.deterministic_correct, result.scoring.fallbacks) == (518, 3)
    # The ten options from shuffled_options, not the 2 to 9 original ones.
    assert sum(len(it.options) == 10 for it in result.items) > 1200
