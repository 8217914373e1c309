"""The answer text of a completion, in whatever form a trainer hands it over.

Trainers and RL frameworks pass the model's answer in many shapes: a plain string, an OpenAI
chat message as a dict, the OpenAI SDK's ``ChatCompletionMessage``, verifiers' pydantic message
types (0.3's and 0.4's ``AssistantMessage``), or a conversation that is a list of any of these.
They all carry the same two things, a ``role`` and a ``content`` (a string, or a list of parts
whose ``text`` parts hold the answer), as dict keys or as attributes; that is what is read
here, without importing any of those libraries.

Anything else is refused with a ``TypeError`` that names what was passed. A silent 0.0 for a
shape we did not understand would train a policy on a reward that means nothing (a batch of
conversations passed as one completion once scored 0 on every item, as did the SDK's objects).

>>> completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "\\\\boxed{B}"}])
'\\\\boxed{B}'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmmu_eval.prompt.reasoning import split_reasoning

__all__ = ["completion_text"]

_FORMS = ("a string, a chat message (a dict or an object with role and content, such as the OpenAI SDK's "
          "ChatCompletionMessage or a verifiers message), or a list of chat messages")


def completion_text(completion: Any) -> str:
    """The text of the completion's last assistant message, with any ``<think>`` block removed.

    A conversation gives its last assistant message (a message without a role counts as the
    assistant's); a conversation without one gives "" (nothing was answered). Content parts
    other than text (images, reasoning) are left out.

    Raises:
        TypeError: the completion, one of its messages or one of their content parts is not
            of a form listed above (the message names the form that was passed, and where).
    """
    if isinstance(completion, str):
        content: Any = completion
    elif _is_message(completion):
        content = _get(completion, "content")
    elif isinstance(completion, (list, tuple)):
        content = _last_reply(completion)
    else:
        raise TypeError(f"a completion must be {_FORMS}; got {_described(completion)}")
    text, _ = split_reasoning(_content_text(content, "the completion's content"))
    return text


def _last_reply(messages: list | tuple) -> Any:
    reply: Any = None
    for index, message in enumerate(messages):
        if not _is_message(message):
            hint = (" (a list of conversations is a batch: score each completion on its own)"
                    if isinstance(message, (list, tuple)) else "")
            raise TypeError(f"a completion that is a list must hold chat messages, but item {index} is "
                            f"{_described(message)}{hint}")
        if (_get(message, "role") or "assistant") == "assistant":
            reply = message
    return "" if reply is None else _get(reply, "content")


def _content_text(content: Any, where: str) -> str:
    if content is None:
        return ""  # a message with tool calls and no text
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = []
        for index, part in enumerate(content):
            if not (isinstance(part, Mapping) or hasattr(part, "type")):
                raise TypeError(f"{where} is a list, so each item must be a content part (type, text); "
                                f"item {index} is {_described(part)}")
            if _get(part, "type") == "text":
                text = _get(part, "text")
                if not isinstance(text, str):
                    raise TypeError(f"{where}: text part {index} holds {_described(text)}, not a string")
                texts.append(text)
        return "".join(texts)
    raise TypeError(f"{where} must be a string or a list of content parts; got {_described(content)}")


def _is_message(value: Any) -> bool:
    if isinstance(value, Mapping):
        return "content" in value or "role" in value
    return not isinstance(value, (str, bytes, list, tuple)) and hasattr(value, "content") and hasattr(value, "role")


def _get(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def _described(value: Any) -> str:
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    shown = repr(value)
    return f"a {name} ({shown[:60]}{'...' if len(shown) > 60 else ''})"
