"""Closing the hf: backend while a batch still decodes in its worker thread (issue 41): the run was
interrupted (Ctrl-C, the launcher's SIGTERM, another rank's failure), so the batch ends at its
next token, answers nothing, and logs no traceback (it said ``'NoneType' object has no attribute
'tokenizer'`` and retried every item alone on a model that was gone)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
from fakes.tiny_models import build_tiny_llava, mmmu_like_requests

from mmmu_eval.backends.hf_transformers import HFBackend

pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]

MAX_TOKENS = 3000


async def test_a_close_mid_batch_ends_the_batch_at_once_with_no_answer_and_no_traceback(tmp_path, caplog):
    backend = HFBackend(str(build_tiny_llava(tmp_path / "m")), batch_size=4)
    requests = mmmu_like_requests(4, max_tokens=MAX_TOKENS)
    await backend.preflight(requests)
    backend._eos_ids = []  # never an end token: uncut, the batch decodes all MAX_TOKENS tokens
    model, decoding, produced = backend._model, threading.Event(), []
    generate = model.generate

    def observed(*args, **kwargs):
        decoding.set()
        output = generate(*args, **kwargs)
        produced.append(output.shape[1] - kwargs["input_ids"].shape[1])
        return output

    model.generate = observed
    batch = asyncio.ensure_future(asyncio.to_thread(backend._run_batch, requests))
    while not decoding.is_set():
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)
    with caplog.at_level(logging.DEBUG):
        closed_at = time.monotonic()
        await backend.aclose()
        answers = await batch
        took = time.monotonic() - closed_at
    assert answers == []  # an answer we cut short is not the model's: none is handed on
    assert len(produced) == 1 and produced[0] < MAX_TOKENS  # one generate call, stopped early, no item-by-item retry
    assert took < 2.0, f"the batch went on for {took:.1f} s after the close"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [r.getMessage() for r in caplog.records]
