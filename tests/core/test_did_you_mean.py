"""The "did you mean" hint is worded by one function (errors.did_you_mean) for an unknown run or
suite setting, a suite setting's value, a parser and an item id; the messages are pinned as
they were when each wrote the hint itself."""

from __future__ import annotations

import pytest

from mmmu_eval.dataset.load import find_item, load_benchmark
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.run.resolve import resolve_config
from mmmu_eval.scoring.scorer import score_responses
from mmmu_eval.suite.suite_config import resolve_suite_config


def _message(call, *args, **kwargs) -> str:
    with pytest.raises((ConfigError, DataError)) as info:
        call(*args, **kwargs)
    return str(info.value)


def test_each_unknown_name_gets_the_same_hint():
    assert _message(resolve_config, None, {"model": "random", "temprature": 0}) == \
        "unknown run setting 'temprature'; did you mean temperature?"
    assert _message(resolve_suite_config, None, {"model": "random", "setings": "vision"}) == \
        "unknown suite setting 'setings'; did you mean settings?"
    assert _message(resolve_suite_config, None, {"model": "random", "settings": "vison"}) == \
        "settings='vison' is not one of standard-4, standard-10, vision; did you mean vision?"
    assert _message(score_responses, [], {}, parsers=("oficial",)) == \
        "parsers='oficial' is unknown; did you mean official? (known: official, mmmu, mmmu-pro, boxed, strict, eval-only)"


def test_an_item_id_gets_up_to_three_guesses_and_no_hint_when_nothing_is_close():
    ds = load_benchmark("mmmu", split="dev", data="sample")
    assert _message(find_item, ds, "dev_Accounting_11") == ("dev_Accounting_11: no item with this id among 20 items; "
                                                            "did you mean dev_Accounting_1, dev_Accounting_2, dev_Economics_1?")
    assert _message(find_item, ds, "zzzz") == "zzzz: no item with this id among 20 items"
