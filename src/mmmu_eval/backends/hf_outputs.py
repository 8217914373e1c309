"""What the hf backend tells ``generate``, and what it makes of the tokens it gets back.

Kept apart from the batching (``hf_transformers.py``) because both are rules a reader checks on
their own: greedy must override a checkpoint's ``generation_config`` that asks for sampling, and
an answer ends at its first end token (included in the count, not in the text), ``truncated``
when it ran into ``max_tokens``.

    output = model.generate(**inputs, **generate_kwargs(sampling, eos_ids, pad_id))
    response = decoded_response(tokenizer, eos_ids, request, row, prompt_tokens, sampling, latency)
"""

from __future__ import annotations

from typing import Any, Callable

from mmmu_eval.backends.local_chat import Sampling
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.core.records import Request, Response


def generate_kwargs(sampling: Sampling, eos_ids: list[int], pad_id: int | None) -> dict[str, Any]:
    """``generate``'s arguments for ``sampling``: one beam, the end tokens, greedy or sampled."""
    kwargs: dict[str, Any] = {
        "max_new_tokens": sampling.max_tokens,
        "num_beams": 1,
        "eos_token_id": eos_ids,
        "pad_token_id": pad_id,
    }
    if sampling.greedy:
        # The checkpoint's generation_config may ask for sampling; greedy must override it.
        kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    else:
        kwargs.update(do_sample=True, temperature=sampling.temperature)
        if sampling.top_p is not None:
            kwargs["top_p"] = sampling.top_p
    return kwargs


def stop_when(closed: Callable[[], bool], torch: Any, transformers: Any) -> Any:
    """``generate``'s ``stopping_criteria``: every row ends at its next token once ``closed()``
    says the backend was closed mid-batch (Ctrl-C, the launcher, another rank's failure), so the
    worker thread stops decoding for nobody and the process leaves at once. Until then it stops
    nothing, so the tokens are those of a generate without it."""

    class Closed(transformers.StoppingCriteria):  # type: ignore[misc]
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return torch.full((input_ids.shape[0],), closed(), dtype=torch.bool, device=input_ids.device)

    return transformers.StoppingCriteriaList([Closed()])


def decoded_response(
    tokenizer: Any, eos_ids: list[int], request: Request, tokens: list[int], prompt_tokens: int,
    sampling: Sampling, latency: float, notes: tuple[str, ...] = (),
) -> Response:
    """A row of new tokens cut at its first end token, decoded (special tokens skipped, a
    ``<think>`` block split off), as the request's response."""
    stop = next((i for i, t in enumerate(tokens) if t in eos_ids), None)
    if stop is None:
        completion = tokens
        finish = "length" if len(tokens) >= sampling.max_tokens else "stop"
    else:
        completion = tokens[: stop + 1]
        finish = "stop"
    text, reasoning = split_reasoning(tokenizer.decode(completion, skip_special_tokens=True))
    return Response(
        request.item_id,
        "truncated" if finish == "length" else "ok",
        text=text,
        reasoning=reasoning,
        finish_reason=finish,
        prompt_tokens=prompt_tokens,
        completion_tokens=len(completion),
        latency_s=latency,
        notes=notes,
    )
