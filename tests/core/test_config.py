"""RunConfig refuses values that would silently mean something else, naming the argument as the
caller wrote it: the keyword in Python (``limit=``), the flag on the command line (``--limit``)."""

import re

import pytest

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, speaking_cli


def refused(kwargs: dict, python: str, cli: str) -> None:
    """RunConfig(**kwargs) is refused saying ``python`` to a Python caller and ``cli`` on the command line."""
    with pytest.raises(ConfigError, match=re.escape(python)):
        RunConfig(model="random", **kwargs)
    with speaking_cli({}), pytest.raises(ConfigError, match=re.escape(cli)):
        RunConfig(model="random", **kwargs)


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("limit", 0, "{} must be at least 1"),
        ("limit", "5", "{} must be a whole number, not '5'"),
        ("max_tokens", -1, "{} must be at least 1"),
        ("concurrency", 0, "{} must be at least 1"),
        ("max_attempts", 0, "{} must be at least 1"),
        ("request_timeout", 0, "{} must be greater than 0"),
        ("temperature", -0.5, "{} must be at least 0"),
        ("top_p", 0, "{} must be greater than 0"),
        ("top_p", 1.5, "{} must be at most 1"),
        ("batch_size", 0, "{} must be at least 1"),
        ("max_image_pixels", True, "{} must be a whole number"),
        ("generation_seed", -1, "{} must be at least 0"),
    ],
)
def test_out_of_range_or_mistyped_numbers_are_refused(field, value, message):
    """`--concurrency 0` used to run at 64 while the manifest said 0."""
    refused({field: value}, message.format(f"{field}="), message.format("--" + field.replace("_", "-")))


def test_zero_temperature_and_a_float_timeout_are_accepted():
    config = RunConfig(model="random", temperature=0, request_timeout=2.5, top_p=1)
    assert config.temperature == 0 and config.request_timeout == 2.5


@pytest.mark.parametrize(
    "kwargs,python,cli",
    [
        ({"benchmark": "mmmu-pro", "split": "validation"}, "drop split=", "drop --split"),
        ({"benchmark": "mmmu", "setting": "vision"}, "setting= applies to mmmu-pro only; MMMU has splits (split=)",
         "--setting applies to mmmu-pro only; MMMU has splits (--split)"),
        ({"benchmark": "mmmu-pro", "setting": "standard-10", "prompt": "ocr"}, "prompt='ocr' applies to setting='vision'",
         "--prompt 'ocr' applies to --setting 'vision'"),
        ({"shard": (3, 2)}, "shard='3/2'", "--shard 3/2"),
        ({"image_layout": "sideways"}, "image_layout='sideways' is not one of", "--image-layout 'sideways' is not one of"),
        ({"split": "devv"}, "split='devv' is not one of dev, validation, test",
         "--split 'devv' is not one of dev, validation, test"),
        ({"parsers": ("oficial",)}, "parsers='oficial' is not one of", "--parser 'oficial' is not one of"),
    ],
)
def test_impossible_combinations_are_refused(kwargs, python, cli):
    """Issue 39: ``evaluate(split="devv")`` said ``--split 'devv'``, a flag the caller never typed."""
    if "parsers" in kwargs:  # the CLI's own flag for the keyword, as cli/main.py passes it
        with speaking_cli({"parsers": "--parser"}), pytest.raises(ConfigError, match=re.escape(cli)):
            RunConfig(model="random", **kwargs)
        cli = "--parsers"
    refused(kwargs, python, cli)


def test_manifest_holds_resolved_split_and_setting():
    manifest = RunConfig(model="random", benchmark="mmmu-pro").to_manifest()
    assert manifest["split"] == "test" and manifest["setting"] == "standard-10"
