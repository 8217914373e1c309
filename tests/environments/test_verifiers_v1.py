"""The verifiers (0.4+) environments: found by name, prompts as ``--prompt boxed``, rewards as our parsers.

The evaluation runs through verifiers' own ``vf-eval`` command against the fake OpenAI-compatible
server, which answers each item from a table of answers whose verdicts were worked out by hand
(``environments/answers.py``); every saved rollout's reward and metrics are checked against that
table. verifiers 0.3 is tested by ``test_verifiers_legacy.py`` (``make test-verifiers-legacy``).
"""

from __future__ import annotations

import json

import pytest

from fakes import required  # noqa: E402

from environments.answers import HandAnswers  # noqa: E402
from environments.conftest import BAD  # noqa: E402
from fakes.fault_server import FaultServer  # noqa: E402
from fakes.verifiers_eval import vf_eval  # noqa: E402
from mmmu_eval.environments import examples  # noqa: E402
from mmmu_eval.core.errors import ConfigError  # noqa: E402

import mmmu  # noqa: E402
import mmmu_pro  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def vf():
    """``verifiers.v1``, imported as a test starts rather than at collection (several seconds, paid
    again by every pytest-xdist worker). verifiers is in the test extra: locally a missing install
    skips, under CI it fails. verifiers 0.3 also ships a ``verifiers.v1``, but its vf-eval is the
    classic one: its own tests are test_verifiers_legacy.py, run in their own venv."""
    v1 = required.module("verifiers.v1", "needs the verifiers extra (pip install 'mmmu-eval[verifiers]')")
    import verifiers

    if tuple(int(p) for p in verifiers.__version__.split(".")[:2]) < (0, 4):
        pytest.skip(f"verifiers {verifiers.__version__}: the 0.4 environments are tested with verifiers 0.4")
    return v1

def tasks_of(env) -> list:
    return list(env.taskset)


@pytest.mark.parametrize("module,env_id,kwargs", [
    (mmmu_pro, "mmmu-pro", {"mode": "standard"}),
    (mmmu_pro, "mmmu-pro", {"mode": "vision"}),
    (mmmu_pro, "mmmu-pro", {"setting": "standard-4"}),
    (mmmu, "mmmu", {"split": "validation"}),
    (mmmu, "mmmu", {"split": "dev"}),
])
def test_load_environment_on_the_sample_gives_the_examples_as_tasks(module, env_id, kwargs, vf):
    env = module.load_environment(data="sample", **kwargs)
    assert isinstance(env, vf.Env)
    tasks = tasks_of(env)
    expected = list(examples(env_id, data="sample", **kwargs))
    assert [t.data.id for t in tasks] == [e["id"] for e in expected] and tasks
    for task, example in zip(tasks, expected):
        wire = [vf.dialects.chat.message_to_wire(m) for m in task.data.prompt]
        assert json.dumps(wire) == json.dumps(example["prompt"])
        assert task.data.answer == example["answer"] and task.data.info == example["info"]
        assert task.key == example["id"]


def test_verifiers_finds_both_environments_by_name():
    from verifiers.v1.utils.loaders import default_harness_id, environment_class, taskset_class

    assert taskset_class("mmmu-pro").__name__ == "MMMUProTaskset"
    assert taskset_class("mmmu").__name__ == "MMMUTaskset"
    assert environment_class("mmmu-pro").__name__ == "SingleTurnEnv"
    assert default_harness_id("mmmu-pro") == "mmmu-pro"  # the taskset's own single-turn harness


def test_wrong_arguments_are_one_config_error():
    with pytest.raises(ConfigError, match="contradicts"):
        mmmu_pro.load_environment(mode="vision", setting="standard-10", data="sample")
    with pytest.raises(ConfigError, match="split"):
        mmmu.load_environment(split="train", data="sample")


@pytest.mark.parametrize("env_id,taskset,where", [
    ("mmmu-pro", {"mode": "vision"}, {"setting": "vision"}),
    ("mmmu-pro", {"mode": "standard"}, {"setting": "standard-10"}),
    ("mmmu", {"split": "validation", "subset": "Accounting"}, {"split": "validation"}),
], ids=["pro-vision", "pro-standard-10", "mmmu-validation"])
def test_vf_eval_rewards_equal_the_hand_worked_verdicts(tmp_path, snapshot, env_id, taskset, where):
    good = {e["id"]: e for e in examples(env_id, data=snapshot, on_problem=lambda _: None, **taskset)}
    answers = HandAnswers(list(good.values()))
    with FaultServer(fault_rate=0.0, answer=answers) as server:
        run = vf_eval(env_id, server.url, tmp_path, data=snapshot, **taskset)
        bodies = list(server.bodies)
    episodes = run.episodes
    bad = BAD[where.get("setting") or where["split"]]
    assert {ep["task"]["data"]["id"] for ep in episodes} == set(good) | set(bad)
    assert len(bodies) == len(good)  # bad items never reach the model

    # What reached the server is the --prompt boxed request, byte for byte.
    sent = {json.dumps(b["messages"]) for b in bodies}
    assert sent == {json.dumps(e["prompt"]) for e in good.values()}

    checked = 0
    for episode in episodes:
        item_id = episode["task"]["data"]["id"]
        trace = episode["traces"][0]
        if item_id in bad:
            assert not episode["ok"] and bad[item_id] in json.dumps(trace["errors"] or episode["errors"])
            assert item_id in json.dumps(trace["errors"] or episode["errors"])
            continue
        assert episode["ok"] and trace["task"]["data"]["info"]["id"] == item_id
        got = (trace["rewards"]["boxed_correct"]["score"], trace["metrics"]["official_correct"],
               trace["metrics"]["boxed_found"])
        expected = answers.expected[item_id]
        if expected is None:  # an open question answered with its gold text in a box
            assert (got[0], got[2]) == (1.0, 1.0), item_id
        else:
            assert got == expected, (item_id, trace["nodes"][-1]["message"]["content"])
            checked += 1
    assert checked >= 1 and len(good) >= 2


def test_vf_eval_on_the_bundled_sample_saves_every_item_with_its_id(tmp_path):
    sample = list(examples("mmmu-pro", mode="vision", data="sample"))
    answers = HandAnswers(sample)
    with FaultServer(fault_rate=0.0, answer=answers) as server:
        run = vf_eval("mmmu-pro", server.url, tmp_path, mode="vision", data="sample")
    ids = [ep["task"]["data"]["id"] for ep in run.episodes]
    assert sorted(ids) == sorted(e["id"] for e in sample)
    assert all(ep["ok"] for ep in run.episodes)
    traces = [ep["traces"][0] for ep in run.episodes]
    means = (sum(t["rewards"]["boxed_correct"]["score"] for t in traces) / len(traces),
             sum(t["metrics"]["official_correct"] for t in traces) / len(traces),
             sum(t["metrics"]["boxed_found"] for t in traces) / len(traces))
    # The same 24 answers give the same means under verifiers 0.3 (test_verifiers_legacy.py): 8/24, 4/24, 12/24.
    assert answers.means() == pytest.approx((8 / 24, 4 / 24, 12 / 24))
    assert means == pytest.approx(answers.means())
    assert (run.run_dir / "configs" / "resolved" / "eval.json").is_file()
