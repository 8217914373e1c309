"""reward() and scores(): the boxed parser's verdict, with the official one and the format beside it."""

from __future__ import annotations

import re
import sys

import pytest

from fakes import required
from mmmu_eval.environments import reward, scores


def example(answer, question_type="multiple-choice", options=("red", "green", "blue", "grey"), benchmark="mmmu-pro"):
    answers = [answer] if isinstance(answer, str) else list(answer)
    return {
        "id": "x", "answer": answer,
        "info": {"id": "validation_Art_1", "benchmark": benchmark, "split": "test", "subject": "Art",
                 "setting": "standard-10" if benchmark == "mmmu-pro" else None, "discipline": "Art and Design",
                 "question_type": question_type, "options": list(options) if question_type != "open" else [],
                 "answers": answers},
    }


# completion, gold, expected (boxed_correct, official_correct, boxed_found), why
CHOICE_ROWS = [
    ("so \\boxed{B}", "B", (1.0, 0.0, 1.0), "the box holds the gold; the official parser reads no letter in a box"),
    ("so \\boxed{b}", "B", (1.0, 0.0, 1.0), "case-insensitive"),
    ("\\boxed{A} no wait \\boxed{ B }", "B", (1.0, 1.0, 1.0), "the last box counts, trimmed; official reads the spaced B"),
    ("Answer: B", "B", (0.0, 1.0, 0.0), "no box: no reward, though the official parser is right"),
    ("The answer is (C).", "B", (0.0, 0.0, 0.0), "wrong everywhere"),
    ("\\boxed{B", "B", (0.0, 1.0, 0.0), "a box never closed is no box (the official parser reads the trailing B)"),
    ("nothing to parse here", "B", (0.0, 0.0, 0.0), "the official fallback counts 0, never a random letter"),
    ("<think>\\boxed{B}</think> The answer is \\boxed{C}", "B", (0.0, 0.0, 1.0), "the think block is removed first"),
    ("<think>\\boxed{B}</think>", "B", (0.0, 0.0, 0.0), "a box only inside the think block does not count"),
]

OPEN_ROWS = [
    ("\\boxed{36 watts}", "36", (1.0, 1.0, 1.0), "the box's text goes to the official open matching"),
    ("\\boxed{36.0}", "36", (1.0, 1.0, 1.0), "numbers match after rounding"),
    ("\\boxed{42}", "36", (0.0, 0.0, 1.0), "a box with the wrong number"),
    ("The answer is 36", "36", (0.0, 1.0, 0.0), "the official matcher reads it; no box, no reward"),
    ("\\boxed{Paris, France}", ["Paris", "paris, france"], (1.0, 1.0, 1.0), "any accepted answer"),
]


@pytest.mark.parametrize("completion,gold,expected,why", CHOICE_ROWS)
def test_multiple_choice_rows(completion, gold, expected, why):
    got = scores(completion, example(gold))
    assert (got["boxed_correct"], got["official_correct"], got["boxed_found"]) == expected, why
    assert reward(completion, example(gold)) == expected[0]


@pytest.mark.parametrize("completion,gold,expected,why", OPEN_ROWS)
def test_open_rows(completion, gold, expected, why):
    got = scores(completion, example(gold, question_type="open", benchmark="mmmu"))
    assert (got["boxed_correct"], got["official_correct"], got["boxed_found"]) == expected, why


@pytest.mark.parametrize("completion", [
    "\\boxed{B}",
    {"role": "assistant", "content": "\\boxed{B}"},
    [{"role": "user", "content": "q"}, {"role": "assistant", "content": "\\boxed{A}"},
     {"role": "assistant", "content": [{"type": "text", "text": "\\boxed{"}, {"type": "text", "text": "B}"}]}],
], ids=["text", "message", "conversation"])
def test_every_completion_shape_reads_the_last_assistant_text(completion):
    assert reward(completion, example("B")) == 1.0


