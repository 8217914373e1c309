"""``hf:PATH_OR_ID``: a vision-language checkpoint run in-process with transformers, batched.

The model is loaded with ``AutoModelForImageTextToText`` and ``AutoProcessor``; every prompt
goes through the checkpoint's own chat template, with each image placed where the request puts
it (see ``backends/local_chat.py``). Requests are sorted by size (number of images, then prompt
length) and generated ``--batch-size`` at a time with left padding, so short prompts are not
padded to long ones; each response keeps its item id, so order does not matter to the store.
Generation runs in a worker thread: the event loop, and with it the progress display, stays
live, and each batch's responses are yielded as soon as it finishes.

Defaults: greedy decoding (temperature unset or 0), one beam, at most 128 new tokens (the
official MMMU scripts' limit; chain-of-thought needs ``--max-tokens``), ``--dtype auto`` (the
checkpoint's own dtype), ``--device auto`` (all visible GPUs through ``device_map="auto"``, else
the CPU). Sampling (``--temperature`` > 0) honours ``--top-p`` and re-seeds torch with
``--seed`` before every batch. ``--extra-body '{"chat_template_kwargs": {...}}'`` reaches the chat
template as it does through a server. ``--max-image-pixels`` down-scales images exactly as the API
backend does (noted in the response). ``latency_s`` of a response is the wall time of its batch.
``trust_remote_code`` is passed only when ``--trust-remote-code`` is given.

The model's own template stays in charge of the prompt, and a template may move the images:
llava-hf's LLaVA-1.5 and LLaVA-OneVision templates write every image first, then the text. The
preflight renders every prompt (``rendered_prompt.py``) and ``effective_layout`` says what the
model saw; the run records it in the manifest and warns when it is not the layout asked. A
template that drops the prompt's text stops the run (one reading text parts only from
``"content"`` is sent that key too), and text spelling the model's image placeholder (MMMU-Pro's
``<image>`` markers, llava-hf's token) is written apart (``[image]``), noted in the response.
Loading is ``hf_loading.py``; the generation arguments and the decoding, ``hf_outputs.py``.

Both transformers majors the ``hf`` extra allows run (tested on 4.57 and 5.24, torch 2.13; the
differences are ``hf_inputs.py``'s), on tiny random models with the real checkpoints' chat
templates and special tokens (``tests/fakes/tiny_models.py``; which families need torchvision:
docs/local-models.md), each image checked to reach the slot of its ``<image N>``.

    backend = HFBackend.from_settings("/models/llava", HFSettings(batch_size=4))
    async for response in backend.generate(requests): ...
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Sequence

from mmmu_eval.backends.hf_inputs import forward_inputs, release, template_failure
from mmmu_eval.backends.hf_loading import INSTALL_HINT, import_engine, load_model, load_processor
from mmmu_eval.backends.hf_outputs import decoded_response, generate_kwargs, stop_when
from mmmu_eval.backends.local_chat import (
    Sampling,
    chat_messages,
    error_response,
    load_images,
    resolve_sampling,
    template_kwargs,
)
from mmmu_eval.backends.rendered_prompt import (
    defuse_placeholders,
    dropped_text,
    dropped_text_error,
    layout_of,
    markup_tokens,
    placeholders,
    render_prompt,
    scan_layouts,
    spelled_apart,
    template_adds,
    text_keys_for,
)
from mmmu_eval.backends.settings import HFSettings
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.records import Request, Response

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 8
DTYPES = ("auto", "bfloat16", "float16", "float32")
DEVICES = ("auto", "cuda", "cpu")
__all__ = ["DEFAULT_BATCH_SIZE", "DEVICES", "DTYPES", "HFBackend", "INSTALL_HINT"]


class _Closed(Exception):
    """The backend was closed while a batch ran: its outputs are nobody's, and are dropped."""


@dataclass(frozen=True)
class _Prepared:
    """One request ready for the processor: its messages carry the decoded PIL images."""

    request: Request
    messages: list[dict[str, Any]]
    notes: tuple[str, ...] = ()
    """Remarks for the response (down-scaled images)."""


