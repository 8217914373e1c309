"""examples(): the framework-neutral core. Its prompts are ``run --prompt boxed``'s requests, byte for byte."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys

import pytest

from environments.conftest import BAD, IMAGES
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.environments import examples, scores
from mmmu_eval.environments.examples import resolve_setting
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.prompt.protocol import EvalProtocol, build_request

#: (benchmark, selection) pairs that cover both benchmarks and every MMMU-Pro setting.
WHERE = [
    pytest.param("mmmu-pro", {"setting": "standard-10"}, id="pro-standard-10"),
    pytest.param("mmmu-pro", {"setting": "standard-4"}, id="pro-standard-4"),
    pytest.param("mmmu-pro", {"setting": "vision"}, id="pro-vision"),
    pytest.param("mmmu", {"split": "validation"}, id="mmmu-validation"),
    pytest.param("mmmu", {"split": "dev"}, id="mmmu-dev"),
]


def boxed_run_messages(item, benchmark, setting):
    """The messages ``mmmu-eval run --prompt boxed --model openai:m`` puts on the wire for an item."""
    config = RunConfig(model="openai:m", benchmark=benchmark, setting=setting, prompt="boxed")
    request = build_request(item, EvalProtocol.from_config(config))
    body, _ = OpenAIBackend("m", api_key="k").encode_body(request)
    return json.loads(body)["messages"]


def wire(messages) -> bytes:
    return json.dumps(messages, separators=(",", ":")).encode()


def data_url_bytes(part) -> bytes:
    return base64.b64decode(part["image_url"]["url"].split(",", 1)[1])


@pytest.mark.parametrize("benchmark,where", WHERE)
@pytest.mark.parametrize("source", ["sample", "snapshot"])
def test_every_prompt_is_the_boxed_run_request_byte_for_byte(benchmark, where, source, snapshot):
    data = "sample" if source == "sample" else snapshot
    subset = "Accounting" if benchmark == "mmmu" and source == "snapshot" else None
    got = list(examples(benchmark, data=data, subset=subset, on_problem=lambda _: None, **where))
    dataset = load_benchmark(benchmark, data=data, subjects=[subset] if subset else None, **where)
    by_id = {it.id: it for it in dataset.items}
    assert got, "the data has examples"
    setting = dataset.setting
    for example in got:
        item = by_id[example["id"]]
        assert wire(example["prompt"]) == wire(boxed_run_messages(item, benchmark, setting))
        assert example["info"]["id"] == item.id and example["info"]["subject"] == item.subject
        assert example["info"]["options"] == list(item.options)
        assert example["info"]["question_type"] == item.question_type
        assert example["info"]["setting"] == setting and example["info"]["split"] == dataset.split
        gold = [item.answer] if isinstance(item.answer, str) else list(item.answer)
        assert example["info"]["answers"] == gold
        assert example["answer"] == (gold[0] if len(gold) == 1 else json.dumps(gold))


def test_images_go_in_token_order_with_repeats(snapshot):
    """Question: <image 2> then <image 1>; option B: <image 3>; option C: <image 1> again."""
    example = next(e for e in examples("mmmu-pro", data=snapshot, on_problem=lambda _: None)
                   if e["id"] == "test_Accounting_1")
    parts = example["prompt"][-1]["content"]
    shown = [data_url_bytes(p) for p in parts if p["type"] == "image_url"]
    assert shown == [IMAGES[2], IMAGES[1], IMAGES[3], IMAGES[1]]
    text = "".join(p["text"] for p in parts if p["type"] == "text")
    assert "\\boxed{LETTER}" in text and "J. j" in text  # ten options, A..J


def test_option_counts_from_two_to_twelve(snapshot):
    pro = {e["id"]: e for e in examples("mmmu-pro", data=snapshot, on_problem=lambda _: None)}
    assert len(pro["test_Accounting_2"]["info"]["options"]) == 2
    assert len(pro["test_Biology_1"]["info"]["options"]) == 10 and pro["test_Biology_1"]["answer"] == "J"
    mmmu = {e["id"]: e for e in examples("mmmu", data=snapshot, subset="acc", on_problem=lambda _: None)}
    twelve = mmmu["validation_Accounting_1"]
    assert len(twelve["info"]["options"]) == 12 and twelve["answer"] == "L"
    assert "(L) choice 11" in "".join(p.get("text", "") for p in twelve["prompt"][-1]["content"])


def test_vision_examples_send_the_screenshot_after_the_instruction(snapshot):
    example = next(examples("mmmu-pro", mode="vision", data=snapshot, on_problem=lambda _: None))
    parts = example["prompt"][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    assert data_url_bytes(parts[1]) == IMAGES[5]
    assert example["answer"] == "B" and example["info"]["setting"] == "vision"


def test_open_questions_keep_their_own_instruction_and_gold_text(snapshot):
    mmmu = {e["id"]: e for e in examples("mmmu", data=snapshot, subset="acc", on_problem=lambda _: None)}
    open_one = mmmu["validation_Accounting_2"]
    text = open_one["prompt"][-1]["content"][-1]["text"]
    assert text.endswith("\\boxed{ANSWER}, where ANSWER is a single word, phrase or number and nothing else.")
    assert open_one["answer"] == "36" and open_one["info"]["question_type"] == "open"
    assert open_one["info"]["options"] == []
    several = mmmu["validation_Accounting_3"]
    assert several["info"]["answers"] == ["Paris", "paris, france"]
    assert several["answer"] == '["Paris", "paris, france"]', "several accepted answers travel as one JSON string"


@pytest.mark.parametrize("where", [{"setting": "standard-10"}, {"setting": "vision"}], ids=["standard-10", "vision"])
def test_bad_rows_are_reported_by_id_and_the_rest_go_on(snapshot, where):
    problems: list[DataError] = []
    got = [e["id"] for e in examples("mmmu-pro", data=snapshot, on_problem=problems.append, **where)]
    bad = BAD[where["setting"]]
    assert {p.item_id for p in problems} == set(bad)
    for problem in problems:
        assert str(problem).startswith(f"{problem.item_id}: ") and bad[problem.item_id] in str(problem)
    assert got and not set(got) & set(bad)


def test_bad_mmmu_rows_are_logged_by_default(snapshot, caplog):
    got = [e["id"] for e in examples("mmmu", data=snapshot, subset="acc")]
    assert "validation_Accounting_9" not in got and len(got) == 3
    assert any("validation_Accounting_9" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


def test_shuffle_seed_shuffles_before_limit_and_none_keeps_the_order(snapshot):
    """The documented order: the dataset's, shuffled by ``random.Random(shuffle_seed)``, then cut to ``limit``."""
    def ids(**kw):
        return [e["id"] for e in examples("mmmu-pro", setting="vision", data="sample", **kw)]

    everything = ids()
    dataset_order = [it.id for it in load_benchmark("mmmu-pro", setting="vision", data="sample").items]
    assert everything == dataset_order, "no seed keeps the dataset's order"
    assert ids(limit=2) == everything[:2]
    expected = list(dataset_order)
    random.Random(3).shuffle(expected)
    shuffled = ids(shuffle_seed=3)
    assert shuffled != everything, "shuffle_seed=3 must change the order of the 24 items"
    assert shuffled == expected, "the order is random.Random(shuffle_seed).shuffle of the dataset's, as documented"
    assert ids(shuffle_seed=4) != shuffled, "another seed gives another order"
    assert ids(shuffle_seed=3, limit=2) == shuffled[:2] != everything[:2], "the shuffle comes before the limit"
    with pytest.warns(DeprecationWarning, match=r"examples\(seed=\) is deprecated .* pass shuffle_seed="):
        assert ids(seed=3) == shuffled, "the keyword's name before, for one release"


