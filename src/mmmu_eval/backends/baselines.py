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
  (first accepted answer of each). The backend never sees an item or a gold answer:
  ``run/prepare.frequent_answers`` decides every item's answer from the evaluated items before
  the run and hands them over (``FixedAnswers``); it needs gold answers, so it cannot run on
  the test split.
- ``text-only:SPEC``: any other backend, with every image part taken out of its requests. The
  prompt text is unchanged, ``<image N>`` tokens included, as MMMU-Pro's text-only filter asked
  it. ``describe()`` records that images were withheld.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import AsyncIterator, Sequence

from mmmu_eval.backends.base import Backend
from mmmu_eval.backends.settings import BackendSettings, BaselineSettings, FixedAnswers
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request, Response, TextPart

__all__ = ["DEFAULT_SEED", "FrequentBackend", "RandomBackend", "TextOnlyBackend"]

#: Seed of the random baseline when ``--seed`` is not given.
DEFAULT_SEED = 0


class RandomBackend:
    """Answers each multiple-choice request with a seeded random letter; see the module doc."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.spec = "random"
        self.seed = seed

    @classmethod
    def from_settings(cls, name: str, settings: BaselineSettings) -> "RandomBackend":
        if name:
            raise ConfigError(f"--model random takes no name (got random:{name}); the seed comes from --seed")
        return cls(DEFAULT_SEED if settings.seed is None else settings.seed)

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


class FrequentBackend:
    """Gives every item the answer fixed for it before the run (the most frequent gold letter it
    offers); see the module doc."""

    def __init__(self, answers: FixedAnswers) -> None:
        self.spec = "frequent"
        self.answers = answers

    @classmethod
    def from_settings(cls, name: str, settings: BaselineSettings) -> "FrequentBackend":
        if name:
            raise ConfigError(f"--model frequent takes no name (got frequent:{name})")
        if settings.fixed_answers is None:
            raise ConfigError(
                "--model frequent needs gold answers among the evaluated items, and these have none "
                "(the test split withholds them); evaluate the validation split instead"
            )
        return cls(settings.fixed_answers)

    async def preflight(self, requests: Sequence[Request]) -> None:
        return None

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for request in requests:
            answer = self.answers.by_item.get(request.item_id)
            if answer is None:  # the answers were decided for another selection of items
                yield Response(request.item_id, "error", error=(
                    "frequent has no answer fixed for this item: its answers were decided for a selection "
                    "that does not hold it (run/prepare.frequent_answers)"))
                continue
            yield Response(request.item_id, "ok", text=answer, finish_reason="stop")

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, object]:
        return {
            "backend": "frequent",
            "letter_ranking": list(self.answers.letter_ranking),
            "answer": self.answers.letter_ranking[0] if self.answers.letter_ranking else None,
            "open_answer": self.answers.open_answer,
            "computed_from_items": self.answers.computed_from_items,
        }


class TextOnlyBackend:
    """Another backend with the images withheld: the same prompt text, no image parts."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.spec = f"text-only:{inner.spec}"

    @classmethod
    def from_settings(cls, name: str, settings: BackendSettings) -> "TextOnlyBackend":
        from mmmu_eval.backends.registry import make_backend  # the registry imports this module

        if not name:
            raise ConfigError("--model text-only: needs the spec of the model to ask, e.g. text-only:openai:gpt-4o")
        if name.startswith("text-only:"):
            raise ConfigError(f"--model text-only:{name}: images are already withheld once; drop one text-only:")
        return cls(make_backend(name, settings))

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
