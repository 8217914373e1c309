"""``vllm:PATH_OR_ID``: offline vLLM (``LLM.chat``), for fast local runs on GPUs.

Each request becomes one chat conversation in the order the prompt puts text and images
(``backends/local_chat.py``); images travel as data URLs of the dataset's own bytes, exactly what the
API backend sends to a vLLM server, so ``vllm:`` offline and ``openai:`` against ``vllm serve``
show the model the same prompt. The model's chat template is applied by vLLM, with
``--extra-body '{"chat_template_kwargs": {...}}'`` passed to it as a server would. Where images
land follows that template: templates that iterate over content parts get them interleaved where
the prompt puts them; for a template that only takes plain-string content, vLLM inserts the
image placeholders itself (for most models before the text).

The engine is built in ``preflight``, when the requests are known: ``limit_mm_per_prompt`` is
set to the largest number of images any request carries (MMMU has up to 7; a repeated
``<image N>`` counts twice), so vLLM reserves no more memory than the run needs.
``--tensor-parallel-size`` and ``--pipeline-parallel-size`` split the model over GPUs;
``--data-parallel-size`` runs that many replicas inside the one offline engine (vLLM's own data
parallelism). Or let a launcher run one engine per GPU group: ``torchrun --nproc-per-node N -m
mmmu_eval run --model vllm:...`` (``run/launcher_ranks.py``), or ``vllm serve`` with the ``openai:``
backend; docs/parallel.md says which to pick when.

Requests go to vLLM in chunks (``--batch-size``, default 256): vLLM batches continuously inside
a chunk, and each chunk's responses are stored as it finishes, so progress stays visible and an
interrupted run loses at most one chunk. Decoding is greedy unless ``--temperature`` > 0, with at
most 128 new tokens unless ``--max-tokens`` says otherwise (the same defaults as ``hf:``).

vLLM is imported only when this backend is chosen; without it the package works and choosing
``vllm:`` says ``pip install 'mmmu-eval[vllm]'``. The request and parameter construction below is
plain Python, unit-tested without vLLM.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, AsyncIterator, Callable, Sequence

from mmmu_eval.backends.local_chat import (
    Sampling,
    chat_messages,
    check_local_path,
    decode_image,
    error_response,
    resolve_sampling,
    template_kwargs,
)
from mmmu_eval.prompt.images import image_data_url
from mmmu_eval.prompt.reasoning import split_reasoning
from mmmu_eval.backends.settings import VLLMSettings
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.records import Request, Response

log = logging.getLogger(__name__)

DEFAULT_CHUNK = 256
INSTALL_HINT = "pip install 'mmmu-eval[vllm]'"
DTYPES = ("auto", "bfloat16", "float16", "float32")


# -- pure construction (no vLLM needed) -------------------------------------------------------

def images_needed(requests: Sequence[Request]) -> int:
    """The most image parts any request has (repeats counted), at least 1."""
    return max((len(r.images) for r in requests), default=0) or 1


def engine_kwargs(name: str, settings: VLLMSettings, requests: Sequence[Request]) -> dict[str, Any]:
    """Arguments for ``vllm.LLM(**kwargs)``.

    >>> engine_kwargs("m", VLLMSettings(), [])["limit_mm_per_prompt"]
    {'image': 1}
    """
    dtype = settings.dtype or "auto"
    if dtype not in DTYPES:
        raise ConfigError(f"--dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    kwargs: dict[str, Any] = {"model": name, "dtype": dtype}
    for flag in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"):
        size = getattr(settings, flag)
        if size is not None and size < 1:
            raise ConfigError(f"--{flag.replace('_', '-')} {size}: must be at least 1")
        if size is not None or flag == "tensor_parallel_size":
            kwargs[flag] = size or 1  # vLLM's own defaults (1) otherwise: an older vLLM may not know the flag
    kwargs.update({"trust_remote_code": settings.trust_remote_code, "limit_mm_per_prompt": {"image": images_needed(requests)}})
    if settings.seed is not None:
        kwargs["seed"] = settings.seed
    return kwargs


def sampling_kwargs(sampling: Sampling) -> dict[str, Any]:
    """Arguments for ``vllm.SamplingParams(**kwargs)``: greedy is temperature 0.

    Defaults (``resolve_sampling``) give ``{"max_tokens": 128, "temperature": 0.0}``.
    """
    kwargs: dict[str, Any] = {"max_tokens": sampling.max_tokens, "temperature": sampling.temperature}
    if not sampling.greedy and sampling.top_p is not None:
        kwargs["top_p"] = sampling.top_p
    if sampling.seed is not None:
        kwargs["seed"] = sampling.seed
    return kwargs


def conversation(request: Request, *, max_image_pixels: int | None = None) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The request as one ``LLM.chat`` conversation, and notes on any image that was changed.

    Every image is decoded once here, so a corrupt one fails its own item (DataError) instead of
    the whole chunk inside vLLM; what is sent is the stored bytes (see ``prompt/images.py``).

    Raises:
        DataError: naming the item, for an unreadable image.
    """
    urls: list[str] = []
    notes: list[str] = []
    for position, ref in enumerate(request.images, start=1):
        data = ref.load()
        decode_image(data, request.item_id, ref.field, position)  # validation: vLLM decodes the URL itself
        try:
            url, note = image_data_url(data, max_pixels=max_image_pixels)
        except ValueError as exc:
            raise DataError(f"{ref.field} (image {position} of the prompt): {exc}", request.item_id) from exc
        urls.append(url)
        if note:
            notes.append(f"{ref.field} (image {position} of the prompt): {note}")
    messages = chat_messages(request, lambda i: {"type": "image_url", "image_url": {"url": urls[i]}})
    return messages, tuple(notes)


