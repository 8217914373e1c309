"""MMMU-Pro prompts, byte for byte as the official inference scripts build them.

Paper: Yue et al., "MMMU-Pro: A More Robust Multi-discipline Multimodal Understanding
Benchmark", ACL 2025 (arXiv:2409.02813).
Official code: github.com/MMMU-Benchmark/MMMU, ``mmmu-pro/prompts.yaml`` and the
``mmmu-pro/infer/*`` scripts (official-protocol.md, sections 6.2-6.3).

What the official code does, and so what this module does:

* standard (10 or 4 options): ``f"{question}\\n{options_block}\\n{instruction}"`` where the
  options block is the lines ``"A. option"`` joined by single newlines. Then every
  ``<image\\s+N>`` token is replaced by ``<image>``; the images are sent in the textual order
  of those tokens (question first, then options), repeats kept.
* vision: the instruction alone, with no question or option text, plus the single image.
* direct and CoT differ only in the instruction; both are official.

The OCR, boxed and forced-choice instructions below are **not official**: the official code has
no OCR prompt (the paper's "w/ OCR" analysis is not in the repository), the boxed one is the
protocol of reinforcement-learning environments, not of the benchmark, and the forced-choice one
is the text-only filter of ``mmmu-eval harden``. They are ours, and a protocol that uses them
says so (``EvalProtocol.official`` is False).
"""

from __future__ import annotations

from mmmu_eval.prompt.layout import TOKEN
from mmmu_eval.core.records import Item, letters

#: ``prompts.yaml`` (section 6.2), by mode then by ``standard`` / ``vision``.
INSTRUCTIONS: dict[str, dict[str, str]] = {
    "direct": {
        "standard": "Answer with the option letter from the given choices directly.",
        "vision": (
            "Answer with the option letter from the given choices directly. The last line of "
            "your response should be of the following format: 'Answer: $LETTER' (without quotes) "
            "where LETTER is one of options."
        ),
    },
    "cot": {
        "standard": (
            "Answer the preceding multiple choice question. The last line of your response "
            "should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER "
            "is one of options. Think step by step before answering."
        ),
        "vision": (
            "Write out the multiple-choice question in the image and then solve it. The last "
            "line of your response should be of the following format: 'Answer: $LETTER' "
            "(without quotes) where LETTER is one of options. Think step by step before answering."
        ),
    },
}

# --- Not official: our own OCR-then-answer instruction for the vision setting. ------------------
#: Asks for a transcription first (what an OCR pass would give), then a direct answer. The last
#: sentence is the official answer-line format, so the official MMMU-Pro parser reads it.
OCR_VISION_INSTRUCTION = (
    "The image shows a multiple-choice question. First transcribe the question and every "
    "option exactly as written, one option per line, each starting with its letter. Then give "
    "the answer without further explanation. The last line of your response should be of the "
    "following format: 'Answer: $LETTER' (without quotes) where LETTER is one of options."
)

# --- Not official: our own boxed-answer instructions (the reinforcement-learning protocol). -----
#: By ``standard`` / ``vision``. Reason first, then the letter alone in ``\boxed{}``; the
#: ``boxed`` parser takes the last box, so an early box in the reasoning does not count.
#: Plain strings (never ``str.format`` templates), so the braces are written once.
BOXED_INSTRUCTIONS: dict[str, str] = {
    "standard": (
        "Think step by step to solve the multiple-choice question above. Give your final answer "
        "as \\boxed{LETTER}, where LETTER is the letter of the correct option and nothing else."
    ),
    "vision": (
        "The image shows a multiple-choice question and its options. Read it, then think step by "
        "step to solve it. Give your final answer as \\boxed{LETTER}, where LETTER is the letter "
        "of the correct option and nothing else."
    ),
}

# --- Not official: our own forced-choice instruction, the text-only filter of `harden`. --------
#: MMMU-Pro's filter asked text-only models to answer "even when they say they need the image"
#: (arXiv:2409.02813, section 2.2); the paper does not print its prompt, so this one is ours.
#: It tells the model the images are withheld (the text still shows ``<image>`` where they
#: were), forbids refusing, and ends with the official direct instruction, so the official
#: MMMU-Pro parser reads the answer as it reads any direct answer.
FORCED_CHOICE_INSTRUCTION = (
    "The images of this question are not shown to you. Answer anyway: choose the one option you "
    "think most likely correct, even if you are unsure or believe the image is needed, and never "
    "reply that you cannot answer. Answer with the option letter from the given choices directly."
)

#: Section 6.3, step 1: question, option block and instruction, each separated by one newline.
STANDARD_FORMAT = "{question}\n{options}\n{instruction}"
#: One option line; the lines are joined by ``OPTION_SEPARATOR`` (no trailing newline).
OPTION_LINE = "{letter}. {option}"
OPTION_SEPARATOR = "\n"
#: Section 6.3, step 2: what every ``<image N>`` token becomes in the official text.
IMAGE_TOKEN_REPLACEMENT = "<image>"


def instruction(setting: str, mode: str) -> str:
    """The instruction for an MMMU-Pro setting (``standard-10``/``standard-4``/``vision``) and mode."""
    kind = "vision" if setting == "vision" else "standard"
    if mode == "ocr":
        if kind != "vision":
            raise ValueError("the ocr prompt applies to the vision setting only")
        return OCR_VISION_INSTRUCTION
    if mode == "boxed":
        return BOXED_INSTRUCTIONS[kind]
    if mode == "forced-choice":
        if kind != "standard":
            raise ValueError("the forced-choice prompt applies to the standard settings only")
        return FORCED_CHOICE_INSTRUCTION
    try:
        return INSTRUCTIONS[mode][kind]
    except KeyError:
        raise ValueError(f"MMMU-Pro has no {mode!r} prompt (direct, cot, boxed, or ocr for vision)") from None


def templates(setting: str, mode: str) -> dict[str, str]:
    """The template texts this setting and mode use, by name (they go into the fingerprint)."""
    if setting == "vision":
        return {"instruction": instruction(setting, mode)}
    return {
        "standard_format": STANDARD_FORMAT,
        "option_line": OPTION_LINE,
        "option_separator": OPTION_SEPARATOR,
        "image_token_replacement": IMAGE_TOKEN_REPLACEMENT,
        "instruction": instruction(setting, mode),
    }


def raw_prompt(item: Item, setting: str, mode: str) -> str:
    """The prompt before the token replacement of step 2: ``<image N>`` tokens still in place.

    Args:
        item: an MMMU-Pro item of that setting.
        setting: ``standard-10``, ``standard-4`` or ``vision``.
        mode: ``direct``, ``cot``, ``boxed`` (not official), ``ocr`` (vision only; not official), or
            ``forced-choice`` (standard only; not official).

    Returns:
        For standard, ``"{question}\\nA. opt\\nB. opt\\n{instruction}"``; for vision, the
        instruction alone.
    """
    t = templates(setting, mode)
    if setting == "vision":
        return t["instruction"]
    block = t["option_separator"].join(
        t["option_line"].format(letter=letter, option=option)
        for letter, option in zip(letters(len(item.options)), item.options)
    )
    return t["standard_format"].format(question=item.question, options=block, instruction=t["instruction"])


def display_prompt(item: Item, setting: str, mode: str) -> str:
    """The official prompt string: every ``<image N>`` token replaced by ``<image>``."""
    return TOKEN.sub(IMAGE_TOKEN_REPLACEMENT, raw_prompt(item, setting, mode))
