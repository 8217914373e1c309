"""Ask a model for distractors through the ordinary backends, runner and run store.

Each attempt at an item is one request with its own id (``<id>#<attempt>``) and its own
generation seed, stored in one run directory (``OUT/runs/augment``) like any evaluation's
responses. Rounds: every item still needing options is asked; each reply is checked
(``distractors.check_reply``); an unusable one sends that item into the next round as its
next attempt, up to ``attempts``. So:

- concurrency, retries of failed requests, several endpoints: the backend's and the runner's;
- a restart loses nothing: the stored replies are checked again, and only what is missing is
  asked (a request that failed after its retries is asked again on the next run, as in any
  resumed run; an unusable reply is not, it already used its attempt);
- after the last attempt an item is a reported error, never padded with made-up options.

Inside the augment step (a sketch; ``augment.py`` builds each argument)::

    outcomes = await propose(items, needs, backend, store, settings)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from mmmu_eval.backends.base import Backend
from mmmu_eval.harden.distractor_rules import Proposal, check_reply
from mmmu_eval.run.progress import Display, ProgressDisplay
from mmmu_eval.prompt.distractors import distractor_request, proposal_id
from mmmu_eval.core.records import GenerationSettings, Item, Response, derived_seed
from mmmu_eval.run.runner import run_requests
from mmmu_eval.store.rundir import RunStore

__all__ = ["ItemProposals", "ProposalSettings", "attempt_seed", "propose"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProposalSettings:
    """How distractors are asked for."""

    attempts: int = 3
    """Tries per item before its proposals count as failed."""
    seed: int = 0
    """Derives each attempt's generation seed (``attempt_seed``)."""
    temperature: float | None = 0.7
    max_tokens: int | None = 1024
    top_p: float | None = None
    extra_body: tuple[tuple[str, object], ...] = ()

    def generation(self, item_id: str, attempt: int) -> GenerationSettings:
        return GenerationSettings(
            max_tokens=self.max_tokens, temperature=self.temperature, top_p=self.top_p,
            seed=attempt_seed(self.seed, item_id, attempt), extra_body=self.extra_body,
        )


def attempt_seed(seed: int, item_id: str, attempt: int) -> int:
    """The generation seed of one attempt: a retry is a fresh draw, the same on every machine."""
    return derived_seed(f"{seed}:augment:{item_id}:{attempt}")


@dataclass
class ItemProposals:
    """What the model's attempts at one item came to."""

    needed: int
    """Distractors asked for."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Per checked reply: attempt, reply text, accepted, rejected, error."""
    accepted: tuple[str, ...] = ()
    """The distractors taken (``needed`` of them) once an attempt was usable."""
    status: str = "unasked"
    """``ok``; ``unusable`` (every attempt failed the checks); ``error`` (a request failed
    after its retries; asked again on the next run); ``unasked`` (the session stopped first)."""
    error: str | None = None
    """The last reason, for ``unusable`` and ``error``."""


async def propose(
    items: Sequence[Item],
    needs: Mapping[str, int],
    backend: Backend,
    store: RunStore,
    settings: ProposalSettings,
    *,
    display: Display | None = None,
) -> dict[str, ItemProposals]:
    """Ask ``backend`` for ``needs[id]`` distractors for each item, in rounds; see the module doc.

    Returns:
        Item id -> its proposals, for every item in ``needs``.
    """
    by_id = {it.id: it for it in items if it.id in needs}
    asked: set[str] = set()
    preflighted = False
    while True:
        stored = store.responses()
        states = {i: _state(by_id[i], needs[i], stored, asked, settings.attempts) for i in by_id}
        requests = [
            distractor_request(by_id[i], count=needs[i], attempt=state.next_attempt, generation=settings.generation(i, state.next_attempt))
            for i, state in states.items() if state.next_attempt
        ]
        if not requests:
            return {i: s.result for i, s in states.items()}
        if not preflighted:
            await backend.preflight(requests)
            preflighted = True
        summary = await run_requests(backend, requests, store, display=display or ProgressDisplay(label="distractor proposals"))
        asked.update(r.item_id for r in requests)
        if summary.stopped_early:
            log.error("%s", summary.stopped_early)
            stored = store.responses()
            return {i: _state(by_id[i], needs[i], stored, asked | {r.item_id for r in requests}, settings.attempts).result for i in by_id}


@dataclass
class _State:
    result: ItemProposals
    next_attempt: int | None = None


def _state(item: Item, needed: int, stored: Mapping[str, Response], asked: set[str], attempts: int) -> _State:
    """Where an item stands, from its stored replies: done, failed, or which attempt to ask next."""
    result = ItemProposals(needed)
    for attempt in range(1, attempts + 1):
        key = proposal_id(item.id, attempt)
        response = stored.get(key)
        if response is None:
            if key in asked:
                result.status = "unasked"  # the session stopped before it was answered
                return _State(result)
            return _State(result, attempt)
        if response.status == "error":
            if key in asked:
                result.status, result.error = "error", response.error or "the request failed"
                return _State(result)
            return _State(result, attempt)  # failed in an earlier session: ask again
        proposal: Proposal = check_reply(response.text, item, needed)
        result.attempts.append({
            "attempt": attempt, "reply": response.text[:4000], "accepted": list(proposal.accepted),
            "rejected": [list(r) for r in proposal.rejected], "error": proposal.error,
        })
        if proposal.error is None:
            result.accepted, result.status, result.error = proposal.accepted, "ok", None
            return _State(result)
        result.status, result.error = "unusable", proposal.error
    return _State(result)
