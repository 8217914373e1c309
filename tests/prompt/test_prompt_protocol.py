"""EvalProtocol: from a RunConfig, the official flag, the fingerprint, the manifest record."""

from __future__ import annotations

import dataclasses

import pytest

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.prompt import EvalProtocol, build_request
from mmmu_eval.prompt import layout, mmmu_pro_templates, mmmu_templates
from mmmu_eval.core.records import GenerationSettings

BASE = EvalProtocol("mmmu-pro", "standard-10", "direct")


def test_from_config_mmmu_leaves_generation_empty():
    """MMMU's only official settings are LLaVA's beam search: we invent none."""
    protocol = EvalProtocol.from_config(RunConfig(model="random"))
    assert protocol == EvalProtocol("mmmu", None, "direct", "interleaved", None, GenerationSettings())


def test_from_config_mmmu_pro_defaults_to_the_official_4096_tokens():
    protocol = EvalProtocol.from_config(RunConfig(model="random", benchmark="mmmu-pro"))
    assert (protocol.setting, protocol.mode, protocol.generation.max_tokens) == ("standard-10", "direct", 4096)


def test_from_config_carries_every_setting():
    config = RunConfig(
        model="random", benchmark="mmmu-pro", setting="vision", prompt="ocr", image_layout="images-first",
        system_prompt="Be brief.", max_tokens=64, temperature=0.0, top_p=0.9, seed=7,
        extra_body={"top_k": 5, "chat_template_kwargs": {"enable_thinking": False}},
    )
    protocol = EvalProtocol.from_config(config)
    assert protocol == EvalProtocol(
        "mmmu-pro", "vision", "ocr", "images-first", "Be brief.",
        GenerationSettings(64, 0.0, 0.9, 7, (("chat_template_kwargs", {"enable_thinking": False}), ("top_k", 5))),
    )


def test_request_carries_choices_system_and_generation(item_factory):
    protocol = EvalProtocol("mmmu", None, "direct", system="S", generation=GenerationSettings(max_tokens=9))
    request = build_request(item_factory("Q", ["a", "b", "c"]), protocol)
    assert (request.choices, request.system, request.generation) == (("A", "B", "C"), "S", GenerationSettings(max_tokens=9))
    assert build_request(item_factory("Q", []), protocol).choices == ()


@pytest.mark.parametrize(
    ("protocol", "official"),
    [
        (EvalProtocol("mmmu", None, "direct"), True),
        (EvalProtocol("mmmu", None, "cot"), False),
        (EvalProtocol("mmmu-pro", "standard-10", "direct"), True),
        (EvalProtocol("mmmu-pro", "standard-4", "cot"), True),
        (EvalProtocol("mmmu-pro", "vision", "cot"), True),
        (EvalProtocol("mmmu-pro", "vision", "ocr"), False),
        (EvalProtocol("mmmu", None, "boxed"), False),
        (EvalProtocol("mmmu-pro", "standard-10", "boxed"), False),
        (EvalProtocol("mmmu-pro", "vision", "boxed"), False),
        (EvalProtocol("mmmu-pro", "vision", "direct", image_layout="images-first"), True),
    ],
)
def test_official_flag(protocol, official):
    assert protocol.official is official
    assert protocol.describe()["official"] is official


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("mmmu", "vision", "direct"), "MMMU has no settings"),
        (("mmmu", None, "ocr"), "--prompt 'ocr'"),
        (("mmmu-pro", None, "direct"), "--setting None"),
        (("mmmu-pro", "standard-10", "ocr"), "vision only"),
        (("mmmu-pro", "vision", "direct", "sideways"), "--image-layout 'sideways'"),
        (("mmlu", None, "direct"), "--benchmark 'mmlu'"),
    ],
)
def test_impossible_protocols_are_config_errors(args, message):
    with pytest.raises(ConfigError, match=message):
        EvalProtocol(*args)


def test_an_item_of_another_setting_is_refused(item_factory):
    item = item_factory("Q", ["a"], item_id="test_Economics_3", benchmark="mmmu-pro", setting="standard-4")
    with pytest.raises(ConfigError, match="test_Economics_3: the item is from mmmu-pro standard-4 but the protocol is for mmmu-pro standard-10"):
        build_request(item, BASE)


