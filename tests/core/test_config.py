"""RunConfig refuses values that would silently mean something else."""

import pytest

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("limit", 0, "--limit must be at least 1"),
        ("limit", "5", "--limit must be a whole number, not '5'"),
        ("max_tokens", -1, "--max-tokens must be at least 1"),
        ("concurrency", 0, "--concurrency must be at least 1"),
        ("max_attempts", 0, "--max-attempts must be at least 1"),
        ("request_timeout", 0, "--request-timeout must be greater than 0"),
        ("temperature", -0.5, "--temperature must be at least 0"),
        ("top_p", 0, "--top-p must be greater than 0"),
        ("top_p", 1.5, "--top-p must be at most 1"),
        ("batch_size", 0, "--batch-size must be at least 1"),
        ("max_image_pixels", True, "--max-image-pixels must be a whole number"),
    ],
)
def test_out_of_range_or_mistyped_numbers_are_refused(field, value, message):
    """`--concurrency 0` used to run at 64 while the manifest said 0."""
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        RunConfig(model="random", **{field: value})


def test_zero_temperature_and_a_float_timeout_are_accepted():
    config = RunConfig(model="random", temperature=0, request_timeout=2.5, top_p=1)
    assert config.temperature == 0 and config.request_timeout == 2.5


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"benchmark": "mmmu-pro", "split": "validation"}, "one split"),
        ({"benchmark": "mmmu", "setting": "vision"}, "--setting applies to mmmu-pro only"),
        ({"benchmark": "mmmu-pro", "setting": "standard-10", "prompt": "ocr"}, "ocr applies to --setting vision"),
        ({"shard": (3, 2)}, "--shard 3/2"),
        ({"image_layout": "sideways"}, "--image-layout 'sideways'"),
    ],
)
def test_impossible_combinations_are_refused(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        RunConfig(model="random", **kwargs)


def test_manifest_holds_resolved_split_and_setting():
    manifest = RunConfig(model="random", benchmark="mmmu-pro").to_manifest()
    assert manifest["split"] == "test" and manifest["setting"] == "standard-10"
