"""MMMU and MMMU-Pro as reinforcement-learning environments: a thin adapter over the pipeline.

    dataset + prompt stage -> examples (chat messages, gold) ; score stage -> reward

The framework-neutral core needs nothing beyond mmmu-eval (TRL, OpenRLHF, a plain script)::

    from mmmu_eval.environments import examples, reward
    for example in examples("mmmu-pro", setting="vision", data="sample"):
        completion = my_policy(example["prompt"])        # OpenAI chat messages, images as data URLs
        print(example["id"], reward(completion, example))

For TRL's trainers, ``trl_reward`` takes a batch as they pass it (``prompts``, ``completions``
and the dataset's columns) and ``examples()`` rows go straight into ``Dataset.from_list``
(``trl_rewards.py``).

``examples.py`` builds the examples (prompts exactly as ``mmmu-eval run --prompt boxed``);
``rewards.py`` judges a completion. The verifiers environments are ``mmmu_pro.py`` and
``mmmu.py`` (``load_environment``), on top of ``verifiers_v1.py`` (verifiers 0.4 and later:
taskset, single-turn harness, env) and ``verifiers_legacy.py`` (the older ``SingleTurnEnv``).
verifiers is imported only there, and only when asked for: ``pip install 'mmmu-eval[verifiers]'``.
"""

from mmmu_eval.environments.examples import Example, examples
from mmmu_eval.environments.rewards import METRICS, reward, scores
from mmmu_eval.environments.trl_rewards import trl_metric, trl_reward

__all__ = ["METRICS", "Example", "examples", "reward", "scores", "trl_metric", "trl_reward"]