def test_an_official_parser_crash_scores_official_zero_not_an_exception():
    """A nested option list makes the official content pass crash; the reward still comes back."""
    bad = example("A", options=("a", ["nested", "list"], "c"))
    assert scores("well, it is somewhere in this long text", bad) == {
        "boxed_correct": 0.0, "official_correct": 0.0, "boxed_found": 0.0}


# -- every completion form a trainer hands over -------------------------------------------------

def sdk_message(content):
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage(role="assistant", content=content)


def test_the_openai_sdk_message_object_is_read_as_its_text():
    """The SDK's pydantic ChatCompletionMessage (what ``client.chat.completions.create`` returns)."""
    message = sdk_message("Reasoning first... so the answer is \\boxed{D}.")
    assert scores(message, example("D")) == {"boxed_correct": 1.0, "official_correct": 0.0, "boxed_found": 1.0}
    assert reward([message], example("D")) == 1.0
    assert reward([sdk_message("\\boxed{A}"), message], example("D")) == 1.0  # the last one counts
    assert reward(sdk_message(None), example("D")) == 0.0  # a tool-call turn holds no text


def test_verifiers_message_objects_are_read_as_their_text():
    if sys.version_info < (3, 11):
        pytest.skip("verifiers (the extra) needs Python 3.11+; its message types cannot be installed here")
    vf = required.module("verifiers.v1", "verifiers' message types need the verifiers extra")
    conversation = [vf.UserMessage(content="q"), vf.AssistantMessage(content="so \\boxed{D}")]
    assert reward(conversation, example("D")) == 1.0
    assert reward(conversation[-1], example("D")) == 1.0


class PartObject:
    """A content part as an object (type and text attributes), as pydantic SDKs model them."""

    def __init__(self, type_, text=None):
        self.type, self.text = type_, text


class MessageObject:
    def __init__(self, role, content):
        self.role, self.content = role, content


def test_content_parts_as_objects_and_tuples():
    parts = [PartObject("text", "so \\boxed{"), PartObject("image_url"), PartObject("text", "D}")]
    assert reward(MessageObject("assistant", parts), example("D")) == 1.0
    assert reward((MessageObject("user", "q"), MessageObject("assistant", tuple(parts))), example("D")) == 1.0


@pytest.mark.parametrize("completion,named", [
    ([[{"role": "assistant", "content": "\\boxed{D}"}]], "a list of conversations is a batch"),
    (42, "got a int (42)"),
    (None, "got a NoneType"),
    (b"\\boxed{D}", "got a bytes"),
    ({"text": "\\boxed{D}"}, "got a dict"),
    (["\\boxed{D}"], "item 0 is a str"),
    ({"role": "assistant", "content": 7}, "content must be a string or a list of content parts; got a int"),
    ({"role": "assistant", "content": ["\\boxed{D}"]}, "item 0 is a str"),
    ({"role": "assistant", "content": [{"type": "text", "text": None}]}, "text part 0 holds a NoneType"),
], ids=["batch", "int", "none", "bytes", "dict-without-content", "list-of-strings", "int-content",
        "string-parts", "none-text"])
def test_anything_else_is_a_type_error_naming_it_never_zero(completion, named):
    with pytest.raises(TypeError, match=re.escape(named)):
        scores(completion, example("D"))
    with pytest.raises(TypeError):
        reward(completion, example("D"))


def test_an_object_that_is_no_message_is_named_by_its_type():
    with pytest.raises(TypeError, match=r"tests?\.?.*PartObject|PartObject"):
        reward(PartObject("text", "\\boxed{D}"), example("D"))


def test_an_empty_conversation_or_one_without_a_reply_answers_nothing():
    assert scores([], example("D"))["boxed_found"] == 0.0
    assert scores([{"role": "user", "content": "\\boxed{D}"}], example("D"))["boxed_correct"] == 0.0
