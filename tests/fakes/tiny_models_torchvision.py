"""Tiny random models of the families whose processors need torchvision on transformers 5 (their
video processors, or Pixtral's processor, import it): Qwen2-VL, Qwen2.5-VL, Qwen3-VL,
LLaVA-OneVision, InternVL (InternVL3-hf), SmolVLM2 and Mistral3 (Mistral-Small-3.1), with their
checkpoints' real chat templates and special tokens (``chat_templates/``, sources in its SOURCES.md;
Mistral-Small-3.1's is reconstructed, as that file says). Each builds on transformers 4.57 and 5.x.

torchvision has no build beside the CI's torch 2.13.0 CPU, so the tests that use these run only
where it is installed: ``make test-torchvision`` (a venv of torch 2.14.1 and torchvision 0.29.1,
several GB) or any environment with both, selected with ``-m torchvision``.

    path = build_tiny_qwen2_vl(tmp_path / "qwen2-vl")
"""

from __future__ import annotations

from pathlib import Path

from fakes.tiny_models import _pil_image_processor, _train_tokenizer, chat_template

from mmmu_eval.backends.hf_inputs import release

_QWEN_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                 "<|image_pad|>", "<|video_pad|>"]

_ONEVISION_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"]


def _qwen_tokenizer(special: list[str], **tokens):
    """The checkpoints' tokenizer class, Qwen2Tokenizer: 4.x's Qwen processors accept no other (its
    fast one there); on 5.x the generic tokenizers-backed class is what Qwen2Tokenizer is."""
    import transformers

    tokenizer_class = getattr(transformers, "Qwen2TokenizerFast", None) if release(transformers) < (5,) else None
    return (tokenizer_class or transformers.PreTrainedTokenizerFast)(
        tokenizer_object=_train_tokenizer(special, 700), eos_token="<|im_end|>", pad_token="<|endoftext|>", **tokens
    )


def _mrope(section: list[int], **extra) -> dict:
    """The text config's multimodal rotary settings: 5.x's ``rope_parameters``, 4.x's ``rope_scaling``
    and ``rope_theta``."""
    import transformers

    rope = {"rope_type": "default", "mrope_section": section, **extra}
    if release(transformers) >= (5,):
        return {"rope_parameters": {**rope, "rope_theta": 10000.0}}
    return {"rope_scaling": rope, "rope_theta": 10000.0}


