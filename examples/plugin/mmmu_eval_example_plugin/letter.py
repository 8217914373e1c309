"""The factory form: ``--model letter:C`` answers every question with the letter C.

The entry point names a function that takes what follows ``letter:`` and returns a model: here a
chat function (OpenAI messages in, the answer's text out). mmmu-eval runs it in a pool of
``--concurrency`` threads, stores each answer as it finishes, and stores an exception as that
item's error. It could as well return an object with an async ``generate`` or a whole Backend.
"""

from __future__ import annotations

from typing import Any, Callable

from mmmu_eval import ConfigError

LETTERS = "ABCDEFGHIJ"


def make_model(name: str) -> Callable[[list[dict[str, Any]]], str]:
    """The model for ``--model letter:NAME``.

    Raises:
        ConfigError: NAME is not one option letter. mmmu-eval prints the message as one line and
            exits with status 2, before any item is asked.
    """
    letter = name.strip().upper()
    if len(letter) != 1 or letter not in LETTERS:
        raise ConfigError(f"--model letter:{name}: write one option letter from A to J, e.g. letter:C")

    def answer(messages: list[dict[str, Any]]) -> str:
        # messages: what openai: would send, byte for byte; images are data URLs in <image N> order.
        # Every question gets the same letter, in the words the official parser reads.
        return f"The answer is ({letter})."

    answer.spec = f"letter:{letter}"  # type: ignore[attr-defined]  # what manifest.json's backend records
    return answer
