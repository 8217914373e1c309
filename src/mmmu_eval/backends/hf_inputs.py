"""The hf backend's dealings with transformers that differ between checkpoints and releases.

- ``forward_inputs``: the processor's outputs that ``generate`` will take. A tokenizer may return
  ``token_type_ids`` (transformers 4.x tokenizers do, for LLaVA, LLaVA-OneVision, InternVL,
  Idefics3, SmolVLM2, Mistral3), and ``generate`` refuses, for every item, an input that neither
  ``prepare_inputs_for_generation`` nor ``forward`` names. Such inputs are dropped first, by the
  same rule ``generate`` checks with; a model that names one (Gemma 3's ``token_type_ids``, which
  mark its image tokens for attention) keeps it.
- ``adopt_tokenizer_template``: a checkpoint whose chat template sits only in
  ``tokenizer_config.json`` (older conversions) gets it on its processor, which is what renders.
- ``missing_package_hint`` / ``template_failure``: errors that name their real cause.
"""

from __future__ import annotations

import inspect
import logging
import re
from typing import Any

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request

log = logging.getLogger(__name__)

#: The families whose processors need torchvision on transformers 5 (their video processors, or
#: the Pixtral processor itself, import it), each checked on 5.24 with a tiny model of its real
#: processor; Gemma 3, Idefics3 and LLaVA-1.5 run without it. On 4.x all but Pixtral / Mistral3
#: need it too (their video processors).
TORCHVISION_FAMILIES = "the Qwen-VL family (Qwen2-VL, Qwen2.5-VL, Qwen3-VL), LLaVA-OneVision, InternVL, SmolVLM2 and Pixtral / Mistral3"

# Inputs ``generate`` accepts from any model (transformers' TransformersKwargs and its own extras).
_ALWAYS = {"debug_io", "mm_encoder_outputs"}


def release(transformers: Any) -> tuple[int, ...]:
    """The transformers release as numbers: ``"4.57.1"`` -> ``(4, 57, 1)``; pre-release suffixes are ignored."""
    text = transformers.__version__
    parts = []
    for piece in text.split(".")[:3]:
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def _parameters(function: Any) -> set[str]:
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return set()


def accepted_inputs(model: Any) -> set[str]:
    """The input names ``model.generate`` takes: those of ``prepare_inputs_for_generation``, and
    of ``forward`` too when the former passes ``**kwargs`` on (transformers' own rule)."""
    names = _parameters(model.prepare_inputs_for_generation)
    if "kwargs" in names or "model_kwargs" in names:
        names |= _parameters(model.forward)
    try:
        from transformers.utils import TransformersKwargs

        names |= set(getattr(TransformersKwargs, "__optional_keys__", ()))
    except ImportError:  # older 4.x: no such type, and no such inputs from a processor
        pass
    return names | _ALWAYS


def forward_inputs(model: Any, inputs: Any) -> Any:
    """``inputs`` (the processor's BatchFeature) without the entries ``generate`` would refuse."""
    accepted = accepted_inputs(model)
    dropped = [key for key in list(inputs.keys()) if key not in accepted]
    for key in dropped:
        del inputs[key]
    if dropped:
        log.debug("not passed to %s.generate (its forward does not take them): %s", type(model).__name__, dropped)
    return inputs


def adopt_tokenizer_template(spec: str, processor: Any, tokenizer: Any) -> None:
    """Give the processor the tokenizer's chat template when it has none of its own.

    Raises:
        ConfigError: neither has a template (a base model, not an instruction-tuned one).
    """
    if getattr(processor, "chat_template", None) is not None:
        return
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # named templates: transformers renders "default"
        template = template.get("default")
    if template is None:
        raise ConfigError(
            f"{spec}: the checkpoint has no chat template (neither chat_template.jinja / .json nor "
            "tokenizer_config.json holds one); use an instruction-tuned model"
        )
    log.info("%s: using the chat template of tokenizer_config.json (the processor has none of its own)", spec)
    processor.chat_template = template


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or during, outermost first."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def missing_package_hint(exc: ImportError) -> str:
    """What to install when loading the processor or model hit a missing package. The package may
    be named only by an exception further down the chain: transformers 4.x says "Could not import
    module 'SmolVLMProcessor'" and keeps the missing torchvision in the error it was raised from."""
    text = " ".join(str(exc).split())
    first = text.split(". ")[0].rstrip(".") if text else type(exc).__name__  # transformers' first sentence says what needs it
    chain = _chain(exc)
    if any("torchvision" in str(e).lower() or getattr(e, "name", None) == "torchvision" for e in chain):
        return (
            f"the model's processor needs torchvision, which is not installed ({first}); on transformers 5 "
            f"{TORCHVISION_FAMILIES} need it (on 4.x all of them but Pixtral / Mistral3). Install the "
            "torchvision release built for your torch (pip install torchvision==<the one matching torch>)"
        )
    name = next((e.name for e in chain if isinstance(e, ImportError) and e.name), None)
    return f"the model needs a package that is missing ({name or first}); install it and run again"


def template_failure(exc: BaseException, request: Request) -> str:
    """Why the model's chat template did not render ``request``, naming the item: the template's
    own refusal (``raise_exception``) or another failure, by its type."""
    try:
        from jinja2 import TemplateError
    except ImportError:  # pragma: no cover - transformers requires jinja2
        TemplateError = ()  # type: ignore[assignment,misc]
    # transformers' raise_exception raises TemplateError itself; its subclasses (a syntax error,
    # an unknown filter, an undefined variable) are a broken template, not a refusal.
    if type(exc) is TemplateError:
        hint = " (drop --system-prompt?)" if request.system else ""
        return f"the chat template rejects the prompt of {request.item_id}: {exc}{hint}"
    return f"the chat template could not render the prompt of {request.item_id}: {type(exc).__name__}: {exc}"
