"""Tiny, randomly initialised vision-language models built on the spot, for offline tests.

No real weights can be downloaded here, so tests build a model from a config instead: a real
tokenizer (BPE trained with ``tokenizers`` on MMMU-like text), a real image processor, a real chat
template, and a 2-layer, hidden-size-32 network. Everything the ``hf`` backend and
``transformers serve`` do with a real checkpoint happens (processor, image tokens, chat template,
batching, generation); only the answers are nonsense. The recipe is in
``shared/docs/offline-models.md``.

Each model carries its checkpoint family's real chat template and special tokens
(``tests/fakes/chat_templates``, sources in its SOURCES.md): LLaVA-1.5 with llava-hf's template,
which writes every image first; Idefics3 with SmolVLM-Instruct's; Gemma 3 with gemma-3-it's. The
builders run on transformers 4.x and 5.x (5.x names the PIL image processors apart) without
torchvision.

Each builder writes a directory that ``AutoProcessor.from_pretrained(dir)`` and
``AutoModelForImageTextToText.from_pretrained(dir)`` load, and returns it. Builds are
deterministic (``torch.manual_seed(0)``), so two builds give byte-identical weights and the
same greedy output.

    path = build_tiny_llava(tmp_path / "llava")      # about 0.1 s after the imports
    backend = HFBackend.from_settings(str(path), HFSettings())
"""

from __future__ import annotations

from pathlib import Path

# Text shaped like MMMU prompts, so the trained BPE has real word pieces and the tiny model's
# random output decodes to word fragments rather than raw bytes.
_TRAINING_TEXT = (
    "Question: What is shown in the image? Which of the following options is correct? "
    "Options: (A) cat (B) dog (C) tree (D) house. A. B. C. D. E. F. G. H. I. J. "
    "Answer with the option's letter from the given choices directly. "
    "Answer the question using a single word or phrase. "
    "The answer is (A). Therefore the correct option is B. "
    "<image 1> <image 2> Calculate the value of x in the figure. The total cost is $120. "
    "Accounting Art Biology Chemistry Economics Finance History Math Physics Psychology. "
    "Identify the structure, the diagram, the table and the chart. "
    "USER: ASSISTANT: SYSTEM:"
)

_TEMPLATES = Path(__file__).parent / "chat_templates"

_LLAVA_SPECIAL = ["<pad>", "<s>", "</s>", "<image>"]

# SmolVLM-Instruct's tokens: bos <|im_start|>, eos <end_of_utterance>, pad <|im_end|>.
_IDEFICS3_SPECIAL = (
    ["<|im_end|>", "<|im_start|>", "<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>"]
    + [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
)

# Gemma 3's: <start_of_image> is what the template writes; the processor expands it into
# <start_of_image> + image_seq_length <image_soft_token> + <end_of_image>.
_GEMMA3_SPECIAL = ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>",
                   "<end_of_image>", "<image_soft_token>"]