#: The protocol fingerprint of every official setting, as `mmmu-eval run` builds it from its flags.
#: A run directory records its fingerprint and `--resume` (and `merge`) refuse a different one,
#: so changing any of these silently would make every existing run directory unresumable.
#: Last deliberate change: images no <image N> token refers to are not sent by default (the
#: official rule, `--unreferenced-images append` to send them), which changed every setting that
#: binds tokens (MMMU, MMMU-Pro standard); vision sends its one screenshot and kept its prints.
OFFICIAL_FINGERPRINTS = {
    ("mmmu", None, "direct"): "3b6041b8b2670252d390dd7530fd341de6ce881ddffeb8edf6a383280620f62c",
    ("mmmu-pro", "standard-10", "direct"): "c48529b0cd8861fc0cc3ae55a4ec72b9d9ab434259970bc147bb8289e6418405",
    ("mmmu-pro", "standard-10", "cot"): "19700ff63ee4eb9ff941ec525460bd8104f8deef7a7f44f34bf9b5ae62d8969c",
    ("mmmu-pro", "standard-4", "direct"): "3cbac3f4a19eb04c97e7811c3d3f0e45b340efda6744e981c13ea5983723a2d3",
    ("mmmu-pro", "standard-4", "cot"): "af74a1a85b5a349af12c432f670f84330b1751055823f29f51b8ee55eb77091b",
    ("mmmu-pro", "vision", "direct"): "d40679b9a702dacc67c0a2d7ae57bc680a31c8c013733d4403e74cea089cb8a0",
    ("mmmu-pro", "vision", "cot"): "6be5e864ce878d45c53a3677513be603f0f5da924571230e995545deca135638",
}


@pytest.mark.parametrize(("benchmark", "setting", "mode"), sorted(OFFICIAL_FINGERPRINTS, key=str))
def test_the_fingerprint_of_each_official_setting_is_pinned(benchmark, setting, mode):
    protocol = EvalProtocol.from_config(RunConfig(model="random", benchmark=benchmark, setting=setting, prompt=mode))
    assert protocol.official is True
    assert protocol.fingerprint() == OFFICIAL_FINGERPRINTS[(benchmark, setting, mode)], (
        f"the protocol fingerprint of {benchmark} {setting or ''} {mode} changed. If by accident (a template, "
        "a default setting or the hashing moved), undo it. If on purpose, update this pin and announce it: "
        "--resume will refuse every run directory written under the old fingerprint."
    )


def test_the_mmmu_fingerprint_is_the_same_for_every_split():
    """The split is not part of the protocol (a resume checks it separately): one fingerprint for all three."""
    prints = {EvalProtocol.from_config(RunConfig(model="random", split=s)).fingerprint() for s in ("dev", "validation", "test")}
    assert prints == {OFFICIAL_FINGERPRINTS[("mmmu", None, "direct")]}


@pytest.mark.parametrize(
    "change",
    [
        {"setting": "standard-4"},
        {"setting": "vision"},
        {"mode": "cot"},
        {"mode": "boxed"},
        {"image_layout": "text-then-images"},
        {"image_layout": "images-first"},
        {"system": "You are helpful."},
        {"system": ""},
        {"generation": GenerationSettings(max_tokens=4096)},
        {"generation": GenerationSettings(temperature=0.0)},
        {"generation": GenerationSettings(top_p=1.0)},
        {"generation": GenerationSettings(seed=0)},
        {"generation": GenerationSettings(extra_body=(("top_k", 1),))},
        {"benchmark": "mmmu", "setting": None},
        {"unreferenced_images": "append"},
    ],
)
def test_fingerprint_changes_with_every_setting(change):
    assert dataclasses.replace(BASE, **change).fingerprint() != BASE.fingerprint()


