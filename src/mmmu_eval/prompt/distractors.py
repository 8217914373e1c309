"""The distractor prompt of ``mmmu-eval harden augment``: ours, not official.

MMMU-Pro (arXiv:2409.02813, section 2.2) had a strong LLM propose extra options and experts
review them, growing each question from four options to ten; the paper does not print its
prompt. This one gives the model the question (with ``<image N>`` where images were, which it
cannot see), every option with its letter and the correct answer, and asks for exactly the
missing number of wrong options as a JSON list, so the answer can be checked mechanically
(``harden/distractor_rules.py``). docs/harden.md quotes it.

Pure functions, like the rest of the prompt stage: an Item in, a Request out.

>>> from mmmu_eval.core.records import Item
>>> item = Item("x_1", "mmmu", "validation", None, "Math", "Science", "What is 2/4?", ("1/2", "3", "4"), "A",
...             "multiple-choice", ())
>>> request = distractor_request(item, count=6, attempt=1, generation=GenerationSettings(temperature=0.7))
>>> request
Request('x_1#1', 1 parts, 0 images)
>>> print(request.text)
You are helping to make a multiple-choice exam question harder to guess. Write 6 new wrong answer options ...
Correct answer: A. 1/2
...
Reply with a JSON list of exactly 6 strings and nothing else, for example: ["...", "..."]
"""

from __future__ import annotations

import hashlib

from mmmu_eval.core.records import GenerationSettings, Item, Request, TextPart, letters

__all__ = ["DISTRACTOR_TEMPLATE", "distractor_prompt", "distractor_request", "proposal_id", "template_fingerprint"]

DISTRACTOR_TEMPLATE = """\
You are helping to make a multiple-choice exam question harder to guess. Write {count} new \
wrong answer options (distractors) for the question below.

Question: {question}

Options:
{options}

Correct answer: {answer}

Rules for the new options:
- Each must be wrong, yet plausible to someone who does not know the answer.
- Match the existing options in style, length, units and number format.
- Do not repeat or reword any existing option, and never give the correct answer in another \
form (for a number: not the same value written differently).
- "<image N>" marks an image you cannot see; do not refer to images or to option letters.

Reply with a JSON list of exactly {count} strings and nothing else, for example: ["...", "..."]"""


def distractor_prompt(item: Item, count: int) -> str:
    """The prompt asking for ``count`` distractors for ``item`` (its options lettered A, B, ...)."""
    lines = "\n".join(f"{letter}. {option}" for letter, option in zip(letters(len(item.options)), item.options))
    answer = str(item.answer)
    index = ord(answer) - ord("A")
    shown = f"{answer}. {item.options[index]}" if 0 <= index < len(item.options) else answer
    return DISTRACTOR_TEMPLATE.format(count=count, question=item.question.strip(), options=lines, answer=shown)


def proposal_id(item_id: str, attempt: int) -> str:
    """The request id of one attempt: ``validation_Art_3#2``, so every attempt is its own record."""
    return f"{item_id}#{attempt}"


def distractor_request(item: Item, *, count: int, attempt: int, generation: GenerationSettings) -> Request:
    """The text-only request for one attempt at ``item``'s distractors."""
    return Request(
        item_id=proposal_id(item.id, attempt),
        parts=(TextPart(distractor_prompt(item, count)),),
        generation=generation,
    )


def template_fingerprint() -> str:
    """sha256 of the template: a proposal run continues only under the same prompt."""
    return hashlib.sha256(DISTRACTOR_TEMPLATE.encode("utf-8")).hexdigest()
