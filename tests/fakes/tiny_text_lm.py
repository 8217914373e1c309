"""A tiny, randomly initialised text-only causal LM with a real tokenizer and chat template.

For trainers' code paths that need a policy model (TRL's ``GRPOTrainer`` generating completions
and calling the reward), where the vision tower of ``tiny_models`` would only cost time: the
same BPE tokenizer recipe (``tiny_models._train_tokenizer``), a role-prefixed chat template that
takes string content, and a 2-layer Qwen2 network. Deterministic (``torch.manual_seed(0)``).
"""

from __future__ import annotations

from pathlib import Path

from fakes.tiny_models import _train_tokenizer

_SPECIAL = ["<pad>", "<s>", "</s>"]
_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] | upper }}: "
    "{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}"
    "{% endif %}</s>\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def build_tiny_text_lm(directory: str | Path) -> Path:
    """Write a tiny Qwen2 causal LM and its tokenizer to ``directory``; return the directory."""
    import torch
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    directory = Path(directory)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(_SPECIAL, 400),
        pad_token="<pad>", bos_token="<s>", eos_token="</s>", padding_side="left",
    )
    tokenizer.chat_template = _TEMPLATE
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, tie_word_embeddings=True,
    )
    Qwen2ForCausalLM(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
