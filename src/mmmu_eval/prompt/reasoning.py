"""Reasoning text: one rule, for every backend, for where the answer that is parsed begins.

Sharing it keeps a model's score the same whether it is served (``openai:``) or run
in-process (``hf:``, ``vllm:``), and a trainer's reward (``environments/``) the same as the
verdict of ``mmmu-eval`` on the same text; so it lives here, below the backends and the
environments that both read it.
"""

from __future__ import annotations

import re

__all__ = ["split_reasoning"]

_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Split a model's text into (the answer that is parsed, the reasoning), at ``<think>`` tags.

    Handles a closed block, a closing tag whose opening was in the prompt (chat templates of
    Qwen3 and DeepSeek-R1 put ``<think>`` there), and a block cut off by the token limit
    (no answer at all). Text without tags comes back unchanged.
    """
    if "<think>" not in text and "</think>" not in text:
        return text, None
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        found.append(match.group(1).strip())
        return ""

    answer = _THINK.sub(keep, text)
    if "</think>" in answer:
        before, _, answer = answer.rpartition("</think>")
        found.insert(0, before.replace("<think>", "").strip())
    elif "<think>" in answer:
        answer, _, unfinished = answer.partition("<think>")
        found.append(unfinished.strip())
    return answer.strip(), "\n\n".join(r for r in found if r) or None
