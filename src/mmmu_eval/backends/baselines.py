"""Reference backends that need no model: ``random``, ``frequent``, and ``text-only:SPEC``.

The MMMU and MMMU-Pro papers report two trivial baselines next to every model, "Random Choice"
and "Frequent Choice", and MMMU-Pro filtered out questions that text-only models could answer.
These backends reproduce those measurements through the ordinary pipeline, so their numbers are
computed by exactly the prompts, parser and report a real model gets.

- ``random``: a letter drawn uniformly from the item's choices, by a ``random.Random`` seeded
  with ``"{seed}:{item id}"`` (``--seed``, default 0). Each item's draw depends only on the seed
  and its id, so a resumed, sharded or subset run answers every item exactly as a whole run
  does (shards merged equal the unsharded run). Open questions get an empty answer: there is
  nothing to choose from, and an empty string can never match a gold answer (the official
  open-answer matcher looks for the gold text *inside* the response, so a placeholder such as
  "no answer" could match the gold "no"). Random Choice therefore scores 0 on open questions,
  as chance does.
- ``frequent``: the papers' "Frequent Choice": the answer letter most frequent among the gold
  answers of the multiple-choice items being evaluated (ties go to the earlier letter). An item
  that does not offer that letter (fewer options) gets its own most frequent letter by the same
  ranking. Open questions get the most frequent gold open answer among the evaluated items
  (first accepted answer of each). It is computed once, in ``from_config``, from the items: it
  needs gold answers, so it cannot run on the test split.
- ``text-only:SPEC``: any other backend, with every image part taken out of its requests. The
  prompt text is unchanged, ``<image N>`` tokens included, as MMMU-Pro's text-only filter asked
  it. ``describe()`` records that images were withheld.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import AsyncIterator, Sequence

from mmmu_eval.backends.base import Backend
from mmmu_eval.config import RunConfig
from mmmu_eval.errors import ConfigError
from mmmu_eval.records import Item, Request, Response, TextPart

__all__ = ["DEFAULT_SEED", "FrequentBackend", "RandomBackend", "TextOnlyBackend", "frequent_answers"]

#: Seed of the random baseline when ``--seed`` is not given.
DEFAULT_SEED = 0


class RandomBackend:
    """Answers each multiple-choice request with a seeded random letter; see the module doc."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.spec = "random"
        self.seed = seed

    @classmethod
    def from_config(cls, name: str, config: RunConfig, items: Sequence[Item] = ()) -> "RandomBackend":
        if name:
            raise ConfigError(f"--model random takes no name (got random:{name}); the seed comes from --seed")
        return cls(DEFAULT_SEED if config.seed is None else config.seed)

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            # A string seed goes through SHA-512: stable across runs and Python versions.
            text = random.Random(f"{self.seed}:{request.item_id}").choice(request.choices) if request.choices else ""
            yield Response(request.item_id, "ok", text=text, finish_reason="stop")

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, object]:
        return {"backend": "random", "seed": self.seed, "open_questions": "empty answer"}


def frequent_answers(items: Sequence[Item]) -> tuple[tuple[str, ...], str | None]:
    """The gold letters ranked by frequency (ties: earlier letter first), and the most frequent
    open answer (ties: the one met first), over the items that have gold answers.

    >>> from mmmu_eval.dataset import load_dataset
    >>> frequent_answers(load_dataset("mmmu", split="dev", data="sample").items)
    (('B', 'A', 'C'), 'triangle')
    """
    letter_counts: Counter[str] = Counter()
    open_counts: Counter[str] = Counter()
    for item in items:
        if item.answer is None:
            continue
        if item.question_type == "multiple-choice" and isinstance(item.answer, str):
            letter_counts[item.answer] += 1
        elif item.question_type == "open":
            first = item.answer if isinstance(item.answer, str) else (item.answer[0] if item.answer else None)
            if first:
                open_counts[first] += 1
    ranking = tuple(sorted(letter_counts, key=lambda letter: (-letter_counts[letter], letter)))
    # Counter.most_common keeps first-met order among equal counts.
    open_answer = open_counts.most_common(1)[0][0] if open_counts else None
    return ranking, open_answer


class FrequentBackend:
    """Answers every multiple-choice item with the most frequent gold letter; see the module doc."""

    def __init__(self, ranking: Sequence[str], open_answer: str | None, *, computed_from: int = 0) -> None:
        self.spec = "frequent"
        self.ranking = tuple(ranking)
        self.open_answer = open_answer
        self.computed_from = computed_from

    @classmethod
    def from_config(cls, name: str, config: RunConfig, items: Sequence[Item] = ()) -> "FrequentBackend":
        if name:
            raise ConfigError(f"--model frequent takes no name (got frequent:{name})")
        ranking, open_answer = frequent_answers(items)
        if not ranking and open_answer is None:
            raise ConfigError(
                "--model frequent needs gold answers among the evaluated items, and these have none "
                "(the test split withholds them); evaluate the validation split instead"
            )
        graded = sum(1 for it in items if it.answer is not None)
        return cls(ranking, open_answer, computed_from=graded)

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            yield Response(request.item_id, "ok", text=self.answer_for(request), finish_reason="stop")

    def answer_for(self, request: Request) -> str:
        """The top-ranked letter this request offers (its first letter if none ranks)."""
        if not request.choices:
            return self.open_answer or ""
        offered = set(request.choices)
        for letter in self.ranking:
            if letter in offered:
                return letter
        return request.choices[0]

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, object]:
        return {
            "backend": "frequent",
            "letter_ranking": list(self.ranking),
            "answer": self.ranking[0] if self.ranking else None,
            "open_answer": self.open_answer,
            "computed_from_items": self.computed_from,
        }


class TextOnlyBackend:
    """Another backend with the images withheld: the same prompt text, no image parts."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.spec = f"text-only:{inner.spec}"

    @classmethod
    def from_config(cls, name: str, config: RunConfig, items: Sequence[Item] = ()) -> "TextOnlyBackend":
        from mmmu_eval.backends.registry import make_backend  # the registry imports this module

        if not name:
            raise ConfigError("--model text-only: needs the spec of the model to ask, e.g. text-only:openai:gpt-4o")
        if name.startswith("text-only:"):
            raise ConfigError(f"--model text-only:{name}: images are already withheld once; drop one text-only:")
        return cls(make_backend(name, config, items))

    @staticmethod
    def strip(request: Request) -> Request:
        """The request without its image parts."""
        return replace(request, parts=tuple(p for p in request.parts if isinstance(p, TextPart)))

    async def preflight(self, requests: Sequence[Request]) -> None:
        await self.inner.preflight([self.strip(r) for r in requests])

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        async for response in self.inner.generate([self.strip(r) for r in requests]):
            yield response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def describe(self) -> dict[str, object]:
        return {"backend": "text-only", "images": "withheld", "inner": self.inner.describe()}
