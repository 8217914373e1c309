"""The class form: ``--model guess:`` answers each question with a seeded random option, in batches.

A class with ``from_settings(name, settings)`` is built with it and given the run's
``CustomSettings`` (``--seed``, ``--batch-size``, ``--concurrency`` ... as the user set them;
None where not given). It is a Backend: ``generate`` yields one ``Response`` per request, in any
order, as each is ready. A model that batches collects requests as this one does; one that calls
a remote service would start several at once with asyncio and yield each as it completes.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence

from mmmu_eval import ConfigError, ImagePart, Request, Response, TextPart
from mmmu_eval.backends.settings import CustomSettings

#: Requests per batch when the run sets no ``--batch-size``.
DEFAULT_BATCH_SIZE = 4
#: The most images this "model" takes in one prompt (MMMU's items have up to 7).
MAX_IMAGES = 8


class GuessBackend:
    """Answers a multiple-choice question with one of its letters, drawn from ``--seed``, the
    name after ``guess:`` and the item id, so that a rerun gives the same answers."""

    def __init__(self, name: str, *, seed: int, batch_size: int) -> None:
        self.name = name
        self.seed = seed
        self.batch_size = batch_size
        self.spec = f"guess:{name}"  # recorded in manifest.json

    @classmethod
    def from_settings(cls, name: str, settings: CustomSettings) -> GuessBackend:
        """What mmmu-eval calls for ``--model guess:NAME``.

        Raises:
            ConfigError: a ``--batch-size`` this backend cannot use (exit status 2).
        """
        batch_size = settings.batch_size if settings.batch_size is not None else DEFAULT_BATCH_SIZE
        if batch_size > 64:
            raise ConfigError(f"--model guess:{name}: --batch-size {batch_size} is more than this model takes (64)")
        return cls(name, seed=settings.seed if settings.seed is not None else 0, batch_size=batch_size)

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Checked before the first request: refuse a run the model cannot take, naming the item."""
        for request in requests:
            images = sum(1 for part in request.parts if isinstance(part, ImagePart))
            if images > MAX_IMAGES:
                raise ConfigError(f"{request.item_id}: {images} images, more than guess: takes ({MAX_IMAGES})")

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        for start in range(0, len(requests), self.batch_size):
            batch = requests[start:start + self.batch_size]
            answers = await asyncio.to_thread(self._answer_batch, batch)  # off the event loop
            for request, answer in zip(batch, answers):
                if isinstance(answer, Exception):  # that item's error: stored, asked again on resume
                    yield Response(request.item_id, "error", error=f"{request.item_id}: {answer}")
                else:
                    yield Response(request.item_id, "ok", text=answer, finish_reason="stop")

    def _answer_batch(self, batch: Sequence[Request]) -> list[str | Exception]:
        out: list[str | Exception] = []
        for request in batch:
            try:
                out.append(self._answer(request))
            except Exception as exc:  # one bad item never stops the batch
                out.append(exc)
        return out

    def _answer(self, request: Request) -> str:
        text = "".join(part.text for part in request.parts if isinstance(part, TextPart))
        images = [part.image.load() for part in request.parts if isinstance(part, ImagePart)]
        if not request.choices:  # an open question: no letters to draw from
            return "I cannot tell."
        draw = random.Random(f"{self.seed}:{self.name}:{request.item_id}")
        letter = draw.choice(request.choices)
        return f"{len(text)} characters and {len(images)} image(s) read; the answer is ({letter})."

    async def aclose(self) -> None:
        """Called once at the end of the run: release what the model holds (nothing here)."""
        return None

    def describe(self) -> dict[str, object]:
        """What manifest.json records about the backend; never a secret."""
        return {"backend": "guess", "name": self.name, "seed": self.seed, "batch_size": self.batch_size}
