"""TRL: ``trl_reward`` as TRL's ``GRPOTrainer`` calls it, on rows ``examples()`` made.

The trainer test runs TRL's real reward path on CPU: a tiny text-only policy generates the
completions, GRPOTrainer calls the reward with its own keyword arguments (prompts, completions,
completion_ids, every other dataset column, trainer_state, log_metric ...), and the rewards it
records are checked against the score stage's verdicts on the same completions.
"""

from __future__ import annotations

import json

import pytest

from fakes import required
from mmmu_eval.environments import examples, scores, trl_metric, trl_reward
from mmmu_eval.core.errors import DataError

datasets = required.module("datasets", "TRL trains on a datasets.Dataset (the test extra installs it)")


def _examples(snapshot, benchmark: str, **where) -> list[dict]:
    return list(examples(benchmark, data=snapshot, on_problem=lambda _: None, **where))


def _boxed(letter: str) -> str:
    return f"Reasoning first. So the answer is \\boxed{{{letter}}}."


@pytest.mark.parametrize("where", [("mmmu", {"split": "validation"}), ("mmmu", {"split": "dev"}),
                                   ("mmmu-pro", {"setting": "standard-10"}), ("mmmu-pro", {"setting": "vision"})],
                         ids=["mmmu-validation", "mmmu-dev", "pro-standard-10", "pro-vision"])
def test_examples_rows_make_a_dataset_with_one_type_per_column(snapshot, where):
    benchmark, selection = where
    rows = _examples(snapshot, benchmark, **selection)
    dataset = datasets.Dataset.from_list(rows)
    assert len(dataset) == len(rows)
    for row, back in zip(rows, dataset):
        assert back["id"] == row["id"] and back["answer"] == row["answer"]
        assert back["info"]["answers"] == row["info"]["answers"]
        assert back["info"]["options"] == row["info"]["options"]


def test_an_open_question_with_several_answers_goes_into_a_dataset(snapshot):
    rows = _examples(snapshot, "mmmu", subset="acc")
    several = next(r for r in rows if len(r["info"]["answers"]) > 1)
    dataset = datasets.Dataset.from_list(rows)
    back = dataset[[r["id"] for r in rows].index(several["id"])]
    assert json.loads(back["answer"]) == back["info"]["answers"] == several["info"]["answers"]
    # The reward reads the list from info: each accepted answer in a box earns 1.0.
    for accepted in several["info"]["answers"]:
        assert trl_reward([""], [f"\\boxed{{{accepted}}}"], info=[back["info"]]) == [1.0]


def _batch(rows: list[dict], size: int, conversational: bool) -> tuple[list, list, list[dict], list[float]]:
    """``size`` (prompt, completion, info) triples, right and wrong answers alternating, and the verdicts."""
    mc = [r for r in rows if r["info"]["question_type"] == "multiple-choice"]
    prompts, completions, infos, expected = [], [], [], []
    for index in range(size):
        row = mc[index % len(mc)]
        letters = [chr(ord("A") + i) for i in range(len(row["info"]["options"]))]
        right = index % 2 == 0
        letter = row["answer"] if right else letters[(letters.index(row["answer"]) + 1) % len(letters)]
        text = _boxed(letter)
        prompts.append(row["prompt"] if conversational else "question text")
        completions.append([{"role": "assistant", "content": text}] if conversational else text)
        infos.append(row["info"])
        expected.append(1.0 if right else 0.0)
    return prompts, completions, infos, expected


@pytest.mark.parametrize("size", [1, 8])
@pytest.mark.parametrize("conversational", [True, False], ids=["conversational", "plain"])
def test_trl_reward_scores_a_batch_as_the_score_stage(snapshot, size, conversational):
    rows = _examples(snapshot, "mmmu-pro", setting="standard-10")
    prompts, completions, infos, expected = _batch(rows, size, conversational)
    rewards = trl_reward(prompts=prompts, completions=completions, completion_ids=[[1]] * size, info=infos,
                         answer=[i["answers"][0] for i in infos], trainer_state=object(), log_metric=print)
    assert rewards == expected
    assert rewards == [scores(c, {"info": i})["boxed_correct"] for c, i in zip(completions, infos)]
    assert trl_metric("boxed_found")(prompts, completions, info=infos) == [1.0] * size
    assert trl_metric("official_correct").__name__ == "official_correct"


def test_trl_reward_without_info_says_which_column_to_keep(snapshot):
    with pytest.raises(DataError, match="no `info` column"):
        trl_reward(["p"], ["\\boxed{A}"], answer=["A"])
    with pytest.raises(DataError, match="2 prompts, 2 completions and 1 info rows"):
        trl_reward(["p", "q"], ["a", "b"], info=[{}])
    with pytest.raises(ValueError, match="not one of official_correct, boxed_found"):
        trl_metric("accuracy")


@pytest.mark.hf
@pytest.mark.slow
@pytest.mark.parametrize("batch", [2, 8])
@pytest.mark.parametrize("conversational", [True, False], ids=["conversational", "plain"])
def test_grpo_trainer_calls_trl_reward_through_its_real_reward_path(snapshot, tmp_path, batch, conversational, hf_extra):
    trl = required.module("trl", "the GRPOTrainer test needs TRL (the test extra installs it)")
    from fakes.tiny_text_lm import build_tiny_text_lm

    rows = _examples(snapshot, "mmmu-pro", setting="standard-10")
    # The tiny policy reads text only: each example's text parts, as chat messages or as one string.
    def text_of(row: dict) -> str:
        return "".join(p.get("text", "") for m in row["prompt"] for p in m["content"] if isinstance(p, dict))

    train = datasets.Dataset.from_list([
        {**row, "prompt": [{"role": "user", "content": text_of(row)}] if conversational else text_of(row)}
        for row in rows * batch  # enough prompts for a full batch whatever the snapshot's size
    ])
    calls: list[tuple[list, list[float]]] = []

    def recorded(prompts, completions, **columns):
        rewards = trl_reward(prompts, completions, **columns)
        calls.append((list(zip(completions, columns["info"])), rewards))
        assert {"completion_ids", "trainer_state", "answer", "id"} <= set(columns)
        return rewards

    recorded.__name__ = "trl_reward"
    config = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), max_steps=1, per_device_train_batch_size=batch, num_generations=2,
        max_completion_length=6, use_cpu=True, bf16=False, report_to=[], logging_steps=1, save_strategy="no",
        seed=0, dataloader_num_workers=0, disable_tqdm=True,
    )
    trainer = trl.GRPOTrainer(model=str(build_tiny_text_lm(tmp_path / "lm")), reward_funcs=[recorded],
                              args=config, train_dataset=train)
    trainer.train()
    assert calls, "GRPOTrainer never called the reward"
    for pairs, rewards in calls:
        assert len(pairs) == len(rewards) == batch
        assert rewards == [scores(c, {"info": i})["boxed_correct"] for c, i in pairs]
        for completion, _ in pairs:
            assert isinstance(completion, list) if conversational else isinstance(completion, str)
