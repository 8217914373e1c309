"""MMMU prompts, byte for byte as the official LLaVA reference builds them.

Paper: Yue et al., "MMMU: A Massive Multi-discipline Multimodal Understanding and Reasoning
Benchmark for Expert AGI", CVPR 2024 (arXiv:2311.16502).
Official code: github.com/MMMU-Benchmark/MMMU, ``mmmu/utils/data_utils.py::construct_prompt``
with ``mmmu/configs/llava1.5.yaml`` (official-protocol.md, sections 4.1-4.2).

What the official code does, and so what this module does:

* multiple choice: the question, one newline, one line ``(L) option`` per option (each line
  ends with a newline), one more newline, then the instruction::

      "{question}\\n(A) $6\\n(B) $7\\n(C) $8\\n(D) $9\\n\\nAnswer with the option's letter from the given choices directly."

* open: ``"{question}\\nAnswer the question using a single word or phrase."``
* ``task_instructions`` is empty in the official config, so nothing is prepended.
* ``<image N>`` tokens stay in the text unchanged (the layout decides where images go).

Anything that is not a multiple-choice item is open, as in the official ``evaluate()``.

The chain-of-thought and boxed templates below are **not official**: MMMU's code has neither.
They are ours, and a protocol that uses them says so (``EvalProtocol.official`` is False).
"""

from __future__ import annotations

from mmmu_eval.core.records import Item, letters

#: ``multi_choice_example_format`` after YAML folding (section 4.1): question, option lines, instruction.
MULTI_CHOICE_FORMAT = "{}\n{}\nAnswer with the option's letter from the given choices directly."
#: ``short_ans_example_format`` after YAML folding (section 4.1).
SHORT_ANSWER_FORMAT = "{}\nAnswer the question using a single word or phrase."
#: One option line of ``construct_prompt``; every line, the last included, ends with a newline.
OPTION_LINE = "({letter}) {option}\n"

# --- Not official: our own chain-of-thought variants (MMMU's code has none). -------------------
#: Multiple choice, CoT (ours). Same question and option block as the official prompt; the last
#: line format matches MMMU-Pro's so that a response is easy to parse.
COT_MULTI_CHOICE_FORMAT = (
    "{}\n{}\nAnswer the preceding multiple choice question. Think step by step, then finish "
    "with a last line of the form 'Answer: $LETTER' (without quotes) where LETTER is one of "
    "the options."
)
#: Open question, CoT (ours).
COT_SHORT_ANSWER_FORMAT = (
    "{}\nThink step by step, then finish with a last line of the form 'Answer: $ANSWER' "
    "(without quotes) where ANSWER is a single word or phrase."
)


# --- Not official: our own boxed-answer variants (the reinforcement-learning protocol). --------
# The option block is the official one; only the closing instruction changes. These are
# ``str.format`` templates like the ones above, so the braces of ``\boxed{}`` are doubled here
# and come out single in the prompt.
#: Multiple choice, boxed (ours): reason, then the letter alone in ``\boxed{}``.
BOXED_MULTI_CHOICE_FORMAT = (
    "{}\n{}\nThink step by step to solve the multiple-choice question above. Give your final "
    "answer as \\boxed{{LETTER}}, where LETTER is the letter of the correct option and nothing else."
)
#: Open question, boxed (ours): reason, then the short answer alone in ``\boxed{}``.
BOXED_SHORT_ANSWER_FORMAT = (
    "{}\nThink step by step to answer the question above. Give your final answer as "
    "\\boxed{{ANSWER}}, where ANSWER is a single word, phrase or number and nothing else."
)


def templates(mode: str) -> dict[str, str]:
    """The template texts the given mode uses, by name (they go into the protocol fingerprint)."""
    if mode == "direct":
        return {
            "multi_choice_format": MULTI_CHOICE_FORMAT,
            "short_answer_format": SHORT_ANSWER_FORMAT,
            "option_line": OPTION_LINE,
        }
    if mode == "cot":
        return {
            "multi_choice_format": COT_MULTI_CHOICE_FORMAT,
            "short_answer_format": COT_SHORT_ANSWER_FORMAT,
            "option_line": OPTION_LINE,
        }
    if mode == "boxed":
        return {
            "multi_choice_format": BOXED_MULTI_CHOICE_FORMAT,
            "short_answer_format": BOXED_SHORT_ANSWER_FORMAT,
            "option_line": OPTION_LINE,
        }
    raise ValueError(f"MMMU has no {mode!r} prompt (direct; cot and boxed, which are not official)")


def raw_prompt(item: Item, mode: str) -> str:
    """The prompt text with its ``<image N>`` tokens untouched (for MMMU this is the official string).

    Args:
        item: an MMMU item.
        mode: ``direct`` (official), ``cot`` or ``boxed`` (ours).

    Returns:
        The prompt, e.g. ``"Cost?\\n(A) $6\\n(B) $7\\n\\nAnswer with the option's letter ..."``.
    """
    t = templates(mode)
    if item.question_type == "multiple-choice":
        example = "".join(
            t["option_line"].format(letter=letter, option=option)
            for letter, option in zip(letters(len(item.options)), item.options)
        )
        return t["multi_choice_format"].format(item.question, example)
    return t["short_answer_format"].format(item.question)


def display_prompt(item: Item, mode: str) -> str:
    """The prompt as the official code writes it: MMMU keeps ``<image N>`` tokens verbatim."""
    return raw_prompt(item, mode)
