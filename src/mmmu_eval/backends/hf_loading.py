"""Loading an ``hf:`` checkpoint: its processor (all ``render`` and ``data show`` need) and its model.

Kept apart from generation (``hf_transformers.py``) because loading is where checkpoints and
transformers releases differ most, and where every failure must become a ``ConfigError`` that
names its real cause: a missing directory, a package a processor needs (``missing_package_hint``),
a checkpoint without a chat template, an architecture the installed transformers lacks.

    processor = load_processor("hf:/models/llava", "/models/llava", trust_remote_code=False)
    model, eos_ids, pad_id = load_model("hf:/models/llava", "/models/llava", processor, dtype="auto", device="auto")
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

from mmmu_eval.backends.hf_inputs import adopt_tokenizer_template, missing_package_hint, release
from mmmu_eval.backends.local_chat import check_local_path
from mmmu_eval.core.errors import ConfigError

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'mmmu-eval[hf]'"


def import_engine() -> tuple[Any, Any]:
    """torch and transformers, imported only when an hf backend is built."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ConfigError(f"the hf backend needs torch and transformers ({exc.name} is missing); run {INSTALL_HINT}") from exc
    return torch, transformers


def model_path(name: str) -> str:
    """The name ``from_pretrained`` is given: a ``~`` path expanded, anything else as written."""
    return str(Path(name).expanduser()) if name.startswith("~") else name


def cannot_load(name: str, exc: BaseException) -> str:
    """Why a checkpoint did not load, with what usually fixes it."""
    return (
        f"cannot load a vision-language model from {name!r} ({type(exc).__name__}: {exc}). Give a "
        "local directory, or a hub id with network access; a model shipping its own code needs "
        "--trust-remote-code; an architecture newer than your transformers needs a newer release"
    )


def load_processor(spec: str, name: str, *, trust_remote_code: bool) -> Any:
    """The checkpoint's processor alone, with a chat template (the tokenizer's when the
    processor has none): rendering prompts needs no weights.

    Raises:
        ConfigError: naming the cause (no directory, a missing package, no tokenizer, no template).
    """
    _, transformers = import_engine()
    check_local_path(spec, name)
    try:
        processor = transformers.AutoProcessor.from_pretrained(model_path(name), trust_remote_code=trust_remote_code)
    except ImportError as exc:
        raise ConfigError(f"{spec}: {missing_package_hint(exc)}") from exc
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{spec}: {cannot_load(name, exc)}") from exc
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is None:
        raise ConfigError(f"{spec}: the processor has no tokenizer; is this a vision-language model?")
    adopt_tokenizer_template(spec, processor, tokenizer)
    return processor


def load_model(
    spec: str, name: str, processor: Any, *, dtype: str, device: str, trust_remote_code: bool
) -> tuple[Any, list[int], int | None]:
    """The model, in eval mode on its device(s), and the end and padding token ids it generates with.

    ``device`` ``auto`` spreads the model over every visible GPU (``device_map="auto"``; on
    transformers 4.x only with accelerate, else it goes to the first GPU whole), or stays on the
    CPU. The tokenizer is set to pad on the left (decoder-only batches grow to the right).

    Raises:
        ConfigError: naming the cause (see ``load_processor``), or no end token anywhere.
    """
    torch, transformers = import_engine()
    check_local_path(spec, name)
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"{spec}: --device cuda but torch sees no GPU; use --device cpu or auto")
    # transformers renamed torch_dtype to dtype in 4.56; the extra allows older releases.
    dtype_key = "dtype" if release(transformers) >= (4, 56) else "torch_dtype"
    model_kwargs: dict[str, Any] = {dtype_key: "auto" if dtype == "auto" else getattr(torch, dtype)}
    to_cuda = device == "cuda"
    if device == "auto" and torch.cuda.is_available():
        if release(transformers) >= (5,) or importlib.util.find_spec("accelerate"):
            model_kwargs["device_map"] = "auto"
        else:
            to_cuda = True
    try:
        model = transformers.AutoModelForImageTextToText.from_pretrained(
            model_path(name), trust_remote_code=trust_remote_code, **model_kwargs
        )
    except ImportError as exc:
        raise ConfigError(f"{spec}: {missing_package_hint(exc)}") from exc
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{spec}: {cannot_load(name, exc)}") from exc
    if to_cuda:
        model = model.to("cuda")
    model.eval()
    tokenizer = processor.tokenizer
    tokenizer.padding_side = "left"
    eos = model.generation_config.eos_token_id
    eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in eos_ids:
        eos_ids.append(tokenizer.eos_token_id)
    if not eos_ids:
        raise ConfigError(f"{spec}: neither the generation config nor the tokenizer names an end token")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    log.info("loaded %s (%s) on %s, dtype %s", spec, type(model).__name__, model.device, model.dtype)
    return model, eos_ids, tokenizer.pad_token_id