def build_tiny_qwen2_vl(directory: str | Path, *, version: str = "2") -> Path:
    """Write a tiny random Qwen2-VL, or Qwen2.5-VL with ``version="2.5"`` (both Instruct
    checkpoints ship the same template: parts in order, each image as
    ``<|vision_start|><|image_pad|><|vision_end|>``); images are resized to a few 28-pixel tiles."""
    import torch
    import transformers
    from transformers import Qwen2VLImageProcessor, Qwen2VLVideoProcessor

    kind = {"2": "Qwen2VL", "2.5": "Qwen2_5_VL"}[version]
    processor_class = getattr(transformers, f"{kind}Processor")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _qwen_tokenizer(_QWEN_SPECIAL)
    pixels = {"min_pixels": 28 * 28, "max_pixels": 56 * 56}
    processor = processor_class(
        image_processor=Qwen2VLImageProcessor(**pixels),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(**pixels),
        chat_template=chat_template("qwen2-vl"),
    )
    ids = tokenizer.convert_tokens_to_ids
    config = getattr(transformers, f"{kind}Config")(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
            **_mrope([1, 1, 2]),
            bos_token_id=None, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        vision_config=(
            dict(depth=2, embed_dim=32, hidden_size=32, num_heads=4, mlp_ratio=2) if version == "2" else
            dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32,
                 fullatt_block_indexes=[1], window_size=56)
        ),
        image_token_id=ids("<|image_pad|>"),
        video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"),
        vision_end_token_id=ids("<|vision_end|>"),
    )
    torch.manual_seed(0)
    model = getattr(transformers, f"{kind}ForConditionalGeneration")(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def build_tiny_llava_onevision(directory: str | Path) -> Path:
    """Write a tiny random LLaVA-OneVision (SigLIP, Qwen2) with llava-hf's template, which writes
    every image first; one 32-pixel tile per image (no any-resolution split beyond it)."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _qwen_tokenizer(_ONEVISION_SPECIAL, extra_special_tokens={"image_token": "<image>", "video_token": "<video>"})
    size = {"height": 32, "width": 32}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=size, image_grid_pinpoints=[[32, 32]]),
        tokenizer=tokenizer,
        video_processor=LlavaOnevisionVideoProcessor(size=size),
        num_image_tokens=16,
        vision_feature_select_strategy="full",
        chat_template=chat_template("llava-onevision"),
    )
    ids = tokenizer.convert_tokens_to_ids
    config = LlavaOnevisionConfig(
        text_config=dict(
            model_type="qwen2", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
            eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        vision_config=dict(
            model_type="siglip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, image_size=32, patch_size=8,
        ),
        image_token_index=ids("<image>"),
        video_token_index=ids("<video>"),
        image_grid_pinpoints=[[32, 32]],
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    model = LlavaOnevisionForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


_SMOLVLM2_SPECIAL = (
    ["<|im_end|>", "<|im_start|>", "<fake_token_around_image>", "<image>", "<video>", "<end_of_utterance>", "<global-img>"]
    + [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
)


def build_tiny_smolvlm2(directory: str | Path) -> Path:
    """Write a tiny random SmolVLM2 (SmolVLM2-Instruct's template: parts in order), each image one
    tile of 4 image tokens."""
    import torch
    from transformers import (
        PreTrainedTokenizerFast,
        SmolVLMConfig,
        SmolVLMForConditionalGeneration,
        SmolVLMImageProcessor,
        SmolVLMProcessor,
        SmolVLMVideoProcessor,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_SMOLVLM2_SPECIAL, 700),
        bos_token="<|im_start|>",
        eos_token="<end_of_utterance>",
        pad_token="<|im_end|>",
        extra_special_tokens={
            "image_token": "<image>",
            "video_token": "<video>",
            "fake_image_token": "<fake_token_around_image>",
            "global_image_token": "<global-img>",
            "end_of_utterance_token": "<end_of_utterance>",
        },
    )
    size = {"longest_edge": 32}
    processor = SmolVLMProcessor(
        image_processor=SmolVLMImageProcessor(size=size, max_image_size=size, do_image_splitting=False),
        tokenizer=tokenizer,
        video_processor=SmolVLMVideoProcessor(size=size, max_image_size=size),
        image_seq_len=4,
        chat_template=chat_template("smolvlm2"),
    )
    config = SmolVLMConfig(
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                           image_size=32, patch_size=8),
        text_config=dict(
            model_type="llama", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
            bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        scale_factor=2,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = SmolVLMForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def build_tiny_qwen3_vl(directory: str | Path) -> Path:
    """Write a tiny random Qwen3-VL (Qwen3-VL-*-Instruct's template: no default system turn, parts in
    order, each image ``<|vision_start|><|image_pad|><|vision_end|>``); 16-pixel patches merged 2x2,
    so each image is a few 32-pixel tiles; one DeepStack layer."""
    import torch
    from transformers import (
        Qwen2VLImageProcessor,
        Qwen3VLConfig,
        Qwen3VLForConditionalGeneration,
        Qwen3VLProcessor,
        Qwen3VLVideoProcessor,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _qwen_tokenizer(_QWEN_SPECIAL)
    # Qwen3-VL's preprocessor_config.json: patch 16, merge 2; pixel bounds as size's two edges
    size = {"shortest_edge": 32 * 32, "longest_edge": 64 * 64}
    processor = Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessor(size=size, patch_size=16, merge_size=2),
        tokenizer=tokenizer,
        video_processor=Qwen3VLVideoProcessor(size=size, patch_size=16, merge_size=2),
        chat_template=chat_template("qwen3-vl"),
    )
    ids = tokenizer.convert_tokens_to_ids
    config = Qwen3VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=2048,
            **_mrope([2, 1, 1], mrope_interleaved=True),
            bos_token_id=None, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        vision_config=dict(
            depth=2, hidden_size=32, intermediate_size=64, num_heads=4, patch_size=16, spatial_merge_size=2,
            out_hidden_size=32, num_position_embeddings=16, deepstack_visual_indexes=[0],
        ),
        image_token_id=ids("<|image_pad|>"),
        video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"),
        vision_end_token_id=ids("<|vision_end|>"),
    )
    torch.manual_seed(0)
    model = Qwen3VLForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


# InternVL3-1B-hf's tokenizer: Qwen2.5's special tokens and the three image tokens it adds.
_INTERNVL_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>", "<IMG_CONTEXT>", "<video>"]


def build_tiny_internvl(directory: str | Path) -> Path:
    """Write a tiny random InternVL (the transformers-native conversion, as OpenGVLab/InternVL3-1B-hf:
    InternViT, Qwen2) with that checkpoint's template (parts in order, each image ``<IMG_CONTEXT>``
    and a newline, which the processor expands to ``<img>`` + image_seq_length tokens per tile +
    ``</img>``). Tiles of 32 pixels, at most two per image plus a thumbnail, 4 tokens each."""
    import torch
    import transformers
    from transformers import (
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        PreTrainedTokenizerFast,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_INTERNVL_SPECIAL, 700),
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens={
            "start_image_token": "<img>",
            "end_image_token": "</img>",
            "context_image_token": "<IMG_CONTEXT>",
            "video_token": "<video>",
        },
    )
    size = {"height": 32, "width": 32}
    processor = InternVLProcessor(
        image_processor=_pil_image_processor(transformers, "GotOcr2ImageProcessor")(
            size=size, crop_to_patches=True, max_patches=2, image_mean=[0.485, 0.456, 0.406],
            image_std=[0.229, 0.224, 0.225],
        ),
        tokenizer=tokenizer,
        video_processor=InternVLVideoProcessor(size=size),
        image_seq_length=4,
        chat_template=chat_template("internvl3"),
    )
    config = InternVLConfig(
        vision_config=dict(
            hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            image_size=[32, 32], patch_size=[8, 8],
        ),
        text_config=dict(
            model_type="qwen2", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
            eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<IMG_CONTEXT>"),
        image_seq_length=4,
        downsample_ratio=0.5,
        # InternVL3-1B ties them (Qwen2.5-0.5B); untied here, or the random model only repeats its
        # prompt's last token and the batch and image checks would compare constant text
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


# Mistral-Small-3.1's tekken tokenizer: the first special tokens in their real order, so [IMG],
# [IMG_BREAK] and [IMG_END] have their real ids 10, 12 and 13.
_MISTRAL_SPECIAL = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
                    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"]


def build_tiny_mistral3(directory: str | Path, *, checkpoint: str = "mistral-small-3.1") -> Path:
    """Write a tiny random Mistral3 (Mistral-Small-3.1's architecture: Pixtral vision tower, patch
    merger, Mistral text model) with Mistral-Small-3.1-24B-Instruct-2503's template (a default
    system prompt carrying today's date, ``[INST]``, parts in order, each image ``[IMG]``, which the
    Pixtral processor expands row by row with ``[IMG_BREAK]`` and ``[IMG_END]``); or, with
    ``checkpoint="pixtral-12b"``, mistral-community/pixtral-12b's (LLaVA with the Pixtral vision
    tower, no patch merger; no default system prompt). Images are at most 32 pixels on the longer
    edge, in 8-pixel patches (merged 2x2 in Mistral3)."""
    import torch
    import transformers
    from transformers import PixtralProcessor, PreTrainedTokenizerFast

    mistral3 = {"mistral-small-3.1": True, "pixtral-12b": False}[checkpoint]
    merge = 2 if mistral3 else 1
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_MISTRAL_SPECIAL, 700),
        bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
    )
    processor = PixtralProcessor(
        image_processor=_pil_image_processor(transformers, "PixtralImageProcessor")(
            size={"longest_edge": 32}, patch_size=8
        ),
        tokenizer=tokenizer,
        patch_size=8,
        spatial_merge_size=merge,
        chat_template=chat_template(checkpoint),
    )
    towers = dict(
        vision_config=dict(
            model_type="pixtral", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, head_dim=8, image_size=32, patch_size=8,
        ),
        text_config=dict(
            model_type="mistral", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
            max_position_embeddings=2048, bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_index=tokenizer.convert_tokens_to_ids("[IMG]"),
        vision_feature_layer=-1,
        tie_word_embeddings=False,  # as both checkpoints
    )
    if mistral3:
        config = transformers.Mistral3Config(**towers, spatial_merge_size=2, multimodal_projector_bias=False)
        model_class = transformers.Mistral3ForConditionalGeneration
    else:
        config = transformers.LlavaConfig(**towers, vision_feature_select_strategy="full")
        model_class = transformers.LlavaForConditionalGeneration
    torch.manual_seed(0)
    model = model_class(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out