def response_from_output(request: Request, output: Any, *, latency_s: float, notes: tuple[str, ...] = ()) -> Response:
    """A Response from a vLLM ``RequestOutput`` (its first completion)."""
    completion = output.outputs[0]
    finish = completion.finish_reason
    text, reasoning = split_reasoning(completion.text)
    return Response(
        request.item_id,
        "truncated" if finish == "length" else "ok",
        text=text,
        reasoning=reasoning,
        finish_reason=finish,
        prompt_tokens=len(output.prompt_token_ids) if output.prompt_token_ids is not None else None,
        completion_tokens=len(completion.token_ids),
        latency_s=latency_s,
        notes=notes,
    )


# -- the backend ------------------------------------------------------------------------------

def _import_vllm() -> tuple[Any, Any]:
    try:
        import vllm
    except ImportError as exc:
        raise ConfigError(f"the vllm backend needs vLLM, which is not installed; run {INSTALL_HINT} (Linux with CUDA)") from exc
    return vllm.LLM, vllm.SamplingParams


class VLLMBackend:
    """Offline vLLM generation, a chunk of requests per ``LLM.chat`` call."""

    def __init__(
        self,
        name: str,
        settings: VLLMSettings,
        *,
        engine: Callable[..., Any],
        sampling_params: Callable[..., Any],
        chunk_size: int = DEFAULT_CHUNK,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """Args:
            name: a local directory or a hub id.
            settings: the run's vllm settings (dtype, tensor parallel size, max image pixels...).
            engine: builds the engine, ``vllm.LLM`` (tests pass a fake).
            sampling_params: ``vllm.SamplingParams`` (tests pass a fake).
            chunk_size: requests per ``LLM.chat`` call.
            clock: seconds, for latencies.
        """
        if chunk_size < 1:
            raise ConfigError(f"--batch-size {chunk_size}: must be at least 1")
        engine_kwargs(name, settings, [])  # check the settings now, before any request
        self.spec = f"vllm:{name}"
        self.name = name
        self.settings = settings
        self.chunk_size = chunk_size
        self._engine_factory = engine
        self._sampling_params = sampling_params
        self._clock = clock
        self._llm: Any = None
        self._engine_kwargs: dict[str, Any] = {}

    @classmethod
    def from_settings(cls, name: str, settings: VLLMSettings) -> "VLLMBackend":
        """Build from the run's vllm settings; raises ConfigError when vLLM is not installed."""
        if not name:
            raise ConfigError("vllm: needs a model directory or hub id, e.g. vllm:Qwen/Qwen2.5-VL-7B-Instruct")
        llm, sampling_params = _import_vllm()
        chunk = settings.batch_size if settings.batch_size is not None else DEFAULT_CHUNK
        return cls(name, settings, engine=llm, sampling_params=sampling_params, chunk_size=chunk)

    def _start(self, requests: Sequence[Request]) -> None:
        if self._llm is not None:
            return
        check_local_path(self.spec, self.name)
        kwargs = engine_kwargs(self.name, self.settings, requests)
        log.info("starting vLLM for %s with %s", self.spec, kwargs)
        try:
            self._llm = self._engine_factory(**kwargs)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{self.spec}: vLLM cannot load {self.name!r}: {exc}") from exc
        self._engine_kwargs = kwargs

    async def preflight(self, requests: Sequence[Request]) -> None:
        """Start the engine sized for these requests (model load, memory profiling)."""
        self._start(requests)

    async def generate(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield each request's response, a chunk at a time.

        vLLM runs on the event loop's own thread, blocking it for a chunk: its engine client
        must stay on the thread that created it (and vLLM 0.8 to 0.10 refuse to start anywhere
        but the main thread), so the progress display moves a chunk at a time.
        """
        self._start(requests)
        for offset in range(0, len(requests), self.chunk_size):
            chunk = list(requests[offset: offset + self.chunk_size])
            for response in self._run_chunk(chunk):
                yield response
            await asyncio.sleep(0)  # let the store and the display catch up between chunks

    def _run_chunk(self, chunk: list[Request]) -> list[Response]:
        start = self._clock()
        limit = self._engine_kwargs["limit_mm_per_prompt"]["image"]
        responses: list[Response] = []
        ready: list[tuple[Request, list[dict[str, Any]], tuple[str, ...]]] = []
        for request in chunk:
            if len(request.images) > limit:
                responses.append(error_response(request, DataError(
                    f"{len(request.images)} images, more than the engine was started for ({limit}); "
                    "run preflight with all requests", request.item_id)))
                continue
            try:
                messages, notes = conversation(request, max_image_pixels=self.settings.max_image_pixels)
            except DataError as exc:
                log.warning("%s", exc)
                responses.append(error_response(request, exc))
                continue
            ready.append((request, messages, notes))
        if not ready:
            return responses
        try:
            responses.extend(self._chat(ready, start))
        except Exception as exc:  # noqa: BLE001 - vLLM rejects a whole call for one bad prompt
            if len(ready) == 1:
                log.warning("%s: generation failed: %s", ready[0][0].item_id, exc)
                return [*responses, error_response(ready[0][0], exc, latency_s=self._clock() - start)]
            log.warning("a chunk of %d failed (%s); retrying its items one by one", len(ready), exc)
            for one in ready:
                one_start = self._clock()
                try:
                    responses.extend(self._chat([one], one_start))
                except Exception as one_exc:  # noqa: BLE001
                    log.warning("%s: generation failed: %s", one[0].item_id, one_exc)
                    responses.append(error_response(one[0], one_exc, latency_s=self._clock() - one_start))
        return responses

    def _chat(self, ready: list[tuple[Request, list[dict[str, Any]], tuple[str, ...]]], start: float) -> list[Response]:
        # One SamplingParams per request (vLLM takes a list); template variables apply to a whole
        # call, so requests are grouped by them (in a run they are all the same: one call).
        groups: dict[str, list[tuple[Request, list[dict[str, Any]], tuple[str, ...]]]] = {}
        for entry in ready:
            groups.setdefault(repr(sorted(template_kwargs(entry[0].generation).items())), []).append(entry)
        responses = []
        for group in groups.values():
            params = [self._sampling_params(**sampling_kwargs(resolve_sampling(r.generation))) for r, _, _ in group]
            extra = template_kwargs(group[0][0].generation)
            kwargs = {"chat_template_kwargs": extra} if extra else {}
            outputs = self._llm.chat([m for _, m, _ in group], sampling_params=params, use_tqdm=False, **kwargs)
            latency = self._clock() - start
            responses.extend(
                response_from_output(request, output, latency_s=latency, notes=notes)
                for (request, _, notes), output in zip(group, outputs, strict=True)
            )
        return responses

    async def aclose(self) -> None:
        """Drop the engine (vLLM frees GPU memory when it is collected)."""
        self._llm = None

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"backend": "vllm", "model": self.name, "chunk_size": self.chunk_size}
        out.update({k: v for k, v in (self._engine_kwargs or engine_kwargs(self.name, self.settings, [])).items() if k != "model"})
        try:
            import vllm

            out["vllm"] = vllm.__version__
        except ImportError:
            pass
        return out