@pytest.mark.parametrize(
    ("protocol", "module", "name"),
    [
        (EvalProtocol("mmmu", None, "direct"), mmmu_templates, "MULTI_CHOICE_FORMAT"),
        (EvalProtocol("mmmu", None, "direct"), mmmu_templates, "SHORT_ANSWER_FORMAT"),
        (EvalProtocol("mmmu", None, "direct"), mmmu_templates, "OPTION_LINE"),
        (EvalProtocol("mmmu", None, "cot"), mmmu_templates, "COT_MULTI_CHOICE_FORMAT"),
        (EvalProtocol("mmmu", None, "cot"), mmmu_templates, "COT_SHORT_ANSWER_FORMAT"),
        (EvalProtocol("mmmu", None, "boxed"), mmmu_templates, "BOXED_MULTI_CHOICE_FORMAT"),
        (EvalProtocol("mmmu", None, "boxed"), mmmu_templates, "BOXED_SHORT_ANSWER_FORMAT"),
        (BASE, mmmu_pro_templates, "STANDARD_FORMAT"),
        (BASE, mmmu_pro_templates, "OPTION_LINE"),
        (BASE, mmmu_pro_templates, "OPTION_SEPARATOR"),
        (BASE, mmmu_pro_templates, "IMAGE_TOKEN_REPLACEMENT"),
        (EvalProtocol("mmmu-pro", "vision", "ocr"), mmmu_pro_templates, "OCR_VISION_INSTRUCTION"),
        (BASE, layout, "TOKEN_PATTERN"),
    ],
)
def test_fingerprint_changes_with_every_template_text(monkeypatch, protocol, module, name):
    before = protocol.fingerprint()
    monkeypatch.setattr(module, name, getattr(module, name) + " ")
    assert protocol.fingerprint() != before


@pytest.mark.parametrize("rule", ["official", "append"])
def test_fingerprint_changes_with_the_text_of_the_image_rule_in_use(monkeypatch, rule):
    protocol = dataclasses.replace(BASE, unreferenced_images=rule)
    before = protocol.fingerprint()
    monkeypatch.setitem(layout.UNREFERENCED_RULES, rule, layout.UNREFERENCED_RULES[rule] + " ")
    assert protocol.fingerprint() != before


@pytest.mark.parametrize(("mode", "kind"), [("direct", "standard"), ("cot", "standard"), ("direct", "vision"), ("cot", "vision")])
def test_fingerprint_changes_with_every_official_instruction(monkeypatch, mode, kind):
    protocol = EvalProtocol("mmmu-pro", "vision" if kind == "vision" else "standard-10", mode)
    before = protocol.fingerprint()
    changed = {m: dict(v) for m, v in mmmu_pro_templates.INSTRUCTIONS.items()}
    changed[mode][kind] += "!"
    monkeypatch.setattr(mmmu_pro_templates, "INSTRUCTIONS", changed)
    assert protocol.fingerprint() != before


def test_fingerprint_ignores_templates_the_protocol_does_not_use(monkeypatch):
    """Editing the OCR prompt must not invalidate standard-10 runs being resumed."""
    before = BASE.fingerprint()
    monkeypatch.setattr(mmmu_pro_templates, "OCR_VISION_INSTRUCTION", "changed")
    monkeypatch.setattr(mmmu_templates, "COT_MULTI_CHOICE_FORMAT", "changed")
    assert BASE.fingerprint() == before


def test_describe_records_what_the_manifest_needs():
    protocol = EvalProtocol("mmmu-pro", "standard-4", "cot", image_layout="text-then-images",
                            generation=GenerationSettings(max_tokens=4096, extra_body=(("top_k", 5),)))
    record = protocol.describe()
    assert record["fingerprint"] == protocol.fingerprint()
    assert (record["benchmark"], record["setting"], record["mode"], record["image_layout"]) == (
        "mmmu-pro", "standard-4", "cot", "text-then-images")
    assert record["official"] is True
    assert record["generation"] == {"max_tokens": 4096, "temperature": None, "top_p": None, "seed": None, "extra_body": {"top_k": 5}}
    assert record["templates"]["instruction"].startswith("Answer the preceding multiple choice question.")
    assert record["image_token"] == r"<image\s+(\d+)>"
    import json
    json.dumps(record)  # manifest-ready


@pytest.mark.parametrize(("setting", "kind"), [("standard-10", "standard"), ("vision", "vision")])
def test_fingerprint_changes_with_every_boxed_instruction(monkeypatch, setting, kind):
    protocol = EvalProtocol("mmmu-pro", setting, "boxed")
    before = protocol.fingerprint()
    monkeypatch.setattr(mmmu_pro_templates, "BOXED_INSTRUCTIONS", {**mmmu_pro_templates.BOXED_INSTRUCTIONS, kind: "changed"})
    assert protocol.fingerprint() != before


