"""The environments for verifiers' classic API (up to 0.3): a ``SingleTurnEnv`` over the same examples.

The classic ``vf-eval mmmu-pro -a '{"mode": "vision"}'`` imports the module the id names and
calls its ``load_environment(**args)``; this builds the environment from ``examples`` (the
dataset: ``prompt``, ``answer``, ``info``) and a rubric of ``rewards.scores``: the reward
``boxed_correct`` (weight 1) and the metrics ``official_correct`` and ``boxed_found`` (weight 0,
reported beside it). Items that cannot be asked are logged with their id and left out.

The rows have no ``task`` column: verifiers 0.3 reads a ``task`` value as a serialized task
payload (a JSON object) and refuses a plain name (``Serialized task payloads must be JSON
objects``), so ``env.evaluate_sync`` failed on every row. The reward functions receive the
completion as verifiers' pydantic message objects (0.3) or as dicts (earlier releases);
``rewards.scores`` reads both.
"""

from __future__ import annotations

import json
from typing import Any

from mmmu_eval.environments.examples import examples
from mmmu_eval.environments.rewards import scores


def boxed_correct(completion: Any, info: Any = None, **_: Any) -> float:
    """1.0 when the last ``\\boxed{}`` holds the gold answer (the ``boxed`` parser), else 0.0."""
    return scores(completion, {"info": _info(info)})["boxed_correct"]


def official_correct(completion: Any, info: Any = None, **_: Any) -> float:
    """The official parser's verdict, deterministic (an unparseable answer counts 0)."""
    return scores(completion, {"info": _info(info)})["official_correct"]


def boxed_found(completion: Any, info: Any = None, **_: Any) -> float:
    """1.0 when the completion has a closed ``\\boxed{}``."""
    return scores(completion, {"info": _info(info)})["boxed_found"]


def load_environment(env_id: str, **args: Any) -> Any:
    """A ``verifiers.SingleTurnEnv`` of the benchmark ``env_id`` names, over ``examples(**args)``
    (the environment's ``seed`` argument is ``examples``' ``shuffle_seed``)."""
    import verifiers as vf
    from datasets import Dataset

    if "seed" in args:
        args["shuffle_seed"] = args.pop("seed")
    rows = [
        {
            "prompt": example["prompt"],
            "answer": example["answer"],
            "info": json.dumps(example["info"]),
        }
        for example in examples(env_id, **args)
    ]
    rubric = vf.Rubric(funcs=[boxed_correct, official_correct, boxed_found], weights=[1.0, 0.0, 0.0])
    return vf.SingleTurnEnv(eval_dataset=Dataset.from_list(rows), rubric=rubric)


def _info(info: Any) -> dict[str, Any]:
    """The example's info, which travels through the dataset as JSON (its fields vary in type)."""
    return json.loads(info) if isinstance(info, str) else dict(info or {})