class HFBackend:
    """Batched greedy (by default) generation with a transformers image-text-to-text model."""

    def __init__(
        self,
        name: str,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        dtype: str = "auto",
        device: str = "auto",
        trust_remote_code: bool = False,
        max_image_pixels: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """Check the settings; the model is loaded by ``preflight`` (or the first ``generate``).

        Args:
            name: a local directory or a hub id.
            batch_size: requests per ``generate`` call.
            dtype: ``auto`` (the checkpoint's), ``bfloat16``, ``float16`` or ``float32``.
            device: ``auto`` (GPUs when present, else CPU), ``cuda`` (one GPU) or ``cpu``.
            trust_remote_code: let the checkpoint run its own Python code.
            max_image_pixels: down-scale larger images first, as the API backend does; None
                leaves them to the model's processor.
            clock: seconds, for latencies (tests pass a fake).
        """
        if batch_size < 1:
            raise ConfigError(f"--batch-size {batch_size}: must be at least 1")
        if dtype not in DTYPES:
            raise ConfigError(f"--dtype {dtype!r} is not one of {', '.join(DTYPES)}")
        if device not in DEVICES:
            raise ConfigError(f"--device {device!r} is not one of {', '.join(DEVICES)}")
        self.spec = f"hf:{name}"
        self.name = name
        self.batch_size = batch_size
        self.dtype = dtype
        self.device = device
        self.trust_remote_code = trust_remote_code
        self.max_image_pixels = max_image_pixels
        self._clock = clock
        self._model: Any = None
        self._processor: Any = None
        self._eos_ids: list[int] = []
        self._pad_id: int | None = None
        self._text_keys: tuple[str, ...] = ("text",)
        self._marks: list[str] = []
        self._adds: list[str] | None = None
        self._closes = 0
        """How often ``aclose`` ran: a batch started before a close is cut short and dropped."""

    @classmethod
    def from_settings(cls, name: str, settings: HFSettings) -> "HFBackend":
        """Build from the run's hf settings (``--batch-size``, ``--dtype``, ``--device``...)."""
        if not name:
            raise ConfigError("hf: needs a model directory or hub id, e.g. hf:HuggingFaceTB/SmolVLM-256M-Instruct")
        import_engine()  # fail before the run starts when the extra is missing
        return cls(
            name,
            batch_size=settings.batch_size if settings.batch_size is not None else DEFAULT_BATCH_SIZE,
            dtype=settings.dtype or "auto",
            device=settings.device or "auto",
            trust_remote_code=settings.trust_remote_code,
            max_image_pixels=settings.max_image_pixels,
        )

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> None:
        if self._model is not None:
            return
        processor = self._load_processor()
        self._model, self._eos_ids, self._pad_id = load_model(
            self.spec, self.name, processor, dtype=self.dtype, device=self.device, trust_remote_code=self.trust_remote_code
        )

    def _load_processor(self) -> Any:
        """The checkpoint's processor (``hf_loading.load_processor``), and what its template
        needs of our messages: the keys of text parts, the placeholders text must not spell."""
        if self._processor is None:
            processor = load_processor(self.spec, self.name, trust_remote_code=self.trust_remote_code)
            self._text_keys = text_keys_for(processor)
            if self._text_keys != ("text",):
                log.info("%s: the chat template reads text parts from \"content\"; both keys are sent", self.spec)
            self._marks = placeholders(processor)
            self._processor = processor
        return self._processor

    def _adapted(self, request: Request) -> tuple[Request, tuple[str, ...]]:
        """``request`` as the template gets it: text spelling an image placeholder written apart."""
        self._load_processor()
        return defuse_placeholders(request, self._marks)

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Load the model and render the first request's prompt, so a template that rejects
        our messages (e.g. one without a system role) stops the run before it starts; then
        check that every prompt keeps its text (``check_text``)."""
        await asyncio.to_thread(self._load)
        if requests:
            self.render(requests[0])
            await asyncio.to_thread(self.check_text, requests)

    def check_text(self, requests: Sequence[Request]) -> None:
        """Stop when the template drops a request's text: a template reading text parts from a
        key we do not send renders the images alone, and the run would measure nothing.
        A prompt the template refuses is left to generation, which reports it for its item.

        Raises:
            ConfigError: naming the item, the model and the missing text.
        """
        for request in requests:
            adapted, _ = self._adapted(request)
            try:
                prompt = render_prompt(self._processor, adapted, self._text_keys)
            except Exception:  # noqa: BLE001 - reported by generation, item by item
                continue
            missing = dropped_text(adapted, prompt)
            if missing is not None:
                raise ConfigError(dropped_text_error(self.spec, self.name, adapted, missing))
            if self._adds is None:  # once, for the manifest (describe)
                self._adds = self.template_adds(request, prompt)

    def template_adds(self, request: Request, prompt: str) -> list[str]:
        """Text of the template's own in ``prompt`` (``render``'s): ``rendered_prompt.template_adds``."""
        return template_adds(self._adapted(request)[0], prompt, [*self._marks, *markup_tokens(self._processor)])

    def writes_date(self) -> bool:
        """Whether the chat template writes today's date (``strftime_now``): the prompt differs by day."""
        return "strftime_now" in str(getattr(self._load_processor(), "chat_template", "") or "")

    def render(self, request: Request) -> str:
        """The request's prompt exactly as the model's chat template renders it (image
        placeholders not yet expanded); loads the processor (not the weights) first.

        Raises:
            ConfigError: naming the item and the cause: the template refused the messages
                (``raise_exception``), or rendering failed for another reason.
        """
        processor = self._load_processor()
        adapted, _ = self._adapted(request)
        try:
            return render_prompt(processor, adapted, self._text_keys)
        except Exception as exc:  # jinja raises its own TemplateError (and plain exceptions)
            raise ConfigError(f"{self.spec}: {template_failure(exc, request)}") from exc

    def layout_of(self, request: Request, prompt: str) -> str | None:
        """Where ``prompt`` (``render``'s) put the request's images (``rendered_prompt.layout_of``)."""
        return layout_of(self._adapted(request)[0], prompt, self._marks)

    async def effective_layout(self, requests: Sequence[Request], asked: str) -> str | dict[str, int] | None:
        """The image layout the model saw over ``requests`` (``rendered_prompt.effective_layout``):
        every prompt rendered through the model's template, each image's placeholder found in
        it. Warns once, naming an item to look at, when some item saw another layout than
        ``asked``. A prompt the template refuses counts as ``unknown``; generation reports it."""

        processor = await asyncio.to_thread(self._load_processor)
        adapted = [self._adapted(r)[0] for r in requests]
        render = lambda r: render_prompt(processor, r, self._text_keys)  # noqa: E731
        layout, moved = await asyncio.to_thread(scan_layouts, render, adapted, self._marks, asked)
        if moved is not None:
            saw = layout if isinstance(layout, str) else ", ".join(f"{n} items {name}" for name, n in (layout or {}).items())
            log.warning(
                "%s: the model's chat template does not keep --image-layout %s: the model saw %s (recorded as "
                "effective_layout in manifest.json; `mmmu-eval data show %s --model %s` prints the prompt as rendered)",
                self.spec, asked, saw, moved, self.spec,
            )
        return layout

    # -- generation ------------------------------------------------------------------------

    def batches(self, requests: Sequence[Request]) -> list[list[Request]]:
        """Requests grouped for ``generate``: same generation settings, with or without images,
        similar size (image count, then prompt characters), at most ``batch_size`` each."""
        order = sorted(
            requests,
            key=lambda r: (repr(r.generation), len(r.images), len(r.text) + len(r.system or "")),
        )
        out: list[list[Request]] = []
        for req in order:
            current = out[-1] if out else None
            if (
                current is not None
                and len(current) < self.batch_size
                and current[0].generation == req.generation
                and bool(current[0].images) == bool(req.images)
            ):
                current.append(req)
            else:
                out.append([req])
        return out

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield every request's response, a batch at a time, as batches finish."""
        await asyncio.to_thread(self._load)
        for batch in self.batches(requests):
            for response in await asyncio.to_thread(self._run_batch, batch):
                yield response

    def _run_batch(self, batch: list[Request]) -> list[Response]:
        """One batch, in the worker thread. Bad items become error responses; if the batch as a
        whole fails, its items are retried one by one so only the culprit is lost. A close
        (``aclose``) while it runs ends it at the next token, answering nothing: the run that
        asked is being interrupted, and an answer cut short by us is not the model's."""
        start, closes = self._clock(), self._closes
        responses: list[Response] = []
        ready: list[_Prepared] = []
        for request in batch:
            if self._closes != closes:
                return []
            try:
                images, notes = load_images(request, max_pixels=self.max_image_pixels)
                adapted, spelled = self._adapted(request)
                messages = chat_messages(
                    adapted, lambda i, imgs=images: {"type": "image", "image": imgs[i]}, text_keys=self._text_keys
                )
                ready.append(_Prepared(request, messages, notes + spelled))
            except DataError as exc:
                log.warning("%s", exc)
                responses.append(error_response(request, exc))
        if not ready:
            return responses
        try:
            responses.extend(self._generate(ready, start, closes))
        except Exception as exc:  # noqa: BLE001 - one bad item must not sink its batch
            if isinstance(exc, _Closed) or self._closes != closes:  # closed mid-batch: no answer, no traceback
                return []
            if len(ready) == 1:
                log.warning("%s: generation failed: %s", ready[0].request.item_id, exc, exc_info=True)
                responses.append(error_response(ready[0].request, exc, latency_s=self._clock() - start))
            else:
                log.warning("a batch of %d failed (%s); retrying its items one by one", len(ready), exc)
                for one in ready:
                    alone = self._run_prepared_alone(one, closes)
                    if self._closes != closes:
                        return []
                    responses.extend(alone)
        return responses

    def _run_prepared_alone(self, prepared: _Prepared, closes: int) -> list[Response]:
        start = self._clock()
        try:
            return self._generate([prepared], start, closes)
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, _Closed) or self._closes != closes:
                return []
            log.warning("%s: generation failed: %s", prepared.request.item_id, exc, exc_info=True)
            return [error_response(prepared.request, exc, latency_s=self._clock() - start)]

    def _generate(self, ready: list[_Prepared], start: float, closes: int) -> list[Response]:
        torch, transformers = import_engine()
        model, processor = self._model, self._processor  # held here: a close drops the backend's own
        if model is None or processor is None or self._closes != closes:
            raise _Closed
        sampling = resolve_sampling(ready[0].request.generation)
        # transformers 5 takes the processor's own arguments in processor_kwargs; 4.x as keywords.
        padding = {"processor_kwargs": {"padding": True}} if release(transformers) >= (5,) else {"padding": True}
        inputs = processor.apply_chat_template(
            [p.messages for p in ready],
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            **padding,
            **template_kwargs(ready[0].request.generation),
        )
        inputs = forward_inputs(model, inputs).to(model.device)
        if "pixel_values" in inputs and model.dtype.is_floating_point:
            inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
        if sampling.seed is not None and not sampling.greedy:
            torch.manual_seed(sampling.seed)
        stop = stop_when(lambda: self._closes != closes, torch, transformers)
        with torch.inference_mode():
            output = model.generate(**inputs, **generate_kwargs(sampling, self._eos_ids, self._pad_id), stopping_criteria=stop)
        if self._closes != closes:
            raise _Closed  # cut short by the close, not ended by the model
        prompt_len = inputs["input_ids"].shape[1]
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        new_tokens = output[:, prompt_len:].tolist()
        latency = self._clock() - start
        return [
            self._response(p.request, tokens, int(n_prompt), sampling, latency, p.notes, tokenizer=processor.tokenizer)
            for p, tokens, n_prompt in zip(ready, new_tokens, prompt_tokens)
        ]

    def _response(self, request: Request, tokens: list[int], n_prompt: int, sampling: Sampling, latency: float,
                  notes: tuple[str, ...] = (), *, tokenizer: Any = None) -> Response:
        tokenizer = self._processor.tokenizer if tokenizer is None else tokenizer
        return decoded_response(tokenizer, self._eos_ids, request, tokens, n_prompt, sampling, latency, notes)

    async def aclose(self) -> None:
        """Drop the model and give GPU memory back. A batch still running in the worker thread
        (the run was interrupted) ends at its next token and answers nothing."""
        self._closes += 1
        if self._model is None:
            return
        self._model = None
        self._processor = None
        torch, _ = import_engine()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def describe(self) -> dict[str, object]:
        torch, transformers = import_engine()
        out: dict[str, object] = {
            "backend": "hf",
            "model": self.name,
            "batch_size": self.batch_size,
            "dtype": self.dtype,
            "device": self.device,
            "trust_remote_code": self.trust_remote_code,
            "max_image_pixels": self.max_image_pixels,
            "decoding": "greedy unless temperature > 0",
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        if self._processor is not None:
            if self._text_keys != ("text",):
                out["text_part_keys"] = list(self._text_keys)  # the template reads "content"
            # text spelling an image placeholder is written apart (rendered_prompt.defuse_placeholders)
            out["placeholders_in_text_written"] = {mark: spelled_apart(mark) for mark in self._marks}
            if self._adds:  # a default system message, say: part of the prompt, not ours
                out["template_adds"] = self._adds
            if self.writes_date():
                out["template_writes_date"] = "strftime_now: the prompt holds the day it was rendered"
        if self._model is not None:
            out["model_class"] = type(self._model).__name__
            out["resolved_dtype"] = str(self._model.dtype).removeprefix("torch.")
            out["resolved_device"] = str(self._model.device)
            commit = getattr(self._model.config, "_commit_hash", None)
            if commit:
                out["model_revision"] = commit
        return out
