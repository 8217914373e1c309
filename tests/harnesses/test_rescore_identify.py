"""What an official-format file holds comes from its content; flags are honoured, contradictions refused."""

from __future__ import annotations

import json

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harnesses.identify import setting_in_name
from mmmu_eval.harnesses.read import rescore

STD10_2024 = "gpt-4o-2024-08-06_direct_Standard(10opts).jsonl"
VISION_2024 = "gpt-4o-2024-08-06_direct_Vision.jsonl"
TODAY_VISION = "gpt-4o_vision_cot.jsonl"


def _copy(source, target):
    target.write_bytes(source.read_bytes())
    return target


@pytest.mark.parametrize(("name", "setting"), [
    ("llava-onevision-qwen2-7b-vo-hf_direct_Standard(4opts).jsonl", "standard-4"),
    ("llava-onevision-qwen2-72b-vo-hf_cot_Standard(10opts).jsonl", "standard-10"),
    ("llava-onevision-qwen2-72b-vo-hf_cot_Vision.jsonl", "vision"),
    ("gpt-4o_standard(10 options)_cot.jsonl", "standard-10"),
    ("gpt-4o_vision_direct.jsonl", "vision"),
    ("mmmu_pro_standard_4_options.jsonl", "standard-4"),
    ("results.jsonl", None),
    ("onevision.jsonl", None),
])
def test_a_name_names_a_setting_only_as_a_token(name, setting):
    assert setting_in_name(name) == setting


def test_a_flag_that_contradicts_the_type_column_is_refused_naming_both(fidelity, tmp_path):
    path = _copy(fidelity / "mmmu-pro-2024" / STD10_2024, tmp_path / "outputs.jsonl")
    with pytest.raises(ConfigError, match=r"--setting vision was asked, but its rows' type column says standard-10"):
        rescore(path, setting="vision")
    assert rescore(path, setting="standard-10").items[0].setting == "standard-10"


def test_a_file_that_names_no_setting_takes_the_flag(fidelity, tmp_path):
    path = _copy(fidelity / "mmmu-pro" / TODAY_VISION, tmp_path / "outputs.jsonl")
    unsaid = rescore(path)
    assert {it.setting for it in unsaid.items} == {None}
    assert any("pass --setting" in n and "ten options" in n for n in unsaid.notes)
    said = rescore(path, setting="vision")
    assert {it.setting for it in said.items} == {"vision"}
    assert said.scoring.deterministic_correct == unsaid.scoring.deterministic_correct == 866


def test_a_setting_with_the_wrong_number_of_options_is_refused(fidelity, tmp_path):
    path = _copy(fidelity / "mmmu-pro" / TODAY_VISION, tmp_path / "outputs.jsonl")
    with pytest.raises(ConfigError, match=r"--setting standard-4 was asked, but 1436 of its 1730 items have 9 or more options"):
        rescore(path, setting="standard-4")
    # The misread of issue 27: a ten-option setting scored against the original options.
    rows = [json.loads(line) for line in (fidelity / "mmmu-pro-2024" / STD10_2024).read_text().splitlines()]
    for row in rows:
        del row["type"], row["shuffled_options"]
    stripped = tmp_path / "gpt-4o_standard(10 options)_direct.jsonl"
    stripped.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"its file name says standard-10, but only 3 of its 1730 items"):
        rescore(stripped)


def test_a_file_of_two_types_needs_setting_to_choose_one(fidelity, tmp_path):
    both = tmp_path / "gpt-4o_direct.jsonl"
    both.write_text((fidelity / "mmmu-pro-2024" / STD10_2024).read_text()
                    + (fidelity / "mmmu-pro-2024" / VISION_2024).read_text())
    with pytest.raises(ConfigError, match=r"mixes MMMU-Pro settings \(1730 standard-10, 1730 vision\)"):
        rescore(both, format="official-mmmu-pro")
    vision = rescore(both, format="official-mmmu-pro", setting="vision")
    assert (vision.scoring.deterministic_correct, vision.scoring.fallbacks) == (725, 47)
    assert len(vision.items) == 1730 and {it.setting for it in vision.items} == {"vision"}


def test_benchmark_and_split_flags_against_the_content(fidelity, tmp_path, capsys):
    pro = fidelity / "mmmu-pro" / TODAY_VISION
    assert main(["rescore", str(pro), "--benchmark", "mmmu"]) == 2
    err = capsys.readouterr().err
    assert "--benchmark mmmu was asked, but the file is an official-mmmu-pro file" in err
    assert "Traceback" not in err
    with pytest.raises(ConfigError, match="whose one split is test"):
        rescore(pro, split="validation")
    qwen = fidelity / "mmmu" / "qwen_vl"
    with pytest.raises(ConfigError, match=r"--split dev was asked, but its ids say 900 validation"):
        rescore(qwen, format="official-mmmu", split="dev")
    with pytest.raises(ConfigError, match="MMMU, which has no settings"):
        rescore(qwen, format="official-mmmu", setting="vision")


REAL = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "real_tools"


def test_a_flag_against_a_harness_task_is_refused_naming_both():
    log = REAL / "inspect_mmmu_multiple_choice.eval"
    with pytest.raises(ConfigError, match=r"--split dev was asked, but its inspect task '.*' says validation"):
        rescore(log, data="sample", split="dev")
    with pytest.raises(ConfigError, match=r"--benchmark mmmu-pro was asked, but its inspect task '.*' says mmmu"):
        rescore(log, data="sample", benchmark="mmmu-pro", setting="vision")
    with pytest.raises(ConfigError, match=r"MMMU-Pro vision but standard-10 was asked"):
        rescore(REAL / "vf04_mmmu_pro_vision", data="sample", setting="standard-10")
    assert rescore(log, data="sample", split="validation").dataset.split == "validation"