@pytest.mark.parametrize("setting", ["standard-10", "standard-4", "vision"])
def test_boxed_fingerprint_differs_from_every_other_mode(setting):
    """A boxed run must never resume into a direct or CoT run directory, nor the reverse."""
    boxed = EvalProtocol("mmmu-pro", setting, "boxed").fingerprint()
    assert boxed not in {EvalProtocol("mmmu-pro", setting, mode).fingerprint() for mode in ("direct", "cot")}


@pytest.mark.parametrize(
    "settings",
    [
        {"benchmark": "mmmu"},
        {"benchmark": "mmmu", "split": "dev"},
        {"benchmark": "mmmu-pro"},
        {"benchmark": "mmmu-pro", "setting": "standard-4"},
        {"benchmark": "mmmu-pro", "setting": "vision"},
    ],
)
def test_run_config_accepts_the_boxed_prompt_everywhere(settings):
    config = RunConfig(model="random", prompt="boxed", **settings)
    protocol = EvalProtocol.from_config(config)
    assert protocol.mode == "boxed" and protocol.official is False


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"benchmark": "mmmu", "prompt": "Boxed"}, "--prompt 'Boxed'"),
        ({"benchmark": "mmmu-pro", "prompt": "box"}, "--prompt 'box' is not one of direct, cot, boxed, ocr"),
        ({"benchmark": "mmmu", "prompt": "ocr"}, "--prompt 'ocr'"),
    ],
)
def test_run_config_refuses_unknown_prompt_modes(settings, message):
    with pytest.raises(ConfigError, match=message):
        RunConfig(model="random", **settings)


def test_describe_says_a_boxed_protocol_is_ours():
    record = EvalProtocol("mmmu-pro", "vision", "boxed").describe()
    assert record["official"] is False and record["mode"] == "boxed"
    assert "\\boxed{LETTER}" in record["templates"]["instruction"]
    assert any("boxed prompt is ours" in note for note in record["notes"])


#: Fingerprints of runs made before the official image rule became the default (computed by the
#: code of that time). ``--unreferenced-images append`` must reproduce them, so those runs resume.
BEFORE_THE_OFFICIAL_IMAGE_RULE = {
    ("mmmu-pro", "standard-10"): "522e3eb84b94921dbb11641b5d8995877c13d3216f0054575264a607438fcdcb",
    ("mmmu-pro", "standard-4"): "9eaad20ed3d01e06df5e499e990059de6ed12e9c07e1833219a83d2fd37eabcf",
    ("mmmu", None): "e9e33a67e845ec47fd7589b68eb642f646924c8bad35330e3fb9ad10b1256437",
}


@pytest.mark.parametrize(("benchmark", "setting"), sorted(BEFORE_THE_OFFICIAL_IMAGE_RULE, key=str))
def test_append_reproduces_the_fingerprint_of_runs_made_before_the_official_rule(benchmark, setting):
    config = RunConfig(model="random", benchmark=benchmark, setting=setting)
    official = EvalProtocol.from_config(config)
    appended = EvalProtocol.from_config(dataclasses.replace(config, unreferenced_images="append"))
    assert appended.fingerprint() == BEFORE_THE_OFFICIAL_IMAGE_RULE[(benchmark, setting)]
    assert official.fingerprint() != appended.fingerprint()
    assert (official.official, appended.official) == (True, False)
    assert any("--unreferenced-images append is ours" in n for n in appended.describe()["notes"])
    assert official.describe()["unreferenced_images"].startswith("not sent")


def test_vision_is_untouched_by_the_image_rule():
    """The screenshot is sent under either rule, so vision runs keep their fingerprint and stay official."""
    config = RunConfig(model="random", benchmark="mmmu-pro", setting="vision", prompt="cot")
    official = EvalProtocol.from_config(config)
    appended = EvalProtocol.from_config(dataclasses.replace(config, unreferenced_images="append"))
    assert official.fingerprint() == appended.fingerprint() == (
        "6be5e864ce878d45c53a3677513be603f0f5da924571230e995545deca135638"
    )
    assert official.official and appended.official


def test_an_unknown_image_rule_is_refused():
    with pytest.raises(ConfigError, match="--unreferenced-images 'drop' is not one of official, append"):
        RunConfig(model="random", unreferenced_images="drop")
    with pytest.raises(ConfigError, match="--unreferenced-images"):
        EvalProtocol("mmmu", None, "direct", unreferenced_images="drop")
