"""The environments under verifiers' classic API (0.3): ``SingleTurnEnv``, ``vf-eval -a``, ``evaluate_sync``.

verifiers 0.3 hands the reward functions the completion as its own pydantic message objects,
and reads a ``task`` column as a serialized task payload: with the dicts-only reward every reward
was 0.0, and ``evaluate_sync`` failed on the ``task`` column. These tests run in their own venv
(``make test-verifiers-legacy``: verifiers 0.3.1 pinned), which sets MMMU_EVAL_VERIFIERS_LEGACY=1;
there a missing verifiers 0.3 fails under CI. Elsewhere (verifiers 0.4 has no classic API) they skip.

Every answer comes from the hand-worked table of ``environments/answers.py``, the same table the
0.4 tests use, so the two releases are held to the same figures on the same answers.
"""

from __future__ import annotations

import json
import os

import pytest

from environments.answers import HandAnswers
from environments.conftest import BAD
from fakes import required
from fakes.fault_server import FaultServer
from fakes.verifiers_eval import MODEL, vf_eval_legacy
from mmmu_eval.environments import examples

pytestmark = pytest.mark.slow


@pytest.fixture
def vf():
    """verifiers with its classic API, or a skip (a failure in the legacy venv under CI)."""
    reason = "needs verifiers 0.3 (make test-verifiers-legacy installs it in .venv-vf03)"
    if os.environ.get("MMMU_EVAL_VERIFIERS_LEGACY") != "1":
        pytest.skip(f"{reason}; these tests run there")
    verifiers = required.module("verifiers", reason)
    if getattr(verifiers, "SingleTurnEnv", None) is None:
        required.missing(f"{reason}: verifiers {verifiers.__version__} has no SingleTurnEnv")
    return verifiers


def _without_nones(value):
    if isinstance(value, list):
        return [_without_nones(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_nones(v) for k, v in value.items() if v is not None}
    return value


@pytest.mark.parametrize("env_id,args", [
    ("mmmu-pro", {"mode": "vision"}), ("mmmu-pro", {"setting": "standard-4"}), ("mmmu", {"split": "dev"}),
])
def test_load_environment_is_a_single_turn_env_over_the_examples(vf, env_id, args):
    import importlib

    module = importlib.import_module(env_id.replace("-", "_"))
    env = module.load_environment(data="sample", **args)
    assert isinstance(env, vf.SingleTurnEnv)
    rows = env.eval_dataset.to_list()
    expected = list(examples(env_id, data="sample", **args))
    assert "task" not in env.eval_dataset.column_names  # 0.3 reads it as a task payload and refuses a name
    assert [json.loads(r["info"])["id"] for r in rows] == [e["id"] for e in expected]
    for row, example in zip(rows, expected):
        # The dataset's Arrow columns give every content part every key (None where unused).
        assert json.dumps(_without_nones(row["prompt"])) == json.dumps(example["prompt"])
        assert json.loads(row["info"]) == example["info"]


@pytest.mark.parametrize("args,where", [
    ({"mode": "vision"}, "vision"), ({"mode": "standard"}, "standard-10"),
], ids=["vision", "standard-10"])
def test_vf_eval_dash_a_rewards_equal_the_hand_worked_verdicts(vf, tmp_path, snapshot, args, where):
    good = list(examples("mmmu-pro", data=snapshot, on_problem=lambda _: None, **args))
    answers = HandAnswers(good)
    with FaultServer(fault_rate=0.0, answer=answers) as server:
        run = vf_eval_legacy("mmmu-pro", server.url, tmp_path, data=str(snapshot), **args)
        sent = {json.dumps(_without_nones(b["messages"])) for b in server.bodies}
    rollouts = run.rollouts
    # The --prompt boxed requests, but for the "text": null that 0.3 adds to every image part
    # (its dataset's Arrow columns give each part every key).
    assert sent == {json.dumps(e["prompt"]) for e in good}
    by_id = {r["info"]["id"] if isinstance(r["info"], dict) else json.loads(r["info"])["id"]: r for r in rollouts}
    assert set(by_id) == {e["id"] for e in good} and not set(by_id) & set(BAD[where])  # bad rows left out
    for item_id, rollout in by_id.items():
        assert not rollout.get("error"), rollout.get("error")
        got = (rollout["boxed_correct"], rollout["official_correct"], rollout["boxed_found"])
        assert got == answers.expected[item_id], (item_id, rollout["completion"])
        assert rollout["reward"] == got[0]
    metrics = run.metadata["avg_metrics"]
    assert (metrics["boxed_correct"], metrics["official_correct"], metrics["boxed_found"]) == pytest.approx(answers.means())


def test_in_process_evaluate_sync_on_the_sample_gives_the_hand_worked_figures(vf, monkeypatch):
    """The same 24 answers as the 0.4 test on the bundled sample: 8/24, 4/24, 12/24."""
    from verifiers.types import ClientConfig

    import mmmu_pro

    sample = list(examples("mmmu-pro", mode="vision", data="sample"))
    answers = HandAnswers(sample)
    env = mmmu_pro.load_environment(mode="vision", data="sample")
    monkeypatch.setenv("FAKE_API_KEY", "test-key")
    with FaultServer(fault_rate=0.0, answer=answers) as server:
        out = env.evaluate_sync(client=ClientConfig(api_base_url=server.url, api_key_var="FAKE_API_KEY"), model=MODEL)
    outputs = out["outputs"]
    assert len(outputs) == 24
    # The completion really is verifiers' message objects, the form the old reward read as empty.
    assert not isinstance(outputs[0]["completion"][-1], dict)
    for output in outputs:
        item_id = json.loads(output["info"])["id"] if isinstance(output["info"], str) else output["info"]["id"]
        got = (output["metrics"]["boxed_correct"], output["metrics"]["official_correct"], output["metrics"]["boxed_found"])
        assert got == answers.expected[item_id] and output["reward"] == got[0]
    metrics = out["metadata"]["avg_metrics"]
    assert (metrics["boxed_correct"], metrics["official_correct"], metrics["boxed_found"]) == pytest.approx(
        (8 / 24, 4 / 24, 12 / 24))
    assert out["metadata"]["avg_reward"] == pytest.approx(8 / 24)
