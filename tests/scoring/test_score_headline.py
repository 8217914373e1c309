"""The MMMU-Pro headline: mean of standard-10 and vision, each the better of direct and CoT."""

from __future__ import annotations

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.scoring.headline import pro_headline


def test_headline_takes_the_better_mode_per_setting():
    result = pro_headline({("standard-10", "direct"): 40.12, ("standard-10", "cot"): 55.03,
                           ("vision", "direct"): 42.43, ("vision", "cot"): 50.06, ("standard-4", "cot"): 70.0})
    assert result["headline"] == pytest.approx((55.03 + 50.06) / 2)
    assert result["settings"]["standard-10"]["mode"] == "cot"
    assert result["missing"] == []


def test_a_single_mode_is_used_as_it_is_and_hub_names_are_accepted():
    result = pro_headline({("standard (10 options)", "direct"): 0.4, ("vision", "direct"): 0.3})
    assert result["headline"] == pytest.approx((0.4 + 0.3) / 2)


def test_a_missing_setting_gives_no_headline():
    result = pro_headline({("vision", "cot"): 0.5, ("standard-4", "cot"): 0.7})
    assert result["headline"] is None and result["missing"] == ["standard-10"]


def test_unknown_setting_or_mode_is_a_config_error():
    with pytest.raises(ConfigError, match="setting"):
        pro_headline({("standard-7", "cot"): 0.5})
    with pytest.raises(ConfigError, match="mode"):
        pro_headline({("vision", "ocr"): 0.5})