@pytest.mark.parametrize("benchmark,kwargs,message", [
    ("mmmu-pro", {"mode": "vision", "setting": "standard-4"}, "contradicts"),
    ("mmmu-pro", {"mode": "screens"}, "mode 'screens'"),
    ("mmmu-pro", {"split": "validation"}, "only the test split"),
    ("mmmu", {"split": "test"}, "withheld"),
    ("mmmu", {"mode": "vision"}, "MMMU has no settings"),
    ("mmmu", {"subset": "acounting", "data": "sample"}, "did you mean"),
])
def test_wrong_setups_are_one_clear_config_error(benchmark, kwargs, message):
    with pytest.raises(ConfigError, match=message):
        next(examples(benchmark, **{"data": "sample", **kwargs}))


def test_mode_and_setting_resolve_as_the_hub_environment_names_them():
    assert resolve_setting("mmmu-pro") == "standard-10"
    assert resolve_setting("mmmu-pro", mode="standard") == "standard-10"
    assert resolve_setting("mmmu-pro", mode="vision") == "vision"
    assert resolve_setting("mmmu-pro", "standard-4", "standard") == "standard-4"
    assert resolve_setting("mmmu") is None


@pytest.mark.parametrize("benchmark,where", [("mmmu-pro", {"setting": "standard-10"}), ("mmmu", {"split": "validation"})])
def test_official_correct_never_counts_a_guess(benchmark, where):
    """An answer the official parser cannot read is 0 on every example (the official scorer would
    draw a random letter and sometimes hit the gold); the reward and boxed_found are 0 too."""
    got = {e["id"]: scores("no idea, sorry", e) for e in examples(benchmark, data="sample", **where)}
    assert got and all(s == {"boxed_correct": 0.0, "official_correct": 0.0, "boxed_found": 0.0} for s in got.values()), \
        {i: s for i, s in got.items() if any(s.values())}


def test_the_core_imports_and_runs_without_verifiers():
    """verifiers is an optional import: blocking it must not touch examples() or reward()."""
    code = (
        "import sys; sys.modules['verifiers'] = None\n"
        "from mmmu_eval.environments import examples, reward\n"
        "e = next(examples('mmmu-pro', setting='vision', data='sample'))\n"
        "print(reward('\\\\boxed{' + e['answer'] + '}', e))\n"
        "import mmmu_pro\n"
        "try:\n    mmmu_pro.load_environment(data='sample')\n"
        "except ModuleNotFoundError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, second = done.stdout.splitlines()[:2]
    assert first == "1.0"
    assert "pip install 'mmmu-eval[verifiers]'" in second