def chat_template(name: str) -> str:
    """A real checkpoint's chat template from ``chat_templates/`` (``llava-1.5``, ``smolvlm``, ``gemma-3``)."""
    return (_TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


def _pil_image_processor(transformers, name: str):
    """transformers 5 names the PIL-backed image processor ``<name>Pil`` (the plain name needs
    torchvision there); 4.x has only the plain, PIL-backed one."""
    return getattr(transformers, f"{name}Pil", None) or getattr(transformers, name)


def _train_tokenizer(special: list[str], vocab_size: int):
    """A byte-level BPE tokenizer trained on MMMU-like text (deterministic)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([_TRAINING_TEXT] * 50, trainer=trainer)
    return tok


def build_tiny_llava(
    directory: str | Path, *, hidden_size: int = 32, heads: int = 4, initializer_range: float = 0.02,
    image_token: str = "<image>", template: str = "llava-1.5",
) -> Path:
    """Write a tiny random LLaVA-1.5 (CLIP vision tower, Llama text model) to ``directory``,
    with llava-hf's chat template (images first, then the text).

    Args:
        directory: where to save; created if missing.
        hidden_size, heads: of both towers. vLLM's attention kernels need a head size of 64 or
            so (``benchmarks/gpu_check.py`` builds 128 / 2); the tests' default is smaller.
        initializer_range: weight scale; a larger one (0.3) spreads the random logits far
            enough apart that greedy decoding picks the same token in every kernel and dtype.
        image_token: the processor's image placeholder (llava-hf's ``<image>``; ``[IMG]`` for
            the Mistral templates). The processor reads text that spells it as an image slot,
            which the hf backend prevents by writing such text apart (``[image]``).
        template: the chat template, by its file in ``chat_templates/`` (``<image>`` in it is
            written as ``image_token``): ``pixtral-12b-content-only`` with ``image_token="[IMG]"``
            is the older pixtral-12b template, which reads text parts only from ``"content"``.

    Returns:
        The directory, loadable by ``AutoProcessor`` / ``AutoModelForImageTextToText`` and
        servable by ``transformers serve``.
    """
    import torch
    import transformers
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    image_processor_class = _pil_image_processor(transformers, "CLIPImageProcessor")

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer([image_token if t == "<image>" else t for t in _LLAVA_SPECIAL], 600),
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        extra_special_tokens={"image_token": image_token},
    )
    image_processor = image_processor_class(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=8,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=chat_template(template).replace("<image>", image_token),
    )
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(
            hidden_size=hidden_size, intermediate_size=2 * hidden_size, num_hidden_layers=2,
            num_attention_heads=heads, image_size=32, patch_size=8, projection_dim=hidden_size,
            initializer_range=initializer_range,
        ),
        text_config=LlamaConfig(
            vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
            num_hidden_layers=2, num_attention_heads=heads, num_key_value_heads=max(1, heads // 2),
            max_position_embeddings=2048, initializer_range=initializer_range,
            bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids(image_token),
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def build_tiny_idefics3(directory: str | Path) -> Path:
    """Write a tiny random Idefics3 (the SmolVLM v1 architecture) to ``directory``, with
    SmolVLM-Instruct's chat template and special tokens.

    Images are not split into tiles (``do_image_splitting=False``) and each becomes 4 image
    tokens, so prompts stay short.

    Args:
        directory: where to save; created if missing.

    Returns:
        The directory, loadable by ``AutoProcessor`` / ``AutoModelForImageTextToText``.
    """
    import torch
    import transformers
    from transformers import Idefics3Config, Idefics3ForConditionalGeneration, Idefics3Processor, PreTrainedTokenizerFast

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_IDEFICS3_SPECIAL, 700),
        bos_token="<|im_start|>",
        eos_token="<end_of_utterance>",
        pad_token="<|im_end|>",
        extra_special_tokens={
            "image_token": "<image>",
            "fake_image_token": "<fake_token_around_image>",
            "global_image_token": "<global-img>",
            "end_of_utterance_token": "<end_of_utterance>",
        },
    )
    image_processor = _pil_image_processor(transformers, "Idefics3ImageProcessor")(
        size={"longest_edge": 32}, max_image_size={"longest_edge": 32}, do_image_splitting=False
    )
    processor = Idefics3Processor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        image_seq_len=4,
        chat_template=chat_template("smolvlm"),
    )
    config = Idefics3Config(
        vision_config=dict(
            hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            image_size=32, patch_size=8,
        ),
        text_config=dict(
            model_type="llama", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=2048, bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        scale_factor=2,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = Idefics3ForConditionalGeneration(config).eval()
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def build_tiny_gemma3(directory: str | Path) -> Path:
    """Write a tiny random Gemma 3 (SigLIP vision tower, Gemma 3 text model) to ``directory``,
    with gemma-3-it's chat template and special tokens.

    Each image becomes 4 image tokens (``mm_tokens_per_image``: a 4x4 patch grid pooled 2x2).
    Gemma 3's processor returns ``token_type_ids`` (which tokens are an image's), and its
    ``forward`` takes them: the one family here whose model needs them.

    Returns:
        The directory, loadable by ``AutoProcessor`` / ``AutoModelForImageTextToText``.
    """
    import torch
    import transformers
    from transformers import Gemma3Config, Gemma3ForConditionalGeneration, Gemma3Processor, PreTrainedTokenizerFast

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_GEMMA3_SPECIAL, 700),
        bos_token="<bos>",
        eos_token="<eos>",
        pad_token="<pad>",
        extra_special_tokens={
            "boi_token": "<start_of_image>",
            "eoi_token": "<end_of_image>",
            "image_token": "<image_soft_token>",
        },
    )
    image_processor = _pil_image_processor(transformers, "Gemma3ImageProcessor")(
        size={"height": 32, "width": 32}, do_pan_and_scan=False
    )
    processor = Gemma3Processor(
        image_processor=image_processor, tokenizer=tokenizer, image_seq_length=4, chat_template=chat_template("gemma-3")
    )
    ids = tokenizer.convert_tokens_to_ids
    config = Gemma3Config(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=2048,
            sliding_window=64, bos_token_id=tokenizer.bos_token_id, pad_token_id=tokenizer.pad_token_id,
            eos_token_id=[tokenizer.eos_token_id, ids("<end_of_turn>")],
        ),
        vision_config=dict(
            model_type="siglip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, image_size=32, patch_size=8,
        ),
        mm_tokens_per_image=4,
        boi_token_index=ids("<start_of_image>"),
        eoi_token_index=ids("<end_of_image>"),
        image_token_index=ids("<image_soft_token>"),
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=[tokenizer.eos_token_id, ids("<end_of_turn>")],
    )
    torch.manual_seed(0)
    model = Gemma3ForConditionalGeneration(config).eval()
    # The image projection starts at zero in a new model (a real checkpoint's is trained): give it
    # random weights, or every image would reach the text model as zeros and none could matter.
    with torch.no_grad():
        model.model.multi_modal_projector.mm_input_projection_weight.normal_(0.0, 0.02)
    model.generation_config.eos_token_id = [tokenizer.eos_token_id, ids("<end_of_turn>")]
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def png_bytes(color: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> bytes:
    """A small solid-colour PNG."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def mmmu_like_requests(n: int = 7, max_tokens: int = 10, temperature: float | None = None):
    """Requests shaped like MMMU's for the tiny models: images mid-question, one or two of them
    (odd indices have two), option lists of three lengths, ids ``dev_Art_0`` ... ``dev_Art_{n-1}``.
    As ``prompt.build_request`` makes them, no two text parts are adjacent (a template such as
    LLaVA-1.5's adds a space after each text part, and a server is sent the parts unjoined)."""
    from mmmu_eval.core.records import GenerationSettings, ImagePart, ImageRef, Request, TextPart

    settings = GenerationSettings(max_tokens=max_tokens, temperature=temperature)
    requests = []
    for i in range(n):
        options = "\nOptions: (A) cat (B) dog" + " (C) a much longer option text" * (i % 3)
        instruction = "\nAnswer with the option's letter from the given choices directly."
        parts = [
            TextPart(f"Question: which option matches the figure {i}? "),
            ImagePart(ImageRef.from_bytes("image_1", png_bytes((30 * i % 256, 90, (200 - 20 * i) % 256)))),
        ]
        if i % 2:
            parts.append(TextPart(options))
            parts.append(ImagePart(ImageRef.from_bytes("image_2", png_bytes((200, 20 * i % 256, 10), (24, 48)))))
            parts.append(TextPart(instruction))
        else:
            parts.append(TextPart(options + instruction))
        requests.append(Request(f"dev_Art_{i}", tuple(parts), choices=("A", "B", "C"), generation=settings))
    return requests
